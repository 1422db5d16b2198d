"""The glossary.

An entry point only (its file name is the URL); the page is lessons/glossary/page.py.
"""

from lessons.glossary.page import main

main()
