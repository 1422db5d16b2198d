"""Lesson 6 — multi-head attention: several heads in parallel, then one projection."""
