"""Lesson 3: why the scores are divided by √d_k.

An entry point only (its file name is the URL); the page is lessons/scaling/page.py.
"""

from lessons.scaling.page import main

main()
