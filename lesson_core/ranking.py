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


def top_k_whole(
    values: np.ndarray, k: int, scale: float = PERCENT[0], digits: int = PERCENT[1]
) -> np.ndarray:
    """The indices of the k largest values above 0, largest first (equal values
    in index order), followed by every further item that prints the same as the
    k-th: a list cut after k never cuts a tie, so it never shows one of two
    tokens that read "9.1%" and hides the other. May return more than k.

    Shapes: values [V] -> [m], m = min(k, count of values > 0) or more on a tie
    """
    values = np.asarray(values, dtype=float)
    order = np.argsort(-values, kind="stable")
    order = order[values[order] > 0]
    if len(order) <= k:
        return order
    printed = shown(values[order], scale, digits)
    return order[: int(np.count_nonzero(printed >= printed[k - 1]))]
