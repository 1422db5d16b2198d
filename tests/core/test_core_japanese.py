"""Japanese typed without spaces, split into the lessons' words and particles."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lesson_core.japanese import proposed_split, split_words


@pytest.mark.parametrize(
    ("typed", "words"),
    [
        ("いぬがほねをかじる", "いぬ が ほね を かじる"),
        ("ねこはひるねがすき", "ねこ は ひるね が すき"),
        ("猫が魚を食べた", "猫 が 魚 を 食べた"),
        # the attention lessons' sentence: 食べた and だった stay whole
        ("猫が魚を食べた。それは新鮮だった", "猫 が 魚 を 食べた 。 それ は 新鮮 だった"),
        ("わたしはきょう本を読む", "わたし は きょう 本 を 読む"),
    ],
)
def test_japanese_without_spaces_is_split_like_the_lessons(typed, words):
    assert split_words(typed) == tuple(words.split())
    assert proposed_split(typed) == words


def test_text_with_spaces_keeps_the_learners_split():
    assert split_words("ねこは ひるねがすき") == ("ねこは", "ひるねがすき")
    assert split_words("猫\u3000が 魚") == ("猫", "が", "魚")
    assert proposed_split("ねこ は すき") is None


def test_nothing_to_propose_for_one_word_or_text_without_japanese():
    assert proposed_split("ねこ") is None
    assert proposed_split("<script>alert(1)</script>") is None
    assert split_words("<script>alert(1)</script>") == ("<script>alert(1)</script>",)
    assert proposed_split("") is None and split_words("") == ()
    assert proposed_split(None) is None  # type: ignore[arg-type]


@settings(max_examples=60, deadline=None)
@given(st.text(alphabet=st.characters(codec="utf-8", exclude_categories=["Cs"]), max_size=80))
def test_no_character_is_lost_or_added(text):
    words = split_words(text)
    assert "".join(words) == "".join(text.split())
    assert all(w and not any(c.isspace() for c in w) for w in words)


@settings(max_examples=60, deadline=None)
@given(st.text(alphabet="ねこはいぬがすきを食べた猫魚。、！？ーカタナabc1😀<>$", max_size=60))
def test_japanese_text_keeps_every_character(text):
    assert "".join(split_words(text)) == text
