"""Sentences that name the top item(s) of a row of numbers, ties read as ties.

``top_text(key, labels, values)`` picks the catalog sentence ``<key>.one``
when one item leads and ``<key>.tie`` when several share the largest shown
value (``lesson_core.ranking.tops``), and fills it with ``top`` (the name, or
the tied names joined by ``ui.tie_join``), ``top_weight`` (the largest value,
as a percentage unless ``show`` says otherwise), ``n_tied`` and any
``extra`` placeholders. Both sentences of a key take the same placeholders.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from course_app.i18n import md_escape, pct, t
from lesson_core.ranking import PERCENT, tops


def joined(names: Sequence[str]) -> str:
    """Several names as one phrase: 猫・魚 / 猫 and 魚 / A, B and C."""
    names = list(names)
    if len(names) == 1:
        return names[0]
    return t("ui.list_separator").join(names[:-1]) + t("ui.tie_join") + names[-1]


def top_names(
    labels: Sequence[str], values: np.ndarray, scale: float = PERCENT[0], digits: int = PERCENT[1]
) -> tuple[list[str], np.ndarray]:
    """The labels of the top item(s) and their indices."""
    best = tops(values, scale, digits)
    return [labels[i] for i in best], best


def top_text(
    key: str,
    labels: Sequence[str],
    values: np.ndarray,
    *,
    show: Callable[[float], str] = pct,
    scale: float = PERCENT[0],
    digits: int = PERCENT[1],
    escape: bool = True,
    **extra: object,
) -> str:
    """``<key>.one`` or ``<key>.tie``, filled (see the module's docstring).
    Labels are escaped for Markdown unless ``escape`` is False (alt text)."""
    names, best = top_names(labels, values, scale, digits)
    if escape:
        names = [md_escape(name) for name in names]
    variant = "one" if len(best) == 1 else "tie"
    values = np.asarray(values, dtype=float)
    return t(
        f"{key}.{variant}", top=joined(names), top_weight=show(values[best[0]]), n_tied=len(best), **extra
    )
