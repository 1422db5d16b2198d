"""Layer 1: checking a sentence a learner types for the bigram lesson's corpus."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from lesson_core.corpus_input import (
    MAX_CHARS,
    MAX_SENTENCES,
    MAX_TOKEN_CHARS,
    MAX_TOKENS,
    REASONS,
    check_sentence,
    split_sentence,
)
from lesson_core.examples import CORPUS


def test_a_good_sentence_is_split_on_any_spaces():
    check = check_sentence("  ねこ は\u3000ミルク\tが  すき ", CORPUS, 0)
    assert check.ok and check.problem is None
    assert check.tokens == ("ねこ", "は", "ミルク", "が", "すき")


@pytest.mark.parametrize(
    ("text", "n_added", "problem", "n"),
    [
        ("", 0, "empty", None),
        ("   \u3000 \n", 0, "empty", None),
        ("ねこ", 0, "one_token", None),
        ("<script>alert(1)</script>", 0, "one_token", None),
        (" ".join(["あ"] * 31), 0, "too_many_tokens", 31),
        (" ".join(["a"] * 150), 0, "too_many_tokens", 150),
        (" ".join(["a"] * 500), 0, "too_many_chars", 999),
        ("ねこ " + "あ" * 31, 0, "long_token", 31),
        ("ねこ は\x00 すき", 0, "unprintable", None),
        ("ねこ は ひるね が すき", 0, "duplicate", None),
        ("ねこ  は ひるね が\u3000すき", 0, "duplicate", None),
        ("ねこ は ミルク が すき", MAX_SENTENCES, "full", None),
    ],
)
def test_bad_input_gets_a_reason(text, n_added, problem, n):
    check = check_sentence(text, CORPUS, n_added)
    assert not check.ok and check.problem == problem and problem in REASONS
    assert check.values.get("n") == n
    # every message can name the limits
    assert check.values["max_tokens"] == MAX_TOKENS == 30
    assert check.values["max_sentences"] == MAX_SENTENCES == 50


def test_limits_are_inclusive():
    assert check_sentence(" ".join(["a"] * MAX_TOKENS), [], 0).ok
    assert check_sentence("ねこ " + "あ" * MAX_TOKEN_CHARS, [], 0).ok
    assert check_sentence("ねこ は", [], MAX_SENTENCES - 1).ok
    assert check_sentence("a " + "b" * (MAX_CHARS - 2), [], 0).problem == "long_token"


def test_html_is_kept_as_plain_tokens():
    check = check_sentence("<b>ねこ</b> は **すき**", CORPUS, 0)
    assert check.ok and check.tokens == ("<b>ねこ</b>", "は", "**すき**")


def test_not_a_string_counts_as_empty():
    assert check_sentence(None, CORPUS, 0).problem == "empty"  # type: ignore[arg-type]


@given(st.text(max_size=400), st.integers(0, MAX_SENTENCES + 3))
def test_any_text_gets_an_answer_and_good_ones_fit_the_limits(text, n_added):
    check = check_sentence(text, CORPUS, n_added)
    assert check.problem is None or check.problem in REASONS
    if check.ok:
        assert 2 <= len(check.tokens) <= MAX_TOKENS and n_added < MAX_SENTENCES
        assert all(0 < len(tok) <= MAX_TOKEN_CHARS and tok.isprintable() for tok in check.tokens)
        assert check.tokens not in set(CORPUS)
        # what the page stores (tokens joined by one space) splits back to the same tokens
        assert split_sentence(" ".join(check.tokens)) == check.tokens
