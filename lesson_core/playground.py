"""The playground's input rules: turn what a learner typed into tokens, and
check the feature vectors they entered. Pure Python / NumPy; every problem is
returned as a code the page turns into a message in the learner's language."""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass

import numpy as np

from lesson_core.word_vectors import seeded_vector

MAX_TOKENS = 64
MAX_CHARS = 1000
MAX_ABS = 100.0  # bigger feature values only make softmax one-hot; refuse them


@dataclass(frozen=True)
class Tokens:
    tokens: tuple[str, ...]
    problem: str | None = None  # "empty" | "too_long" | "too_many" | None


def clean_text(text: str) -> str:
    """Drop control characters (NUL, bidi overrides, ...) but keep every letter,
    emoji and symbol as typed."""
    return "".join(c for c in text if unicodedata.category(c) not in ("Cc", "Cf") or c in " \t")


def tokenize(text: str, per_character: bool) -> Tokens:
    """Split on spaces, or one token per character (for Japanese without spaces).

    Refuses empty input, more than MAX_CHARS characters and more than
    MAX_TOKENS tokens instead of cutting silently."""
    if len(text) > MAX_CHARS:
        return Tokens((), "too_long")
    text = clean_text(text)
    tokens = tuple(c for c in text if not c.isspace()) if per_character else tuple(text.split())
    if not tokens:
        return Tokens((), "empty")
    if len(tokens) > MAX_TOKENS:
        return Tokens((), "too_many")
    return Tokens(tokens)


def bad_cells(values: np.ndarray) -> list[tuple[int, int, str]]:
    """(row, column, reason) of every cell that is missing, not finite or out of
    range (|x| > MAX_ABS); reason is "missing" or "range".

    Shapes: values [n, d] (float, NaN for an empty cell)"""
    values = np.asarray(values, dtype=float)
    missing = np.argwhere(np.isnan(values))
    out_of_range = np.argwhere(~np.isnan(values) & ~(np.abs(values) <= MAX_ABS))
    cells = [(int(r), int(c), "missing") for r, c in missing]
    cells += [(int(r), int(c), "range") for r, c in out_of_range]
    return sorted(cells)


def default_vectors(tokens: tuple[str, ...], known: dict[str, np.ndarray], d: int) -> np.ndarray:
    """A starting vector per token: the hand-made one if the course knows the
    token, otherwise small numbers derived from the token's text.

    Shapes: -> [n, d]"""
    rows = [known[tok] if tok in known else seeded_vector(tok, d) for tok in tokens]
    return np.array(rows, dtype=float).reshape(len(tokens), d)
