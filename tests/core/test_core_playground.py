"""The playground's input rules."""

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from lesson_core.playground import MAX_TOKENS, bad_cells, default_vectors, tokenize


def test_split_on_spaces_and_per_character():
    assert tokenize("猫 が 魚", per_character=False).tokens == ("猫", "が", "魚")
    assert tokenize("猫が魚", per_character=True).tokens == ("猫", "が", "魚")
    assert tokenize("  ", per_character=False).problem == "empty"
    assert tokenize("", per_character=True).problem == "empty"


def test_limits_are_refused_not_cut():
    assert tokenize(" ".join(["a"] * MAX_TOKENS), False).problem is None
    assert tokenize(" ".join(["a"] * (MAX_TOKENS + 1)), False).problem == "too_many"
    assert tokenize("x" * 10_000, True).problem == "too_long"


def test_hostile_text_is_kept_as_typed_except_control_characters():
    assert tokenize("<script>alert(1)</script>", False).tokens == ("<script>alert(1)</script>",)
    assert tokenize("a\x00b \u202ec", False).tokens == ("ab", "c")
    assert tokenize("🐱 が", False).tokens == ("🐱", "が")


@given(st.text(max_size=300), st.booleans())
def test_tokenize_never_raises_and_respects_the_limit(text, per_character):
    result = tokenize(text, per_character)
    assert (result.problem is None) == bool(result.tokens)
    assert len(result.tokens) <= MAX_TOKENS


def test_bad_cells_names_each_cell():
    values = np.array([[1.0, np.nan], [np.inf, 1e9], [0.0, -3.0]])
    assert bad_cells(values) == [(0, 1, "missing"), (1, 0, "range"), (1, 1, "range")]
    assert bad_cells(np.zeros((2, 4))) == []


def test_default_vectors():
    known = {"猫": np.array([3.0, 0, 0, 0])}
    start = default_vectors(("猫", "犬", "犬", "鳥"), known, 4)
    np.testing.assert_array_equal(start[0], [3, 0, 0, 0])  # a word the course knows keeps its vector
    np.testing.assert_array_equal(start[1], start[2])  # the same word starts the same way
    assert np.any(start[1] != 0) and np.any(start[1] != start[3])  # a new word is neither zero nor a copy
    np.testing.assert_array_equal(start[1], default_vectors(("犬",), {}, 4)[0])  # and does not drift
    assert default_vectors((), known, 4).shape == (0, 4)


def test_emoji_sequences_stay_whole_and_dropped_characters_are_counted():
    family = "👨\u200d👩\u200d👧\u200d👦"
    flag = "🏴\U000e0067\U000e0062\U000e0073\U000e0063\U000e0074\U000e007f"  # Scotland
    assert tokenize(f"{family} {flag}", False).tokens == (family, flag)
    assert tokenize(f"{family} {flag}", False).removed == 0
    result = tokenize("ね\u200bこ\u2060 が\u202e", False)
    assert result.tokens == ("ねこ", "が") and result.removed == 3
    assert tokenize(f"か\u3099{family}", True).tokens == ("か\u3099", family)
    assert tokenize("x" * 10_000, False).n_chars == 10_000
