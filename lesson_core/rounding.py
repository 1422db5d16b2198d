"""Rounding the way the course teaches it: half up (四捨五入).

Python's ``format`` and ``np.round`` round the binary value, and on an exact
half they round to even: 0.125 prints as "0.12" and 2.5 rounds to 2, while a
learner who rounds by hand writes 0.13 and 3. Every number the course shows
goes through ``half_up`` instead: the decimal the float stands for (its
shortest ``repr``, so 0.125 is 0.125 and not 0.12499999...) is rounded with
ties away from zero (−0.125 -> −0.13, the mirror of 0.125 -> 0.13), and a
result of zero never keeps a minus sign (−0.001 -> 0.00, not −0.00).

Shapes: scalars, or values (...) -> (...) for ``half_up_array``.
"""

from __future__ import annotations

import math
from decimal import ROUND_HALF_UP, Context, Decimal

import numpy as np

# Wide enough for any finite float at any sensible number of decimals (the
# default context's 28 digits would refuse 1e30 to two decimals).
_EXACT = Context(prec=800, rounding=ROUND_HALF_UP)


def half_up_decimal(x: float, digits: int = 0, scale: float = 1) -> Decimal:
    """``x · scale`` rounded half up (away from zero) to ``digits`` decimals,
    as an exact Decimal; never a negative zero. ``x`` must be finite."""
    value = Decimal(repr(float(x)))
    if scale != 1:
        value = _EXACT.multiply(value, Decimal(repr(scale)))
    rounded = value.quantize(Decimal(1).scaleb(-digits), rounding=ROUND_HALF_UP, context=_EXACT)
    return abs(rounded) if rounded == 0 else rounded


def half_up(x: float, digits: int = 0, scale: float = 1) -> float:
    """``x · scale`` rounded half up to ``digits`` decimals: half_up(0.125, 2)
    = 0.13, half_up(-0.125, 2) = -0.13, half_up(2.5) = 3.0, half_up(0.005, 2)
    = 0.01. Not-a-number and infinities come back unchanged."""
    if not math.isfinite(float(x)):
        return float(x) * scale
    return float(half_up_decimal(x, digits, scale))


def half_up_array(values: np.ndarray, digits: int = 0, scale: float = 1) -> np.ndarray:
    """``half_up`` on every element (same shape, floats)."""
    values = np.asarray(values, dtype=float)
    return np.vectorize(lambda v: half_up(v, digits, scale), otypes=[float])(values).reshape(values.shape)


def fixed(x: float, digits: int = 2, scale: float = 1, grouped: bool = False) -> str:
    """``x · scale`` written with exactly ``digits`` decimals, rounded half up,
    with an ASCII minus ("-0.13"; "0.00", never "-0.00"); ``grouped`` puts
    commas between thousands (1,024.0)."""
    if not math.isfinite(float(x)):
        return f"{float(x) * scale:.{digits}f}"
    return format(half_up_decimal(x, digits, scale), ",f" if grouped else "f")


def fixed_array(values: np.ndarray, digits: int = 2, scale: float = 1) -> np.ndarray:
    """``fixed`` on every element: an array of strings of the same shape."""
    values = np.asarray(values, dtype=float)
    out = np.empty(values.shape, dtype=object)
    for index, v in np.ndenumerate(values):
        out[index] = fixed(v, digits, scale)
    return out.astype(str)
