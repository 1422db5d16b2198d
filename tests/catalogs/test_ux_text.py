"""Text a screen reader can say: quiz options that are only a formula."""

import re

import pytest

from course_app.a11y import plain_maths
from course_app.i18n import LANGS, catalog


@pytest.mark.parametrize(
    ("option", "spoken"),
    [
        ("$n \\times n$", "n × n"),
        ("$d_k \\times d_k$", "dₖ × dₖ"),
        ("$n \\times d_{k}$", "n × dₖ"),
        ("$\\sqrt{d_k}$", "√dₖ"),
    ],
)
def test_a_formula_alone_becomes_plain_text(option, spoken):
    assert plain_maths(option) == spoken


@pytest.mark.parametrize(
    "option", ["$\\sqrt{d_k}$ に比例して大きくなる", "ねこ", "$x^2$", "$\\frac{a}{b}$", "$5"]
)
def test_anything_else_is_left_alone(option):
    assert plain_maths(option) == option


def test_no_quiz_option_is_a_formula_alone():
    for lang in LANGS:
        for key, options in catalog(lang).items():
            if key.endswith(".options"):
                for option in options:
                    if re.fullmatch(r"\s*\$[^$]+\$\s*", option):
                        assert "$" not in plain_maths(option), (lang, key, option)
