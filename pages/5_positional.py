"""Lesson 5: positional encoding.

An entry point only (its file name is the URL); the page is lessons/positional/page.py.
"""

from lessons.positional.page import main

main()
