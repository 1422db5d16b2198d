"""Lesson 2 — attention: Query, Key, Value and the weighted average."""
