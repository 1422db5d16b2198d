"""Lesson 7: A mini GPT that can tell ねこ は from いぬ は.

An entry point only (its file name is the URL); the page is lessons/capstone/page.py.
Written by tests/tools/write_pages.py from course_app/course.py.
"""

from lessons.capstone.page import main

main()
