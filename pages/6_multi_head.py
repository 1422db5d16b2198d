"""Lesson 6: multi-head attention.

An entry point only (its file name is the URL); the page is lessons/multi_head/page.py.
"""

from lessons.multi_head.page import main

main()
