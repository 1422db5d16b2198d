"""What the multi-head lesson draws: the two hand-made heads side by side, the
GPT-2 shapes walk-through and the full computation with random projections."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import streamlit as st
from streamlit.delta_generator import DeltaGenerator

from course_app import bound, charts, fold, gloss, num, pct, shown_choice, t, t_count, vec, views
from lesson_core.multihead import HandMadeHeads, HeadShapes, MultiHeadRun, head_shapes, leaders

HEAD_NAMES = ("pronoun", "previous")  # catalog ids of the two hand-made heads
MAX_OFFSET = 3  # the look-back head can look 1, 2 or 3 tokens back


def narrow_weights_map(
    tokens: Sequence[str], weights: np.ndarray, allowed: np.ndarray, alt_text: str
) -> None:
    """views.weights_map for half a page's width: bare tokens on both axes (the
    glosses are on the bar chart above), column labels tilted, the legend on
    top: the width goes to the cells, so that every cell's number fits, on a
    phone too."""
    spec = charts.heatmap_spec(  # ten tokens fit in a half-width column (two heads side by side)
        charts.MapTitles(t("ui.col.key_token"), t("ui.col.query"), t("ui.col.weight"), t("ui.masked_legend")),
        28 * len(tokens),
        labels=charts.Labels(angle=-45, align="left", baseline="middle"),
        legend="top",
    )
    charts.show(charts.weights_frame(list(tokens), list(tokens), weights, allowed), spec, alt_text)


def head_bars(
    labels: Sequence[str], series: dict[str, np.ndarray], alt_text: str, blocked: np.ndarray | None = None
) -> None:
    """Both heads' weights for one query, side by side per key token; a key the
    mask hides (``blocked``) is labelled "—", not 0.0%."""
    spec = charts.grouped_bar_spec(  # tilted labels, so that ten glossed tokens all show
        t("ui.col.key_token"), t("ui.col.weight"), t("ui.col.head"), label_angle=-35, label_limit=160
    )
    charts.show(charts.grouped_bar_frame(labels, series, pct, blocked), spec, alt_text)


def head_label(name: str, offset: int = 1) -> str:
    """A hand-made head's name (the look-back head's says how far back it looks)."""
    return t(f"multi_head.heads.{name}", k=offset)


def query_select(tokens: Sequence[str], default: int) -> int:
    """The query token of the hand-made heads (the bare token in the URL, glossed in English)."""
    return shown_choice(
        st.selectbox,
        t("multi_head.heads.query_label"),
        range(len(tokens)),
        views.distinct_labels(tokens),
        views.glossed_labels(tokens),
        default,
        key="mh_query",
    )


def offset_select(n: int) -> int:
    """How many tokens back the look-back head looks (1 = the previous token)."""
    return int(
        bound(
            st.select_slider,
            t("multi_head.heads.offset_label"),
            list(range(1, MAX_OFFSET + 1)),
            1,
            help=t("multi_head.heads.offset_help"),
            key="mh_offset",
        )
    )


def heads_section(
    tokens: Sequence[str],
    heads: HandMadeHeads,
    allowed: np.ndarray,
    query: int,
    offset: int,
    bars_area: DeltaGenerator,
) -> list[list[int]]:
    """Both heads' weights for the query as bars (drawn into ``bars_area``, above
    the controls), a sentence naming each head's top token (or its tie), the two
    full maps side by side (folded, as the attention lesson's full map is) and
    the concatenated outputs. Returns each head's top tokens: one, or several
    that tie."""
    labels = [gloss(tok) for tok in tokens]
    names = [head_label(name, offset) for name in HEAD_NAMES]
    series = {name: heads.weights[k, query] for k, name in enumerate(names)}
    with bars_area:
        head_bars(labels, series, t("multi_head.heads.bars_alt", query=labels[query]), ~allowed[query])
    tops = [leaders(heads.weights[k, query]).tolist() for k in range(len(HEAD_NAMES))]
    looks = [looks_most(labels, heads.weights[k, query], top) for k, top in enumerate(tops)]
    st.markdown(t("multi_head.heads.summary", query=labels[query], head_a=looks[0], head_b=looks[1]))
    if box := fold(t("multi_head.heads.maps_fold"), "multi_head_maps", icon=":material/grid_on:"):
        with box:
            head_maps(tokens, heads, allowed, names)
    concat_note(labels, heads, query)
    return tops


def look_back_prediction(tokens: Sequence[str], row: np.ndarray, query: int, offset: int) -> None:
    """Before the chart: which token will the look-back head (``offset`` back)
    weight most for ``query``? Nothing is told until the learner chooses; then
    whether the guess was right, the head's true top token(s) for this k (a
    tie named as a tie) and why. Not kept in the URL: it is a question, not a
    setting. Each k has its own question (and widget), so a new k asks afresh.

    Shapes: row [n], the look-back head's weights for ``query``"""
    labels = [gloss(tok) for tok in tokens]
    it = labels[query]
    guess = st.radio(
        t("multi_head.predict.question", k=offset, it=it),
        range(query + 1),  # what the query can see under the causal mask
        index=None,
        format_func=labels.__getitem__,
        horizontal=True,
        key=f"mh_predict_k{offset}",  # one prediction per k: a new k is a new question
    )
    if guess is None:
        st.caption(t("multi_head.predict.wait"))
        return
    top = leaders(row).tolist()
    said = "right" if top == [guess] else "wrong"
    looks = looks_most(labels, row, top)
    shown = {"it": it, "looks": looks, "guess": labels[guess], "guess_weight": pct(row[guess])}
    st.markdown(t(f"multi_head.predict.{said}", **shown))
    if len(top) == 1 and query - offset >= 0:
        st.markdown(t_count("multi_head.predict.why", offset, it=it, k=offset, target=labels[query - offset]))


