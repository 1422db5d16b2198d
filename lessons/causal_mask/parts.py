"""Views of the causal-mask lesson: the training-pairs table, the example's
vectors, the mask and the scores as heatmaps, the weights with whatever leaked
past the mask, the mask explorer (none / causal / sliding window) and the
sentences that name what a query can and cannot see."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import streamlit as st

from course_app import bound, charts, gloss, num, pct, pct_label, shown_choice, t, tables, views
from lesson_core.attention import causal_mask
from lesson_core.masking import sliding_window_mask, training_pairs

MASK_KINDS = ("none", "causal", "window")  # the explorer's masks; labels causal_mask.pronoun.kind_<id>
DEFAULT_WINDOW = 3

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
        tables.text_table(
            {
                t("causal_mask.why.col_position"): [len(context) for context, _ in pairs],
                t("causal_mask.why.col_context"): [" ".join(map(gloss, c)) for c, _ in pairs],
                t("causal_mask.why.col_answer"): [gloss(answer) for _, answer in pairs],
            }
        ),
        hide_index=True,
    )
    return pairs


def _heatmap(
    tokens, values, texts, blocked, colour, label, alt, diverging=False, legend: bool | str = True
) -> None:
    """Draw an [n, n] map: rows = queries (glossed), columns = keys (bare tokens);
    blocked cells grey (their value is not used), every cell labelled."""
    labels = [gloss(tok) for tok in tokens]
    titles = charts.MapTitles(t("ui.col.key_token"), t("ui.col.query"), colour, label)
    spec = charts.sized_heatmap_spec(titles, len(tokens), diverging=diverging, legend=legend)
    frame = charts.heatmap_frame(labels, list(tokens), values, texts, blocked, diverging=diverging)
    charts.show(frame, spec, alt)


def vectors_table(tokens: Sequence[str], vectors: np.ndarray) -> None:
    """The example's hand-made vectors, one row per token, one column per component."""
    frame = tables.text_table(
        {t("ui.col.token"): [gloss(tok) for tok in tokens]}
        | {
            t("causal_mask.matrix.col_dim", i=i + 1): [num(x) for x in vectors[:, i]]
            for i in range(vectors.shape[1])
        }
    )
    st.dataframe(frame, hide_index=True)


def mask_map(tokens: Sequence[str], allowed: np.ndarray) -> None:
    """The causal mask as 1 (may see) / 0 (hidden, grey), under its title."""
    st.markdown(f"**{t('causal_mask.matrix.mask_title')}**")
    texts = np.where(allowed, "1", "0")
    legend, alt = t("causal_mask.matrix.mask_legend"), t("causal_mask.matrix.mask_alt", n=len(tokens))
    colour = t("causal_mask.matrix.may_see")
    _heatmap(tokens, allowed.astype(float), texts, ~allowed, colour, legend, alt, legend=False)


def scores_map(tokens: Sequence[str], scores: np.ndarray, allowed: np.ndarray | None, which: str) -> None:
    """Scaled scores (q·k / √d_k, plus M when ``allowed`` is given) under the
    title ``causal_mask.matrix.<which>_title``, with a colour scale and a caption
    that says what the numbers are; a hidden score is written −∞ in a grey cell."""
    st.markdown(f"**{t(f'causal_mask.matrix.{which}_title')}**")
    alt = t(f"causal_mask.matrix.{which}_alt")
    blocked = np.zeros(scores.shape, dtype=bool) if allowed is None else ~allowed
    texts = np.vectorize(tables.score_text, otypes=[object])(scores)
    finite = np.where(blocked, 0.0, scores)
    label = t(f"causal_mask.matrix.{which}_legend")
    colour = t("causal_mask.matrix.scores_colour")
    _heatmap(tokens, finite, texts, blocked, colour, label, alt, diverging=True, legend="top")
    st.caption(t(f"causal_mask.matrix.{which}_caption"))


def leak_map(tokens: Sequence[str], weights: np.ndarray, allowed: np.ndarray, fill: str) -> None:
    """The weights after the mask, the hidden cells grey but labelled with the
    weight that reached them anyway."""
    texts = np.vectorize(lambda w: pct_label(w, 0), otypes=[object])(weights)  # never "0%" unless exactly 0
    legend, alt = t("causal_mask.fill.legend"), t("causal_mask.fill.alt", fill=fill)
    _heatmap(tokens, weights, texts, ~allowed, t("ui.col.weight"), legend, alt, legend="top")


def sums_table(tokens: Sequence[str], weights: np.ndarray, leaks: np.ndarray) -> None:
    """Every row's total weight (always 1) and how much of it went to hidden keys."""
    frame = tables.text_table(
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


def mask_controls(tokens: Sequence[str], default_query: int) -> tuple[int, str, int, float]:
    """The explorer's controls, kept in the URL: query token (``cm_query``), which mask
    (``cm_mask``: the index of none, causal or sliding window in ``MASK_KINDS``, shown
    and kept in the URL by its name in the learner's language), the window size (``cm_window``) and
    the temperature (``cm_temp``). Returns (query, mask kind, window, temperature)."""
    query = shown_choice(
        st.selectbox,
        t("ui.explorer.query_label"),
        range(len(tokens)),
        views.distinct_labels(tokens),
        views.glossed_labels(tokens),
        default_query,
        key="cm_query",
    )
    names = [t(f"causal_mask.pronoun.kind_{kind}") for kind in MASK_KINDS]  # read once, here
    choice = bound(
        st.radio,
        t("causal_mask.pronoun.kind_label"),
        range(len(MASK_KINDS)),
        index=MASK_KINDS.index("causal"),
        format_func=names.__getitem__,
        horizontal=True,
        help=t("causal_mask.pronoun.kind_help"),
        key="cm_mask",
    )
    kind = MASK_KINDS[choice]
    window = bound(
        st.slider,
        t("causal_mask.pronoun.window_label"),
        1,
        len(tokens),
        DEFAULT_WINDOW,
        help=t("causal_mask.pronoun.window_help"),
        key="cm_window",
    )
    temperature = views.temperature_slider("cm_temp")
    return query, kind, window, temperature


def allowed_by(kind: str, n: int, window: int) -> np.ndarray | None:
    """The mask of that kind for n tokens (None: no mask)."""
    if kind == "causal":
        return causal_mask(n)
    if kind == "window":
        return sliding_window_mask(n, window)
    return None


def visibility_note(tokens: Sequence[str], query: int, allowed: np.ndarray | None, future: float) -> str:
    """What the query sees and what the mask hides from it; with no mask, how much
    of its weight (``future``, from lesson_core) goes to tokens on its right."""
    values = {"query": gloss(tokens[query])}
    if allowed is None:
        return t("causal_mask.pronoun.unmasked_note", future=pct(future), **values)
    seen = [gloss(tok) for tok, ok in zip(tokens, allowed[query], strict=True) if ok]
    hidden = [gloss(tok) for tok, ok in zip(tokens, allowed[query], strict=True) if not ok]
    values["seen"] = " ".join(seen)
    if not hidden:
        return t("causal_mask.pronoun.last_note", **values)
    return t("causal_mask.pronoun.masked_note", hidden=" ".join(hidden), **values)
