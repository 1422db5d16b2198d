"""Lesson 1 — what a bigram cannot see, and why a plain average does not fix it."""
