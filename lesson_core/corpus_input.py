"""Checking a sentence a learner types before it joins the corpus.

Pure Python: the page turns each reason code into a message from the catalog
(``bigram.input.<code>``) with the numbers in ``values``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

MAX_TOKENS = 30  # tokens per added sentence
MAX_SENTENCES = 50  # sentences a learner may add
MAX_TOKEN_CHARS = 30  # characters per token
MAX_CHARS = 300  # characters in the typed text

# Reason codes, in the order they are checked.
EMPTY, FULL, TOO_MANY_CHARS, UNPRINTABLE, ONE_TOKEN, TOO_MANY_TOKENS, LONG_TOKEN, DUPLICATE = (
    "empty",
    "full",
    "too_many_chars",
    "unprintable",
    "one_token",
    "too_many_tokens",
    "long_token",
    "duplicate",
)
REASONS = (EMPTY, FULL, TOO_MANY_CHARS, UNPRINTABLE, ONE_TOKEN, TOO_MANY_TOKENS, LONG_TOKEN, DUPLICATE)


@dataclass(frozen=True)
class SentenceCheck:
    """tokens: the sentence split on spaces; problem: None when it may be
    added, else a reason code; values: the numbers its message needs."""

    tokens: tuple[str, ...]
    problem: str | None = None
    values: dict[str, int] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return self.problem is None


def split_sentence(text: str) -> tuple[str, ...]:
    """Split on any run of whitespace, including the full-width space (U+3000)
    that Japanese input methods type.

    Shapes: text -> [n] tokens
    """
    return tuple(text.split())


def check_sentence(text: str, corpus: Sequence[Sequence[str]], n_added: int) -> SentenceCheck:
    """May ``text`` be added to ``corpus`` (which already holds ``n_added`` of
    the learner's sentences)? Checks, in order: something typed, room left,
    at most MAX_CHARS characters, printable characters only, at least two
    tokens (a bigram needs a pair), at most MAX_TOKENS tokens, no token longer
    than MAX_TOKEN_CHARS, and not already in the corpus.

    Shapes: text, corpus: list of token lists -> tokens [n]
    """
    text = text if isinstance(text, str) else ""
    tokens = split_sentence(text)
    limits = {
        "max_sentences": MAX_SENTENCES,
        "max_chars": MAX_CHARS,
        "max_tokens": MAX_TOKENS,
        "max_token_chars": MAX_TOKEN_CHARS,
    }
    if not tokens:
        return SentenceCheck((), EMPTY, limits)
    if n_added >= MAX_SENTENCES:
        return SentenceCheck(tokens, FULL, limits)
    if len(text.strip()) > MAX_CHARS:
        return SentenceCheck(tokens, TOO_MANY_CHARS, limits | {"n": len(text.strip())})
    if not all(tok.isprintable() for tok in tokens):
        return SentenceCheck(tokens, UNPRINTABLE, limits)
    if len(tokens) == 1:
        return SentenceCheck(tokens, ONE_TOKEN, limits)
    if len(tokens) > MAX_TOKENS:
        return SentenceCheck(tokens, TOO_MANY_TOKENS, limits | {"n": len(tokens)})
    if any(len(tok) > MAX_TOKEN_CHARS for tok in tokens):
        return SentenceCheck(tokens, LONG_TOKEN, limits | {"n": max(map(len, tokens))})
    if tokens in {tuple(sentence) for sentence in corpus}:
        return SentenceCheck(tokens, DUPLICATE, limits)
    return SentenceCheck(tokens, None, limits)
