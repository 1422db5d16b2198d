"""Playground: try your own sentence.

An entry point only (its file name is the URL); the page is lessons/playground/page.py.
Written by tests/tools/write_pages.py from course_app/course.py.
"""

from lessons.playground.page import main

main()
