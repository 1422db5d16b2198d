"""The home page: what the course teaches and the course map.

An entry point only (its file name is the URL); the page is lessons/home/page.py.
"""

from lessons.home.page import main

main()
