"""Tables a lesson shows, with translated column names.

Numbers are formatted here (a real minus sign, percentages, −∞ for a blocked
score) so that no table ever shows NaN or inf, whatever the inputs. Every cell
is text, and the tables are handed to ``st.dataframe`` as Arrow tables of
strings (``charts.table``, the form Streamlit sends to the browser, built
straight from the text: no pandas DataFrame to build and convert on every
slider move). A
table whose text is the same for every learner of a lesson is also kept
(``text_table``), so it is built once per process (docs/serving.md).
"""

from __future__ import annotations

import functools
from collections.abc import Sequence

import numpy as np
import pyarrow as pa

from course_app.charts import table
from course_app.i18n import gloss, num, pct, t, vec


def text_table(columns: dict[str, list[str]]) -> pa.Table:
    """Columns of text or whole numbers (name -> cells, in order) as an Arrow
    table (``charts.table``), shared: the same text gives the same table, built once
    (Arrow tables cannot be changed)."""
    return _shared_text_table(tuple(columns), tuple(tuple(cells) for cells in columns.values()))


@functools.lru_cache(maxsize=256)  # a few tables per lesson and language: a small, bounded cache
def _shared_text_table(names: tuple[str, ...], cells: tuple[tuple[str, ...], ...]) -> pa.Table:
    return table(dict(zip(names, cells, strict=True)))


def score_text(x: float, digits: int = 2) -> str:
    """A score as shown: fixed decimals, or −∞ / ∞ where it is not finite."""
    return num(x, digits) if np.isfinite(x) else ("−∞" if x < 0 else "∞")


def attention_steps(
    tokens: Sequence[str],
    keys: np.ndarray,
    scores: np.ndarray,
    scaled: np.ndarray,
    weights: np.ndarray,
) -> pa.Table:
    """One row per key for one query: k, q·k, the scaled score, the weight."""
    return text_table(
        {
            t("ui.col.token"): [gloss(tok) for tok in tokens],
            t("ui.col.key"): [vec(k, 1) for k in keys],
            t("ui.col.score"): [score_text(s) for s in scores],
            t("ui.col.scaled"): [score_text(s) for s in scaled],
            t("ui.col.weight"): [pct(w) for w in weights],
        }
    )


def shapes(rows: Sequence[tuple[str, tuple[int, ...], str]]) -> pa.Table:
    """(expression, shape, meaning) rows; each shape is read off a real array."""
    return text_table(
        {
            t("ui.col.expression"): [expr for expr, _, _ in rows],
            t("ui.col.shape"): [" × ".join(map(str, shape)) for _, shape, _ in rows],
            t("ui.col.meaning"): [meaning for _, _, meaning in rows],
        }
    )
