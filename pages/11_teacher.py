"""The teacher's page.

An entry point only (its file name is the URL); the page is lessons/teacher/page.py.
"""

from lessons.teacher.page import main

main()
