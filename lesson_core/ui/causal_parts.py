"""Views of the causal-mask lesson: the training-pairs table, the mask and the
scores as heatmaps, the weights with whatever leaked past the mask, and the
sentences that name what a query can and cannot see."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd
import streamlit as st

from lesson_core.masking import training_pairs
from lesson_core.ui import charts, tables
from lesson_core.ui.i18n import gloss, num, pct, t
from lesson_core.ui.url_state import bound

FILL_TEXT = {-np.inf: "−∞", -1e9: "−1e9"}  # the rest print as plain integers


def fill_text(fill: float) -> str:
    """The value added to hidden scores, as shown and as kept in the URL."""
    return FILL_TEXT.get(fill, num(fill, 0))


def fill_choice(fills: Sequence[float], key: str) -> float:
    """The value added to the hidden scores, one of ``fills``, kept in the URL
    under ``key`` as its printed form (−∞, −1e9, −10, −1, 0)."""
    return bound(
        st.radio,
        t("causal_mask.fill.label"),
        fills,
        horizontal=True,
        format_func=fill_text,
        help=t("causal_mask.fill.help"),
        key=key,
    )


def leak_text(x: float) -> str:
    """A leaked share of weight, readable however small: 82.0%, 0.017%, and
    "0" only when it is exactly 0."""
    return "0" if x == 0 else pct(x, 1) if x >= 1e-3 else pct(x, 3)


def pairs_table(tokens: Sequence[str]) -> list[tuple[tuple[str, ...], str]]:
    """The sentence's next-token questions, one row each. Returns the pairs."""
    pairs = training_pairs(tokens)
    st.dataframe(
        pd.DataFrame(
            {
                t("causal_mask.why.col_position"): [len(context) for context, _ in pairs],
                t("causal_mask.why.col_context"): [" ".join(map(gloss, c)) for c, _ in pairs],
                t("causal_mask.why.col_answer"): [gloss(answer) for _, answer in pairs],
            }
        ),
        hide_index=True,
    )
    return pairs


def _spec(
    x_title: str, y_title: str, colour: str, masked_label: str, n: int, diverging: bool, key: bool
) -> dict:
    """charts.heatmap_spec sized for ``n`` rows; without ``key`` (the colour
    legend), so that a small map keeps room for its cells in a half-width column."""
    return charts.heatmap_spec(
        x_title, y_title, colour, masked_label, height=44 * n + 110, diverging=diverging, legend=key
    )


def _heatmap(tokens, values, texts, blocked, dark, colour, legend, alt, diverging=False, key=True) -> None:
    """Draw an [n, n] map: rows = queries (glossed), columns = keys (bare tokens);
    blocked cells grey (their value is not used), every cell labelled."""
    labels = [gloss(tok) for tok in tokens]
    spec = _spec(t("ui.col.key_token"), t("ui.col.query"), colour, legend, len(tokens), diverging, key)
    values = np.where(blocked, 0.0, values)
    charts.show(charts.heatmap_frame(labels, list(tokens), values, texts, blocked, dark), spec, alt)


def mask_map(tokens: Sequence[str], allowed: np.ndarray) -> None:
    """The causal mask as 1 (may see) / 0 (hidden, grey), under its title."""
    st.markdown(f"**{t('causal_mask.matrix.mask_title')}**")
    texts = np.where(allowed, "1", "0")
    legend, alt = t("causal_mask.matrix.mask_legend"), t("causal_mask.matrix.mask_alt", n=len(tokens))
    colour = t("causal_mask.matrix.may_see")
    _heatmap(tokens, allowed.astype(float), texts, ~allowed, allowed, colour, legend, alt, key=False)


def scores_map(tokens: Sequence[str], scores: np.ndarray, allowed: np.ndarray | None, which: str) -> None:
    """Scaled scores (q·k / √d_k, plus M when ``allowed`` is given) under the
    title ``causal_mask.matrix.<which>_title``; a hidden score is written −∞
    in a grey cell."""
    st.markdown(f"**{t(f'causal_mask.matrix.{which}_title')}**")
    alt = t(f"causal_mask.matrix.{which}_alt")
    blocked = np.zeros(scores.shape, dtype=bool) if allowed is None else ~allowed
    texts = np.vectorize(tables.score_text, otypes=[object])(scores)
    finite = np.where(blocked, 0.0, scores)
    dark = np.abs(finite) > 0.55 * np.max(np.abs(finite), initial=1e-12)
    legend = t("ui.masked_legend") if allowed is not None else t("ui.no_mask_legend")
    _heatmap(tokens, finite, texts, blocked, dark, t("ui.col.scaled"), legend, alt, diverging=True, key=False)


def leak_map(tokens: Sequence[str], weights: np.ndarray, allowed: np.ndarray, fill: str) -> None:
    """The weights after the mask, the hidden cells grey but labelled with the
    weight that reached them anyway."""
    texts = np.vectorize(lambda w: f"{100 * w:.0f}%", otypes=[object])(weights)
    texts = np.where((weights > 0) & (weights < 0.005), "<1%", texts)  # never "0%" unless exactly 0
    legend, alt = t("causal_mask.fill.legend"), t("causal_mask.fill.alt", fill=fill)
    _heatmap(tokens, weights, texts, ~allowed, weights > 0.5, t("ui.col.weight"), legend, alt)


def sums_table(tokens: Sequence[str], weights: np.ndarray, leaks: np.ndarray) -> None:
    """Every row's total weight (always 1) and how much of it went to hidden keys."""
    frame = pd.DataFrame(
        {
            t("ui.col.query"): [gloss(tok) for tok in tokens],
            t("causal_mask.fill.col_sum"): [num(s, 3) for s in np.sum(weights, axis=-1)],
            t("causal_mask.fill.col_leak"): [leak_text(x) for x in leaks],
        }
    )
    st.dataframe(frame, hide_index=True)


def leak_note(tokens: Sequence[str], leaks: np.ndarray, fill: float) -> str:
    """One sentence on the leak: none, some, or (fill 0) as if there were no mask."""
    worst = int(np.argmax(leaks))
    values = {"fill": fill_text(fill), "row": gloss(tokens[worst]), "leak": leak_text(leaks[worst])}
    case = "none" if leaks[worst] == 0 else ("zero_fill" if fill == 0 else "some")
    return t(f"causal_mask.fill.leak_{case}", **values)


def visibility_note(tokens: Sequence[str], query: int, masked: bool, future: float) -> str:
    """What the query sees and what the mask hides from it; with the mask off,
    how much of its weight (``future``, from lesson_core) goes to tokens on its right."""
    right = tokens[query + 1 :]
    values = {"query": gloss(tokens[query]), "seen": " ".join(map(gloss, tokens[: query + 1]))}
    if not masked:
        return t("causal_mask.pronoun.unmasked_note", future=pct(future), **values)
    if not right:
        return t("causal_mask.pronoun.last_note", **values)
    return t("causal_mask.pronoun.masked_note", hidden=" ".join(map(gloss, right)), **values)
