"""Lesson 8: attention in today's LLMs.

An entry point only (its file name is the URL); the page is lessons/todays_llms/page.py.
"""

from lessons.todays_llms.page import main

main()
