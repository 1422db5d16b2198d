"""Which item is the largest, read the way a learner reads the screen.

A sentence that names "the most" must read a tie as a tie. Two values are
tied when they print the same at the precision the page shows them (a weight
shown as a percentage with one decimal: ``scale=100, digits=1``), so a
sentence never names one winner between two numbers that look equal.

Shapes: values (m,) -> indices (k,), k >= 1.
"""

from __future__ import annotations

import numpy as np

from lesson_core.rounding import half_up_array

PERCENT = (100.0, 1)  # (scale, digits) of a weight shown as "12.3%"


def shown(values: np.ndarray, scale: float = PERCENT[0], digits: int = PERCENT[1]) -> np.ndarray:
    """The values as they print: scaled, then rounded half up to ``digits``
    decimals (``lesson_core.rounding``, as every shown number)."""
    return half_up_array(values, digits, scale)


def tops(values: np.ndarray, scale: float = PERCENT[0], digits: int = PERCENT[1]) -> np.ndarray:
    """The indices (in order) of every item whose shown value equals the
    largest shown value: one index when one item leads, several on a tie."""
    printed = shown(values, scale, digits)
    return np.flatnonzero(printed == printed.max())


def ranks(values: np.ndarray, scale: float = PERCENT[0], digits: int = PERCENT[1]) -> list[np.ndarray]:
    """The items grouped by shown value, largest first; each group holds the
    indices (in order) that print the same, so a group of two is a tie."""
    printed = shown(values, scale, digits)
    return [np.flatnonzero(printed == level) for level in np.unique(printed)[::-1]]


def is_tie(values: np.ndarray, scale: float = PERCENT[0], digits: int = PERCENT[1]) -> bool:
    """True when more than one item shares the largest shown value."""
    return len(tops(values, scale, digits)) > 1
