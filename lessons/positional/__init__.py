"""Lesson 5 — positional encoding: attention alone is blind to order (with the"""
