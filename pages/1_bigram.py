"""Lesson 1: Bigram limits: one previous token is not enough.

An entry point only (its file name is the URL); the page is lessons/bigram/page.py.
Written by tests/tools/write_pages.py from course_app/course.py.
"""

from lessons.bigram.page import main

main()
