"""Lesson 1: what a bigram cannot see.

An entry point only (its file name is the URL); the page is lessons/bigram/page.py.
"""

from lessons.bigram.page import main

main()
