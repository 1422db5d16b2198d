"""Lesson 7: a mini GPT that tells ねこ は from いぬ は.

An entry point only (its file name is the URL); the page is lessons/capstone/page.py.
"""

from lessons.capstone.page import main

main()
