"""Building blocks a lesson draws with one call: the pieces of attention that
several lessons (and the playground) show the same way."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np
import pandas as pd
import streamlit as st
from streamlit.delta_generator import DeltaGenerator

from course_app import charts, ranking, session, tables, url_state
from course_app.folds import fold
from course_app.i18n import gloss, md_escape, num, pct, pct_label, t, vec
from course_app.snippets import Plot, Snippet, code_fold, literal
from lesson_core.attention import AttentionResult, causal_mask, scaled_dot_product_attention
from lesson_core.rounding import fixed_array

# The key of the container that holds a lesson's central figure, the chart its
# controls change (the attention explorer's is "sticky_figure"): the browser
# test that keeps each figure on screen with its controls finds it by this key.
MAIN_FIGURE = "main_figure"
# The vector editor's column widths, in pixels: a token and four numbers fit a phone.
EDITOR_TOKEN_PX, EDITOR_NUMBER_PX = 100, 62
FEW_COLUMNS = 8  # a weights map with at most this many columns slants its glossed labels on a phone too


def kept(widget, in_url: bool, *args, **kwargs):
    """Create ``widget`` kept in the URL (checked by url_state.bound: a reload or
    a shared link restores it) or, with ``in_url`` False, for the session."""
    if in_url:
        return url_state.bound(widget, *args, **kwargs)
    return widget(*args, persist_state="session", **kwargs)


def query_controls(
    tokens: Sequence[str], default: int, prefix: str, masked: bool = True, in_url: bool = True
) -> tuple[int, bool, float]:
    """The attention explorer's controls: query token, causal-mask switch and
    scale strength, keyed ``<prefix>_query``, ``<prefix>_mask`` and
    ``<prefix>_temp`` and kept in the URL (``in_url``) or for the session.
    Returns (query index, masked, temperature)."""
    query = url_state.shown_choice(
        st.selectbox,
        t("ui.explorer.query_label"),
        range(len(tokens)),
        distinct_labels(tokens),
        glossed_labels(tokens),
        default,
        key=session.explorer_query(prefix),
        in_url=in_url,
    )
    mask = kept(
        st.toggle,
        in_url,
        t("ui.explorer.mask_label"),
        value=masked,
        help=t("ui.explorer.mask_help"),
        key=f"{prefix}_mask",
    )
    temperature = temperature_slider(f"{prefix}_temp", in_url)
    return query, mask, temperature


def temperature_slider(key: str, in_url: bool = True) -> float:
    """The scale-strength knob (an extra divisor of the scores), 0.1 to 5."""
    return kept(
        st.slider,
        in_url,
        t("ui.explorer.temp_label"),
        0.1,
        5.0,
        1.0,
        0.1,
        help=t("ui.explorer.temp_help"),
        key=key,
    )


def distinct_labels(tokens: Sequence[str]) -> list[str]:
    """The tokens as labels; when a token occurs twice, every label gets its
    position ("1 は", "4 は") so that rows and bars never merge."""
    tokens = list(tokens)
    if len(set(tokens)) == len(tokens):
        return tokens
    return [f"{i + 1} {tok}" for i, tok in enumerate(tokens)]


def glossed_labels(tokens: Sequence[str]) -> list[str]:
    """``distinct_labels`` with each token's gloss in English ("1 は (topic
    marker)"), so that a repeated token keeps its position and its meaning."""
    tokens = list(tokens)
    if len(set(tokens)) == len(tokens):
        return [gloss(tok) for tok in tokens]
    return [f"{i + 1} {gloss(tok)}" for i, tok in enumerate(tokens)]


