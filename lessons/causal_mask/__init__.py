"""Lesson 4 — the causal mask: each position sees itself and its left only."""
