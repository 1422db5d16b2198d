"""Lesson 3 — scaling: why attention divides the scores by √d_k."""
