"""Every shown number rounds half up (四捨五入), as the hand calculation teaches."""

import numpy as np
import pytest

from course_app.i18n import num, pct, pct_label, vec
from lesson_core.ranking import tops
from lesson_core.rounding import fixed, fixed_array, half_up, half_up_array


@pytest.mark.parametrize(
    ("x", "digits", "expected"),
    [
        (0.125, 2, "0.13"),
        (-0.125, 2, "-0.13"),
        (2.5, 0, "3"),
        (-2.5, 0, "-3"),
        (0.005, 2, "0.01"),
        (1.005, 2, "1.01"),  # the decimal the float stands for, not its binary 1.00499...
        (0.0049, 2, "0.00"),
        (-0.004, 2, "0.00"),  # never a negative zero
        (-0.0, 1, "0.0"),
        (1e30, 2, "1000000000000000000000000000000.00"),
    ],
)
def test_fixed_rounds_half_up_away_from_zero(x, digits, expected):
    assert fixed(x, digits) == expected
    assert half_up(x, digits) == float(expected)


def test_scale_and_grouping_round_the_scaled_decimal():
    assert fixed(0.1225, 1, scale=100) == "12.3"  # format(12.25, ".1f") says 12.2
    assert fixed(1024.05, 1, grouped=True) == "1,024.1"
    assert list(fixed_array(np.array([0.125, -0.125]), 2)) == ["0.13", "-0.13"]
    np.testing.assert_array_equal(half_up_array([[0.125, 2.5]], 1), [[0.1, 2.5]])
    assert half_up(float("inf"), 2) == float("inf")


def test_the_app_formatters_round_half_up_with_a_real_minus():
    assert num(-0.125) == "−0.13" and num(0.125) == "0.13"
    assert num(-0.001) == "0.00" and vec([2.5, -0.4], 0) == "[3, 0]"
    assert pct(0.1225) == "12.3%" and pct(-0.00001) == "0.0%"
    assert pct(0.005, 0) == "1%" and pct_label(0.004, 0) == "<1%" and pct_label(0.0005) == "0.1%"


def test_ties_are_read_at_the_rounding_shown():
    # 12.25% and 12.3% both print as 12.3%: a tie, not one winner
    assert list(tops(np.array([0.1225, 0.123]))) == [0, 1]
