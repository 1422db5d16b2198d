"""Lesson 2: Attention: Query, Key, Value and the weighted average.

An entry point only (its file name is the URL); the page is lessons/attention/page.py.
Written by tests/tools/write_pages.py from course_app/course.py.
"""

from lessons.attention.page import main

main()
