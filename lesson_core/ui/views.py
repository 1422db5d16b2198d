"""Building blocks a lesson draws with one call: the pieces of attention that
several lessons (and the playground) show the same way."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import streamlit as st

from lesson_core.attention import AttentionResult
from lesson_core.ui import charts, tables
from lesson_core.ui.i18n import gloss, num, pct, t


def weights_bars(labels: Sequence[str], weights: np.ndarray, query: str, alt_key: str) -> int:
    """One query's weights as bars (the top one highlighted) and a sentence
    naming the top token. Returns the index of the top token."""
    best = int(np.argmax(weights))
    spec = charts.bar_spec(t("ui.col.key_token"), t("ui.col.weight"), slanted=long_labels(labels))
    frame = charts.bar_frame(labels, weights, [pct(w) for w in weights], highlight=best)
    charts.show(frame, spec, t(alt_key, query=query, top=labels[best]))
    st.markdown(
        t(
            "ui.weights_summary",
            query=query,
            top=labels[best],
            top_weight=pct(weights[best]),
            total=num(np.sum(weights), 3),
        )
    )
    return best


def steps_table(tokens: Sequence[str], keys: np.ndarray, result: AttentionResult, row: int) -> None:
    """k, q·k, the scaled score and the weight of every key, for one query row."""
    frame = tables.attention_steps(
        tokens, keys, result.scores[row], result.scaled_scores[row], result.weights[row]
    )
    st.dataframe(frame, hide_index=True)


def long_labels(labels: Sequence[str]) -> bool:
    """True when labels (e.g. glossed tokens) are too wide to sit side by side."""
    return max(map(len, labels), default=0) > 4


def weights_map(
    tokens: Sequence[str],
    weights: np.ndarray,
    allowed: np.ndarray | None,
    alt_text: str,
    pick_into: str | None = None,
) -> None:
    """The full weight matrix, rows = queries (glossed in English), columns =
    keys (the bare tokens, so that they fit), the value in every cell and the
    cells the mask blocks in grey. With ``pick_into`` (a widget key), a click
    on a cell selects its row there."""
    labels = [gloss(tok) for tok in tokens]
    legend = t("ui.masked_legend") if allowed is not None else t("ui.no_mask_legend")
    height = max(220, 34 * len(labels) + 60)
    spec = charts.heatmap_spec(
        t("ui.col.key_token"),
        t("ui.col.query"),
        t("ui.col.weight"),
        legend,
        height=height,
        selectable=pick_into is not None,
    )
    frame = charts.weights_frame(labels, list(tokens), weights, allowed)
    if pick_into is None:
        charts.show(frame, spec, alt_text)
        return
    key = f"{pick_into}_map"
    charts.show(
        frame, spec, alt_text, key=key, on_select=charts.row_picker(key, pick_into), selection_mode="pick"
    )


def compare_bars(labels: Sequence[str], series: dict[str, np.ndarray], alt_text: str) -> None:
    """Several weightings of the same tokens side by side."""
    spec = charts.grouped_bar_spec(t("ui.col.key_token"), t("ui.col.weight"), t("ui.col.series"))
    charts.show(charts.grouped_bar_frame(labels, series, pct), spec, alt_text)


def shapes_table(rows: Sequence[tuple[str, tuple[int, ...], str]]) -> None:
    st.dataframe(tables.shapes(rows), hide_index=True)
