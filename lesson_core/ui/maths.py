"""LaTeX for small matrices and vectors, from real arrays."""

from __future__ import annotations

import numpy as np


def _n(x: float) -> str:
    return f"{float(x):g}"


def bmatrix(a: np.ndarray) -> str:
    """A 1-D array as a row vector, a 2-D array as a matrix."""
    a = np.atleast_2d(a)
    rows = r" \\ ".join(" & ".join(_n(x) for x in row) for row in a)
    return rf"\begin{{bmatrix}} {rows} \end{{bmatrix}}"


def product(x: np.ndarray, w: np.ndarray, y: np.ndarray) -> str:
    """x W = y, each typeset from its array."""
    return f"{bmatrix(x)} {bmatrix(w)} = {bmatrix(y)}"
