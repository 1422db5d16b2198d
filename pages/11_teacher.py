"""Teacher's page.

An entry point only (its file name is the URL); the page is lessons/teacher/page.py.
Written by tests/tools/write_pages.py from course_app/course.py.
"""

from lessons.teacher.page import main

main()
