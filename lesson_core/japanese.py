"""Japanese typed without spaces, split into the words and particles the
lessons use as tokens (いぬがほねをかじる -> いぬ が ほね を かじる).

A morphological analyser (SudachiPy with its small dictionary, installed from
PyPI and run offline; it splits learner-like sentences as the core one does:
tests/benchmarks/sudachi_dicts.py) finds the words; an auxiliary verb is then joined to the
verb or adjective before it, because the lessons treat 食べた as one token,
not 食べ + た. Text that already has spaces keeps the learner's own split.
Pure Python, no Streamlit.
"""

from __future__ import annotations

import functools
import re

# Hiragana, katakana (with the prolonged sound mark) and CJK ideographs.
_JAPANESE = re.compile(r"[\u3041-\u309f\u30a0-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
MAX_SPLIT_CHARS = 2000  # longer text is not analysed (callers refuse it anyway)
_JOINS_AUXILIARY = ("動詞", "形容詞", "助動詞")  # 食べ+た, おいしかっ+た, だっ+た


@functools.cache
def _tokenizer():
    """The analyser, built once per process (loading the dictionary takes a moment)."""
    from sudachipy import Dictionary, SplitMode

    return Dictionary(dict="small").tokenizer(mode=SplitMode.C)


def has_japanese(text: str) -> bool:
    return bool(_JAPANESE.search(text))


def split_words(text: str) -> tuple[str, ...]:
    """The words of ``text``: split on whitespace when it has any (the
    learner's own split), otherwise, for Japanese, by the analyser, with
    auxiliaries kept on their verb. Every character except whitespace is
    kept, so joining the words gives the text back without its spaces.

    Shapes: text -> [n] tokens
    """
    words = text.split()
    if len(words) != 1 or not has_japanese(text) or len(text) > MAX_SPLIT_CHARS:
        return tuple(words)
    merged: list[str] = []
    previous = ""
    for morpheme in _tokenizer().tokenize(words[0]):
        surface, kind = morpheme.surface(), morpheme.part_of_speech()[0]
        if not surface.strip():
            continue
        if kind == "助動詞" and merged and previous in _JOINS_AUXILIARY:
            merged[-1] += surface
        else:
            merged.append(surface)
        previous = kind
    return tuple(merged)


def proposed_split(text: str) -> str | None:
    """What to put in the learner's text box for them to check: the words of
    ``text`` separated by single spaces, or None when there is nothing to
    propose (text with spaces, not Japanese, or a single word)."""
    if not isinstance(text, str) or len(text.split()) != 1:
        return None
    words = split_words(text.strip())
    return " ".join(words) if len(words) > 1 else None
