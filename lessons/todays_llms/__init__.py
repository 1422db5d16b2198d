"""Lesson 8 — attention in today's LLMs: the KV cache, rotary position"""
