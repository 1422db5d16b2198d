"""Lesson 6 — multi-head attention: several heads in parallel, then one projection."""

import numpy as np
import streamlit as st

from course_app import (
    MAIN_FIGURE,
    fold,
    gloss,
    lesson_end,
    page_start,
    pct,
    section_fold,
    section_start,
    snippets,
    t,
    terms,
    try_this,
)
from lesson_core import causal_mask
from lesson_core.examples import GPT2_SMALL_D_MODEL, GPT2_SMALL_HEADS, PRONOUN, PRONOUN_QUERY
from lesson_core.multihead import (
    HandMadeHeads,
    divisors,
    offset_head,
    parallel_heads,
    random_multi_head,
    random_projections,
)
from lessons.multi_head import parts

LESSON, RUN_D_MODEL, WIDEN_SEED, DEFAULT_SEED = "multi_head", 8, 2017, 0
TOKENS, N, IT = PRONOUN.tokens, len(PRONOUN.tokens), PRONOUN_QUERY
ALLOWED = causal_mask(N)
FISH, BEFORE_IT = PRONOUN.index("魚"), IT - 1
TWO_BACK = IT - 2  # task t2: the look-back head should land on the token two before それ
# the fixed random widening of C's 4 features to d_model = 8 (X = F E)
WIDEN = random_projections(PRONOUN.vectors.shape[1], RUN_D_MODEL, np.random.default_rng(WIDEN_SEED))[0]


def main() -> None:
    page_start(LESSON)

    one_head_section()
    section_start("multi_head.heads", n=N)
    st.caption(t("ui.hand_made"))
    heads_demo()
    section_start("multi_head.shapes", d=GPT2_SMALL_D_MODEL, h=GPT2_SMALL_HEADS, n=N)
    shapes_demo()
    run_demo()
    roles_section()
    lesson_end(LESSON)


def one_head_section() -> None:
    """1. One head gives one weighting: それ looks at 魚, not at the token before it."""
    pronoun = hand_made_heads(1).weights[0]
    section_start(
        "multi_head.one",
        it=gloss(TOKENS[IT]),
        fish=gloss(TOKENS[FISH]),
        fish_weight=pct(pronoun[IT, FISH]),
        before=gloss(TOKENS[BEFORE_IT]),
        before_weight=pct(pronoun[IT, BEFORE_IT]),
    )


def hand_made_heads(offset: int) -> HandMadeHeads:
    """The pronoun head and the head that looks ``offset`` tokens back, on example C."""
    back_q, back_k = offset_head(N, offset)
    return parallel_heads(
        [PRONOUN.queries, back_q], [PRONOUN.vectors, back_k], [PRONOUN.vectors, PRONOUN.vectors], mask=ALLOWED
    )


def heads_code(query: int, offset: int) -> snippets.Snippet:
    """The code behind the two heads' bars: hand_made_heads, written out."""
    literal = snippets.literal
    lines = [
        f"q = {literal(PRONOUN.queries)}",
        f"k = {literal(PRONOUN.vectors)}",
        f"back_q, back_k = offset_head({N}, {offset})",
        f"heads = parallel_heads([q, back_q], [k, back_k], [k, k], mask=causal_mask({N}))",
    ]
    shows = [f"heads.weights[0, {query}]", f"heads.weights[1, {query}]"]
    names = [parts.head_label(name, offset) for name in parts.HEAD_NAMES]
    labels = literal([gloss(tok) for tok in TOKENS])
    series = list(zip(names, shows, strict=True))
    plot = snippets.Plot("bars", labels, series, t("ui.col.key_token"), t("ui.col.weight"))
    uses = [offset_head, parallel_heads, causal_mask]
    return snippets.Snippet(uses=uses, lines=lines, shows=shows, plot=plot)


@st.fragment
def heads_demo() -> None:
    """2. Two hand-made heads side by side: one query, its weights in each head.
    Above the chart, the learner first predicts where the look-back head sends
    それ (at the k chosen below), then reads the answer."""
    predict_area = st.container()  # the prediction first, before the chart that answers it
    bars_area = st.container(key=MAIN_FIGURE)  # the chart, then the two controls that change it right below
    query = parts.query_select(TOKENS, IT)
    offset = parts.offset_select(N)
    heads = hand_made_heads(offset)
    with predict_area:
        parts.look_back_prediction(TOKENS, heads.weights[1, IT], IT, offset)
    tops = parts.heads_section(TOKENS, heads, ALLOWED, query, offset, bars_area)
    snippets.code_fold("multi_head_code", lambda: heads_code(query, offset), LESSON)
    terms("concatenation")
    clear = [top[0] if len(top) == 1 else None for top in tops]  # a tie is no "most"
    checks = {
        "t1": query >= offset and clear[0] is not None and clear[0] == clear[1],
        "t2": query == IT and clear[1] == TWO_BACK,
        "t3": offset >= 2 and 1 <= query < offset,
    }
    try_this(LESSON, checks, it=gloss(TOKENS[IT]), target=gloss(TOKENS[TWO_BACK]))


def shapes_demo() -> None:
    """3. Real sizes: GPT-2 small's shapes for a head count of the learner's choice (folded)."""
    if box := fold(t("multi_head.shapes.expander", h=GPT2_SMALL_HEADS), "multi_head_shapes"):
        with box:
            shapes_body()


@st.fragment
def shapes_body() -> None:
    """The head-count control and GPT-2 small's shapes: a fragment inside its
    fold, so a closed fold costs a first load no fragment."""
    options = divisors(GPT2_SMALL_D_MODEL)
    h = parts.heads_count(
        options,
        GPT2_SMALL_HEADS,
        "mh_heads",
        t("multi_head.shapes.label"),
        t("multi_head.shapes.help", d=GPT2_SMALL_D_MODEL),
    )
    parts.gpt2_section(N, GPT2_SMALL_D_MODEL, h, options)


def run_demo() -> None:
    """4. The whole computation with random projections, head by head. A deep
    dive: the whole section is a fold named after its header."""
    if box := section_fold("multi_head.run", "multi_head_run_section"):
        with box:
            run_body()


@st.fragment
def run_body() -> None:
    small = divisors(PRONOUN.vectors.shape[1])
    st.markdown(
        t(
            "multi_head.run.body",
            d_in=PRONOUN.vectors.shape[1],
            d=RUN_D_MODEL,
            small_options=", ".join(map(str, small)),
        )
    )
    maps_area = st.container()  # the heads' maps first, the controls right below
    seed, run_h = parts.run_controls(divisors(RUN_D_MODEL), RUN_D_MODEL, DEFAULT_SEED, 2)
    run = random_multi_head(PRONOUN.vectors, WIDEN, run_h, np.random.default_rng(seed), ALLOWED)
    with maps_area:
        parts.head_tabs(TOKENS, run, ALLOWED)
    parts.flat_text(TOKENS, run.result.weights[:, IT, :], IT)
    if box := fold(t("multi_head.run.details"), "multi_head_run"):
        with box:
            parts.run_table(run, run_h)
            parts.concat_and_output(TOKENS, run, run_h)


def roles_section() -> None:
    """5. What a head does is learned in training, not assigned (a fold named after its header)."""
    if box := section_fold("multi_head.roles", "multi_head_roles"):
        with box:
            st.markdown(t("multi_head.roles.body"))
