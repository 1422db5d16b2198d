"""The playground: the learner's own sentence and vectors.

An entry point only (its file name is the URL); the page is lessons/playground/page.py.
"""

from lessons.playground.page import main

main()
