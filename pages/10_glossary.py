"""Glossary.

An entry point only (its file name is the URL); the page is lessons/glossary/page.py.
Written by tests/tools/write_pages.py from course_app/course.py.
"""

from lessons.glossary.page import main

main()