def query_sliders(
    axes: Sequence[str], defaults: np.ndarray, chosen: int, prefix: str, bound: float = 3.0
) -> np.ndarray:
    """One slider per feature axis for the query of token ``chosen`` (keys
    ``<prefix><i>_<axis>``), starting from that token's own query. Every
    token's edited query is kept for the session and, when it differs from its
    default, in the URL as ``<prefix><i>=a,b,c,d``, so switching the query
    token back and forth or reopening a shared link keeps every edit.
    Returns all queries with the edits.

    Shapes: defaults [n, d] -> [n, d]"""
    defaults = np.asarray(defaults, dtype=float)
    store_key = session.edits(prefix)
    if not session.has(store_key):  # a new session: read the edits from the URL
        session.put(store_key, _edits_from_url(defaults, prefix, bound))
    edits: dict[int, np.ndarray] = session.get(store_key)
    start = edits.get(chosen, defaults[chosen])
    values = np.array(
        [
            st.slider(t(f"axis.{axis}"), -bound, bound, float(v), 0.1, key=f"{prefix}{chosen}_{axis}")
            for axis, v in zip(axes, start, strict=True)
        ]
    )
    edits[chosen] = values
    queries = defaults.copy()
    for i, q in edits.items():
        queries[i] = q
        _keep_in_url(f"{prefix}{i}", q, defaults[i])
    return queries


def _edits_from_url(defaults: np.ndarray, prefix: str, bound: float) -> dict[int, np.ndarray]:
    """The edited queries a link carries (``<prefix><i>=a,b,c,d``), by token index.

    Shapes: defaults [n, d] -> {i: [d]}"""
    found = {i: url_state.read_vector(f"{prefix}{i}", defaults.shape[1], bound) for i in range(len(defaults))}
    return {i: q for i, q in found.items() if q is not None}


def _keep_in_url(param: str, query: np.ndarray, default: np.ndarray) -> None:
    """One token's query in the URL under ``param`` while it differs from its default."""
    url_state.keep(param, None if np.allclose(query, default) else url_state.vector_text(query))


@dataclass(frozen=True)
class Explored:
    """One attention result as the explorer shows it.

    tokens   the sentence
    keys     the key vectors the scores came from (for the step-by-step table)
    result   scores, weights and outputs of every query
    query    the chosen query's index
    allowed  what each query may see (None: everything)
    """

    tokens: Sequence[str]
    keys: np.ndarray
    result: AttentionResult
    query: int
    allowed: np.ndarray | None


def explorer(view: Explored, prefix: str, side: DeltaGenerator, fold_map: bool = False) -> int:
    """Everything the explorer shows for one attention result: the query's
    weights as bars and its output vector (in ``side``, next to the controls),
    the step-by-step table, and the full map whose rows can be clicked to
    choose the query into ``<prefix>_query``. Returns the index of the query's top token."""
    with side, st.container(key="sticky_figure"):  # beside its controls on a wide screen (page.py's CSS)
        best = explorer_bars(view)
    explorer_details(view, prefix, fold_map)
    return best


def explorer_bars(view: Explored) -> int:
    """The query's weights as bars (hidden keys grey) and its output vector.
    Returns the index of the query's top token."""
    labels, query, allowed = glossed_labels(view.tokens), view.query, view.allowed
    st.subheader(t("ui.explorer.weights_header", query=md_escape(labels[query])))
    best = weights_bars(
        labels,
        view.result.weights[query],
        labels[query],
        "ui.explorer.bars_alt",
        None if allowed is None else allowed[query],
        after=t("ui.explorer.output", output=vec(view.result.output[query])),
    )
    return best


def explorer_details(view: Explored, prefix: str, fold_map: bool = False) -> None:
    """The step-by-step table of the query's row, folded (``fold_<prefix>_steps``),
    and the full map, whose cells pick the query into ``<prefix>_query``; the
    chosen query's row is outlined. With ``fold_map`` the map is folded too
    (``fold_<prefix>_map``)."""
    labels, n = glossed_labels(view.tokens), len(view.tokens)
    if box := fold(t("ui.explorer.table_header", query=md_escape(labels[view.query])), f"{prefix}_steps"):
        with box:
            steps_table(labels, view.keys, view.result, row=view.query)
    if not fold_map:
        st.subheader(t("ui.explorer.map_header", n=n))
        explorer_map(view, prefix)
    elif box := fold(t("ui.explorer.map_header", n=n), f"{prefix}_map", icon=":material/grid_on:"):
        with box:
            explorer_map(view, prefix)


