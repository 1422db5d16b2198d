"""Tables a lesson shows, as DataFrames with translated column names.

Numbers are formatted here (a real minus sign, percentages, −∞ for a blocked
score) so that no table ever shows NaN or inf, whatever the inputs.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from lesson_core.ui.i18n import gloss, num, pct, t, vec


def score_text(x: float, digits: int = 2) -> str:
    return num(x, digits) if np.isfinite(x) else ("−∞" if x < 0 else "∞")


def attention_steps(
    tokens: Sequence[str],
    keys: np.ndarray,
    scores: np.ndarray,
    scaled: np.ndarray,
    weights: np.ndarray,
) -> pd.DataFrame:
    """One row per key for one query: k, q·k, the scaled score, the weight."""
    return pd.DataFrame(
        {
            t("ui.col.token"): [gloss(tok) for tok in tokens],
            t("ui.col.key"): [vec(k, 1) for k in keys],
            t("ui.col.score"): [score_text(s) for s in scores],
            t("ui.col.scaled"): [score_text(s) for s in scaled],
            t("ui.col.weight"): [pct(w) for w in weights],
        }
    )


def shapes(rows: Sequence[tuple[str, tuple[int, ...], str]]) -> pd.DataFrame:
    """(expression, shape, meaning) rows; each shape is read off a real array."""
    return pd.DataFrame(
        {
            t("ui.col.expression"): [expr for expr, _, _ in rows],
            t("ui.col.shape"): [" × ".join(map(str, shape)) for _, shape, _ in rows],
            t("ui.col.meaning"): [meaning for _, _, meaning in rows],
        }
    )
