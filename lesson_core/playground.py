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
    removed: int = 0  # invisible or control characters dropped from the text
    n_chars: int = 0  # characters typed (for the "too long" message)


ZWJ = "\u200d"  # zero-width joiner: inside emoji sequences (👨‍👩‍👧‍👦) it is part of the picture
TAGS = range(0xE0020, 0xE0080)  # tag characters: inside subdivision flags (🏴󠁧󠁢󠁳󠁣󠁴󠁿)
SKIN_TONES = range(0x1F3FB, 0x1F400)


def _pictographic(c: str) -> bool:
    """Roughly Unicode's Extended_Pictographic: symbols and emoji."""
    return unicodedata.category(c) == "So" or 0x1F000 <= ord(c) <= 0x1FAFF


def _part_of_emoji(text: str, i: int) -> bool:
    """Whether the format character text[i] belongs to an emoji sequence: a
    joiner between two pictographs, or a tag character after a flag."""
    c = text[i]
    if c == ZWJ:
        before = text[i - 1] if i > 0 else ""
        if before and unicodedata.category(before) == "Mn" and i > 1:  # a variation selector
            before = text[i - 2]
        if before and ord(before) in SKIN_TONES and i > 1:
            before = text[i - 2]
        after = text[i + 1] if i + 1 < len(text) else ""
        return bool(before and after) and _pictographic(before) and _pictographic(after)
    if ord(c) in TAGS:
        j = i
        while j > 0 and ord(text[j - 1]) in TAGS:
            j -= 1
        return j > 0 and text[j - 1] == "\U0001f3f4"
    return False


def clean_text(text: str) -> tuple[str, int]:
    """Drop control and invisible format characters (NUL, zero-width spaces,
    bidi overrides, ...) but keep every letter, emoji and symbol as typed,
    including the joiners inside emoji sequences. Returns (text, how many
    characters were dropped)."""
    kept = [
        c
        for i, c in enumerate(text)
        if unicodedata.category(c) not in ("Cc", "Cf") or c in " \t" or _part_of_emoji(text, i)
    ]
    return "".join(kept), len(text) - len(kept)


def characters(text: str) -> tuple[str, ...]:
    """The visible characters of ``text``: a letter with its combining marks
    (が written as か + ゛), an emoji with its skin tone, variation selector and
    joined parts (👨‍👩‍👧‍👦) stay one piece. Spaces are left out.

    Shapes: text -> [n] pieces"""
    pieces: list[str] = []
    joined = False
    for c in text:
        glue = unicodedata.category(c) in ("Mn", "Mc", "Me") or ord(c) in SKIN_TONES or ord(c) in TAGS
        if pieces and (glue or joined or c == ZWJ):
            pieces[-1] += c
        elif not c.isspace():
            pieces.append(c)
        joined = c == ZWJ and bool(pieces)
    return tuple(pieces)


def tokenize(text: str, per_character: bool) -> Tokens:
    """Split on spaces, or one token per visible character (for Japanese without
    spaces).

    Refuses empty input, more than MAX_CHARS characters and more than
    MAX_TOKENS tokens instead of cutting silently; says how many invisible
    characters it dropped."""
    text = text if isinstance(text, str) else ""
    if len(text) > MAX_CHARS:
        return Tokens((), "too_long", n_chars=len(text))
    text, removed = clean_text(text)
    tokens = characters(text) if per_character else tuple(text.split())
    if not tokens:
        return Tokens((), "empty", removed)
    if len(tokens) > MAX_TOKENS:
        return Tokens((), "too_many", removed)
    return Tokens(tokens, None, removed)


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