def explorer_map(view: Explored, prefix: str) -> None:
    """The full map of the explorer's weights, its help above it."""
    n = len(view.tokens)
    st.caption(t("ui.explorer.map_help"))
    weights_map(
        view.tokens,
        view.result.weights,
        view.allowed,
        t("ui.explorer.map_alt", n=n),
        pick_into=session.explorer_query(prefix),
        chosen=view.query,
    )


def weights_bars(
    labels: Sequence[str],
    weights: np.ndarray,
    query: str,
    alt_key: str,
    allowed: np.ndarray | None = None,
    after: str = "",
) -> int:
    """One query's weights as bars, the top one(s) in orange and the positions
    the mask hides (``allowed`` False) in grey, and a sentence naming the top
    token, or saying the tied ones tie (``<alt_key>.one``/``.tie`` and
    ``ui.weights_summary.one``/``.tie``), followed by the paragraph ``after``
    in the same element. Returns the index of the (first) top token."""
    _, top = ranking.top_names(labels, weights)
    masked = None if allowed is None else ~np.asarray(allowed, dtype=bool)
    spec = charts.bar_spec(t("ui.col.key_token"), t("ui.col.weight"), slanted=long_labels(labels))
    texts = (
        [pct_label(w) for w in weights]
        if masked is None
        else ["—" if m else pct_label(w) for w, m in zip(weights, masked, strict=True)]
    )
    frame = charts.bar_frame(labels, weights, texts, highlight=top, masked=masked)
    charts.show(frame, spec, ranking.top_text(alt_key, labels, weights, escape=False, query=query))
    summary = ranking.top_text(
        "ui.weights_summary", labels, weights, query=md_escape(query), total=num(np.sum(weights), 3)
    )
    st.markdown(f"{summary}\n\n{after}" if after else summary)
    return int(top[0])


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
    chosen: int | None = None,
    save: Literal["above", "below"] = "above",
) -> None:
    """The full weight matrix, rows = queries, columns = keys (both glossed in
    English; the column labels are then tilted so that they fit), the value in
    every cell and the cells the mask blocks in grey. With ``pick_into`` (a
    widget key), a click on a cell selects its row there; the row ``chosen``
    (the current query) is outlined. ``save``: where its PNG download goes
    (``charts.show``)."""
    labels = glossed_labels(tokens)
    legend = t("ui.masked_legend") if allowed is not None else t("ui.no_mask_legend")
    height = max(160, 32 * len(labels))  # the cells' (labels and legend come on top)
    slanted = long_labels(labels)
    spec = charts.heatmap_spec(
        charts.MapTitles(t("ui.col.key_token"), t("ui.col.query"), t("ui.col.weight"), legend),
        height,
        selectable=pick_into is not None,
        labels=charts.Labels(
            # glossed: slanted, and upright on a phone when there are too many columns
            # to slant (ten); a phone's unglossed (Japanese) labels stand upright too
            angle=(-40 if len(labels) <= FEW_COLUMNS else "width < 480 ? -90 : -40")
            if slanted
            else "width < 480 ? -90 : 0",
            align="left" if slanted else None,
            row_limit="width < 300 ? 60 : 120" if slanted else None,  # a phone: shorter glosses
        ),
        cells=charts.Cells(outline_chosen=chosen is not None),
        legend="top" if slanted else True,  # long (glossed) labels: the width goes to the cells
        pad_right=70 if slanted else None,
    )
    frame = charts.weights_frame(labels, labels, weights, allowed, chosen_row=chosen)
    if pick_into is None:
        charts.show(frame, spec, alt_text, save=save)
        return
    key = f"{pick_into}_map"
    charts.show(
        frame,
        spec,
        alt_text,
        save=save,
        key=key,
        on_select=charts.row_picker(key, pick_into),
        selection_mode="pick",
    )


