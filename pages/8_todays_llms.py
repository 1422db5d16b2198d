"""Lesson 8: Attention in today's LLMs: KV cache, RoPE, shared heads, long context.

An entry point only (its file name is the URL); the page is lessons/todays_llms/page.py.
Written by tests/tools/write_pages.py from course_app/course.py.
"""

from lessons.todays_llms.page import main

main()
