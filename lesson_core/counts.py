"""Checks for arguments that count things (tokens, heads, layers, bytes)."""

from __future__ import annotations

import math


def require_counts(smallest: int, **counts: float) -> None:
    """Raise ValueError unless every value is a whole number of at least ``smallest``
    (0 for "non-negative", 1 for "positive"), naming the first one that is not."""
    kind = "positive" if smallest >= 1 else "non-negative"
    for name, value in counts.items():
        if not math.isfinite(value) or int(value) != value or value < smallest:
            raise ValueError(f"{name} must be a {kind} integer, got {value!r}")