def looks_most(labels: Sequence[str], row: np.ndarray, top: Sequence[int]) -> str:
    """'looks most at X (w)', or for a tie 'puts the same largest weight, w, on X and Y'."""
    if len(top) == 1:
        return t("multi_head.heads.most", token=labels[top[0]], weight=pct(row[top[0]]))
    names = t("multi_head.heads.and").join(labels[i] for i in top)
    return t("multi_head.heads.tie", tokens=names, weight=pct(row[top[0]]))


def flat_text(tokens: Sequence[str], row: np.ndarray, query: int) -> None:
    """The untrained heads' largest weight for the query, with every (head, token)
    that reaches it: keys that are the same vector (が and を) always tie.

    Shapes: row [h, n]"""
    places = [divmod(int(i), row.shape[1]) for i in leaders(row)]
    where = t("multi_head.heads.and").join(
        t("multi_head.run.place", head=h + 1, token=gloss(tokens[k])) for h, k in places
    )
    key = "multi_head.run.flat" if len(places) == 1 else "multi_head.run.flat_tie"
    st.markdown(t(key, it=gloss(tokens[query]), top=pct(row[places[0]]), where=where))


def head_maps(tokens: Sequence[str], heads: HandMadeHeads, allowed: np.ndarray, names: Sequence[str]) -> None:
    """Each head's full weights map, the two side by side."""
    for column, k, name in zip(st.columns(2, gap="medium"), range(2), names, strict=True):
        with column:
            st.subheader(name)
            narrow_weights_map(
                tokens,
                heads.weights[k],
                allowed,
                t("multi_head.heads.map_alt", head=name, n=len(tokens)),
            )


def concat_note(labels: Sequence[str], heads: HandMadeHeads, query: int) -> None:
    """The query's output from each head, and the two concatenated."""
    st.markdown(
        t(
            "multi_head.heads.concat",
            query=labels[query],
            out_a=vec(heads.outputs[0, query]),
            out_b=vec(heads.outputs[1, query]),
            concat=vec(heads.concat[query]),
            d_concat=heads.concat.shape[1],
            d_v=heads.outputs.shape[-1],
        )
    )


def heads_count(options: Sequence[int], default: int, key: str, label: str, help_text: str) -> int:
    """A head count among the divisors of the width only."""
    return int(bound(st.select_slider, label, list(options), default, help=help_text, key=key))


def run_controls(
    options: Sequence[int], d_model: int, default_seed: int, default_heads: int
) -> tuple[int, int]:
    """The seed of the random projections and the number of heads of the run."""
    seed = bound(
        st.slider,
        t("multi_head.run.seed_label"),
        0,
        99,
        default_seed,
        help=t("multi_head.run.seed_help"),
        key="mh_seed",
    )
    heads = heads_count(
        options,
        default_heads,
        "mh_run_heads",
        t("multi_head.run.heads_label"),
        t("multi_head.run.heads_help", d=d_model, options=", ".join(map(str, options))),
    )
    return int(seed), heads


