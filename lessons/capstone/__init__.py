"""Lesson 7 — the capstone: a mini GPT that can tell ねこ は from いぬ は."""
