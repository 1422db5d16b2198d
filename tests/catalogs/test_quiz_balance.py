"""The length of a quiz option must not give the answer away: the right option is
seldom the longest, and the options of one quiz are of comparable length."""

import re

import pytest

from course_app.course import LESSONS
from course_app.i18n import LANGS, catalog

MATH = re.compile(r"\$[^$]*\$")
MAX_RATIO = 2.2  # longest option / shortest option, within one quiz
SHORT = 15  # quizzes whose options are all shorter than this (e.g. "10 × 64") are not ratio-checked


def length(option: str) -> int:
    """Characters of an option as read, with $...$ math left out."""
    return len(MATH.sub("", option).strip())


def quizzes(lang: str) -> list[tuple[str, int, list[int]]]:
    """(catalog key, index of the right option, option lengths) for every quiz."""
    cat = catalog(lang)
    found = []
    for lesson in LESSONS:
        for quiz in lesson.quizzes:
            key = f"{lesson.id}.quiz.{quiz.id}"
            found.append((key, quiz.answer, [length(o) for o in cat[f"{key}.options"]]))
    return found


@pytest.mark.parametrize("lang", LANGS)
def test_the_right_option_is_seldom_the_longest(lang):
    all_quizzes = quizzes(lang)
    longest = [
        key
        for key, answer, lengths in all_quizzes
        if all(lengths[answer] > n for i, n in enumerate(lengths) if i != answer)
    ]
    assert len(longest) <= len(all_quizzes) // 3, longest


@pytest.mark.parametrize("lang", LANGS)
def test_options_of_a_quiz_are_of_comparable_length(lang):
    uneven = {
        key: lengths
        for key, _, lengths in quizzes(lang)
        if max(lengths) >= SHORT and max(lengths) > MAX_RATIO * min(lengths)
    }
    assert not uneven