def gpt2_table(shapes: HeadShapes, n_heads: int) -> None:
    """The shapes of every step for GPT-2 small, one row per step."""
    d_head = shapes.d_head
    views.shapes_table(
        [
            ("X", shapes.x, t("multi_head.shapes.x")),
            ("W_Q⁽ʲ⁾", shapes.w_q, t("multi_head.shapes.w_q")),
            ("Q_j = X W_Q⁽ʲ⁾", shapes.q, t("multi_head.shapes.q")),
            ("softmax(Q_j K_jᵀ / √d_head + M)", shapes.scores, t("multi_head.shapes.weights")),
            ("head_j = (…) V_j", shapes.head_output, t("multi_head.shapes.head")),
            ("Concat(head_1, …)", shapes.concat, t("multi_head.shapes.concat", h=n_heads, d_head=d_head)),
            ("W_O", shapes.w_o, t("multi_head.shapes.w_o")),
            ("Concat(…) W_O", shapes.output, t("multi_head.shapes.out")),
        ]
    )


def gpt2_section(n: int, d_model: int, n_heads: int, options: Sequence[int]) -> int | None:
    """The shapes table for n tokens, width d_model and h heads, and what it
    means; a clear message when h does not divide d_model. Returns d_head."""
    try:
        shapes = head_shapes(n, d_model, n_heads)
    except ValueError:
        st.error(t("multi_head.shapes.error", d=d_model))
        return None
    gpt2_table(shapes, n_heads)
    st.markdown(
        t_count(
            "multi_head.shapes.result",
            n_heads,
            d=d_model,
            h=n_heads,
            d_head=shapes.d_head,
            params=f"{shapes.parameters:,}",
            divisors=", ".join(map(str, options)),
        )
    )
    return shapes.d_head


def run_table(run: MultiHeadRun, n_heads: int) -> None:
    """The shapes of every step of the run, each read off a real array."""
    res = run.result
    d_head = res.head_outputs.shape[-1]
    views.shapes_table(
        [
            ("X = F E", run.x.shape, t("multi_head.shapes.x")),
            ("W_Q, W_K, W_V, W_O", run.w_q.shape, t("multi_head.run.w_all")),
            ("weights", res.weights.shape, t("multi_head.run.weights", h=n_heads, n=res.weights.shape[-1])),
            ("head_1 … head_h", res.head_outputs.shape, t("multi_head.run.heads", h=n_heads)),
            ("Concat(head_1, …)", res.concat.shape, t("multi_head.shapes.concat", h=n_heads, d_head=d_head)),
            ("Concat(…) W_O", res.output.shape, t("multi_head.shapes.out")),
        ]
    )


def head_tabs(tokens: Sequence[str], run: MultiHeadRun, allowed: np.ndarray) -> None:
    """One tab per head with its weight map."""
    weights = run.result.weights
    for k, tab in enumerate(st.tabs([t("multi_head.run.head_tab", k=k + 1) for k in range(len(weights))])):
        with tab:
            views.weights_map(
                tokens, weights[k], allowed, t("multi_head.run.map_alt", k=k + 1, n=len(tokens))
            )


def matrix_heatmap(
    tokens: Sequence[str], values: np.ndarray, cols: Sequence[str], x_key: str, alt: str
) -> None:
    """A small signed matrix (rows = tokens, glossed in English) with its value in every cell."""
    titles = charts.MapTitles(t(x_key), t("ui.col.token"), t("multi_head.run.value"))
    labels = charts.Labels(tilt_below=44)  # tilted where the columns are narrow (a phone)
    spec = charts.heatmap_spec(titles, 28 * len(tokens), diverging=True, labels=labels)
    texts = np.vectorize(lambda x: num(x, 2))(values)
    frame = charts.heatmap_frame([gloss(tok) for tok in tokens], cols, values, texts, diverging=True)
    charts.show(frame, spec, alt)


def concat_and_output(tokens: Sequence[str], run: MultiHeadRun, n_heads: int) -> None:
    """The concatenation (columns labelled head:dimension) and the output after W_O."""
    concat, output = run.result.concat, run.result.output
    d_head = concat.shape[1] // n_heads
    left, right = st.columns(2, gap="medium")
    with left:
        st.subheader(t("multi_head.run.concat_header"))
        cols = [f"{j // d_head + 1}:{j % d_head}" for j in range(concat.shape[1])]
        matrix_heatmap(tokens, concat, cols, "multi_head.run.concat_axis", t("multi_head.run.concat_alt"))
    with right:
        st.subheader(t("multi_head.run.output_header"))
        cols = [str(j) for j in range(output.shape[1])]
        matrix_heatmap(tokens, output, cols, "multi_head.run.output_axis", t("multi_head.run.output_alt"))
