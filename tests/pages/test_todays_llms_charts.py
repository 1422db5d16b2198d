"""The growth chart of lesson 8's long-context section: its y axis covers both
lines, whatever the measured times are."""

from __future__ import annotations

import numpy as np
import pytest

from lessons.todays_llms.long_context import growth_ticks


@pytest.mark.parametrize(
    "time_ratios",
    [
        [1.0, 3.1, 19.0, 80.0],  # the time grows faster than the count: past the count's last step
        [1.0, 2.0, 5.0, 9.0],  # slower
        [1.0, 0.8, 3.0, 20.0],  # noise: a larger n measured faster than the first
        [1.0, 4.0, 16.0, 64.0],  # exactly the count
    ],
)
def test_the_ticks_are_powers_of_four_around_both_lines(time_ratios):
    count = np.array([1.0, 4.0, 16.0, 64.0])
    ticks = growth_ticks(count, np.array(time_ratios))
    exponents = np.log(ticks) / np.log(4)
    assert np.allclose(exponents, np.round(exponents))  # 4^k
    assert np.allclose(np.diff(exponents), 1)  # one step of 4 apart, none missing
    values = np.concatenate([count, time_ratios])
    assert ticks[0] <= values.min() and values.max() <= ticks[-1]
    assert ticks[-1] / 4 < values.max()  # no empty step above the lines
    assert ticks[0] * 4 > values.min()  # nor below them


def test_one_length_alone_or_no_finite_time_still_gives_an_axis():
    assert growth_ticks(np.array([1.0]), np.array([1.0])) == (1.0, 4.0)
    ticks = growth_ticks(np.array([1.0, 4.0]), np.array([1.0, np.nan]))
    assert ticks[0] <= 1.0 and ticks[-1] >= 4.0
