"""Lesson 6: Multi-head attention: several ways of looking at once.

An entry point only (its file name is the URL); the page is lessons/multi_head/page.py.
Written by tests/tools/write_pages.py from course_app/course.py.
"""

from lessons.multi_head.page import main

main()