def weights_table(tokens: Sequence[str], weights: np.ndarray, allowed: np.ndarray | None) -> None:
    """The full weight matrix as a table in %, to one decimal: rows = queries,
    columns = keys (glossed in English), "—" where the mask blocks."""
    labels = glossed_labels(tokens)
    blocked = np.zeros_like(weights, dtype=bool) if allowed is None else ~np.asarray(allowed, dtype=bool)
    cells = np.where(blocked, "—", fixed_array(weights, 1, scale=100))
    columns = {t("ui.col.query"): labels} | {label: cells[:, j].tolist() for j, label in enumerate(labels)}
    st.dataframe(charts.table(columns), hide_index=True)


def compare_bars(labels: Sequence[str], series: dict[str, np.ndarray], alt_text: str) -> None:
    """Several weightings of the same tokens side by side."""
    spec = charts.grouped_bar_spec(t("ui.col.key_token"), t("ui.col.weight"), t("ui.col.weighting"))
    charts.show(charts.grouped_bar_frame(labels, series, pct), spec, alt_text)


def shapes_table(rows: Sequence[tuple[str, tuple[int, ...], str]]) -> None:
    st.dataframe(tables.shapes(rows), hide_index=True)


def vector_editor(
    tokens: Sequence[str], axes: Sequence[str], start: np.ndarray, key: str, bound: float
) -> np.ndarray:
    """A table with one row per token and one number column per feature axis,
    the tokens shown as plain text. Returns the values as floats, NaN where a
    cell was emptied.

    Shapes: start [n, d] -> [n, d]"""
    names = [t(f"axis.{axis}") for axis in axes]
    frame = pd.DataFrame(np.asarray(start, dtype=float), columns=names)
    frame.insert(0, t("ui.col.token"), distinct_labels(tokens))
    config = {  # narrow columns: a phone (358 px) shows the token and all four numbers
        name: st.column_config.NumberColumn(
            min_value=-bound, max_value=bound, step=0.1, width=EDITOR_NUMBER_PX
        )
        for name in names
    }
    config[t("ui.col.token")] = st.column_config.TextColumn(disabled=True, width=EDITOR_TOKEN_PX)
    edited = st.data_editor(frame, key=key, hide_index=True, column_config=config, num_rows="fixed")
    return edited[names].to_numpy(dtype=float, na_value=np.nan)


def attention_code(
    name: str,
    lesson_id: str | None,
    tokens: Sequence[str],
    queries: np.ndarray,
    keys: np.ndarray,
    values: np.ndarray,
    allowed: np.ndarray | None,
    temperature: float,
    query: int,
) -> None:
    """The fold ``name`` with the code behind an explorer's bars: the one call
    of scaled_dot_product_attention that computed them, on these vectors, this
    mask and temperature, printing the row of ``query``; with ``lesson_id``,
    the lesson's notebook beside it."""

    def snippet() -> Snippet:
        uses: list = [scaled_dot_product_attention]
        lines = [f"q = {literal(queries)}", f"k = {literal(keys)}"]
        lines.append("v = k" if np.array_equal(values, keys) else f"v = {literal(values)}")
        if allowed is None:
            mask = "None"
        elif np.array_equal(allowed, causal_mask(len(allowed))):
            uses.append(causal_mask)
            mask = f"causal_mask({len(allowed)})"
        else:
            lines.append(f"allowed = {literal(allowed)}")
            mask = "allowed"
        call = f"q, k, v, mask={mask}, temperature={literal(temperature)}"
        lines.append(f"result = scaled_dot_product_attention({call})")
        row = f"result.weights[{query}]"
        labels = literal(glossed_labels(tokens))
        plot = Plot("bars", labels, [(t("ui.col.weight"), row)], t("ui.col.key_token"), t("ui.col.weight"))
        return Snippet(uses=uses, lines=lines, shows=[row], plot=plot)

    code_fold(name, snippet, lesson_id)
