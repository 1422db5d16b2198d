"""Lesson 4: The causal mask: no peeking to the right.

An entry point only (its file name is the URL); the page is lessons/causal_mask/page.py.
Written by tests/tools/write_pages.py from course_app/course.py.
"""

from lessons.causal_mask.page import main

main()
