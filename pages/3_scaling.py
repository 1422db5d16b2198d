"""Lesson 3: Scaling: why divide by √d_k?.

An entry point only (its file name is the URL); the page is lessons/scaling/page.py.
Written by tests/tools/write_pages.py from course_app/course.py.
"""

from lessons.scaling.page import main

main()
