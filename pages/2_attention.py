"""Lesson 2: attention, Query, Key, Value and the weighted average.

An entry point only (its file name is the URL); the page is lessons/attention/page.py.
"""

from lessons.attention.page import main

main()
