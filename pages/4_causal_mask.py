"""Lesson 4: the causal mask.

An entry point only (its file name is the URL); the page is lessons/causal_mask/page.py.
"""

from lessons.causal_mask.page import main

main()
