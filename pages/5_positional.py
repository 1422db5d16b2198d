"""Lesson 5: Positional encoding: telling attention the word order.

An entry point only (its file name is the URL); the page is lessons/positional/page.py.
Written by tests/tools/write_pages.py from course_app/course.py.
"""

from lessons.positional.page import main

main()
