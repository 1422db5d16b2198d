"""Lesson 6 — multi-head attention: several heads in parallel, then one projection (LESSONS.md §6)."""

import numpy as np
import streamlit as st

from lesson_core import causal_mask
from lesson_core.examples import (
    GPT2_SMALL_D_MODEL,
    GPT2_SMALL_HEADS,
    PREVIOUS_TOKEN_KEYS,
    PREVIOUS_TOKEN_QUERIES,
    PRONOUN,
    PRONOUN_QUERY,
)
from lesson_core.multihead import divisors, parallel_heads, random_multi_head, random_projections
from lesson_core.ui import gloss, lesson_end, pct, setup_page, t, try_this
from lesson_core.ui import multihead_parts as parts
from lesson_core.ui.study import terms

LESSON, RUN_D_MODEL, WIDEN_SEED, DEFAULT_SEED = "multi_head", 8, 2017, 0
THIN_HEAD = 32  # try-this target: d_head of GPT-2 small's heads
TOKENS, N, IT = PRONOUN.tokens, len(PRONOUN.tokens), PRONOUN_QUERY
ALLOWED = causal_mask(N)
FISH, BEFORE_IT = PRONOUN.index("魚"), IT - 1
# the fixed random widening of C's 4 features to d_model = 8 (X = F E)
WIDEN = random_projections(PRONOUN.vectors.shape[1], RUN_D_MODEL, np.random.default_rng(WIDEN_SEED))[0]

setup_page(LESSON)
st.title(t("multi_head.title"))
st.markdown(t("multi_head.intro"))

st.header(t("multi_head.one.header"))
heads = parallel_heads(
    [PRONOUN.queries, PREVIOUS_TOKEN_QUERIES],
    [PRONOUN.vectors, PREVIOUS_TOKEN_KEYS],
    [PRONOUN.vectors, PRONOUN.vectors],
    mask=ALLOWED,
)
st.markdown(
    t(
        "multi_head.one.body",
        it=gloss(TOKENS[IT]),
        fish=gloss(TOKENS[FISH]),
        fish_weight=pct(heads.weights[0, IT, FISH]),
        before=gloss(TOKENS[BEFORE_IT]),
        before_weight=pct(heads.weights[0, IT, BEFORE_IT]),
    )
)


@st.fragment
def heads_demo() -> None:
    st.header(t("multi_head.heads.header"))
    st.markdown(t("multi_head.heads.body", n=N))
    st.caption(t("ui.hand_made"))
    query = parts.query_select(TOKENS, IT)
    top_a, top_b = parts.heads_section(TOKENS, heads, ALLOWED, query)
    terms("concatenation")
    try_this(LESSON, {"t1": query > 0 and top_a == top_b}, share=False)


@st.fragment
def shapes_demo() -> None:
    st.header(t("multi_head.shapes.header"))
    st.markdown(t("multi_head.shapes.body", d=GPT2_SMALL_D_MODEL, h=GPT2_SMALL_HEADS, n=N))
    options = divisors(GPT2_SMALL_D_MODEL)
    h = parts.heads_count(
        options,
        GPT2_SMALL_HEADS,
        "mh_heads",
        t("multi_head.shapes.label"),
        t("multi_head.shapes.help", d=GPT2_SMALL_D_MODEL),
    )
    d_head = parts.gpt2_section(N, GPT2_SMALL_D_MODEL, h, options)
    try_this(LESSON, {"t2": d_head == THIN_HEAD}, share=False, d_head=THIN_HEAD)


@st.fragment
def run_demo() -> None:
    st.header(t("multi_head.run.header"))
    small = divisors(PRONOUN.vectors.shape[1])
    st.markdown(
        t(
            "multi_head.run.body",
            d_in=PRONOUN.vectors.shape[1],
            d=RUN_D_MODEL,
            small_options=", ".join(map(str, small)),
        )
    )
    seed, run_h = parts.run_controls(divisors(RUN_D_MODEL), RUN_D_MODEL, DEFAULT_SEED, 2)
    run = random_multi_head(PRONOUN.vectors, WIDEN, run_h, np.random.default_rng(seed), ALLOWED)
    parts.run_table(run, run_h)
    parts.head_tabs(TOKENS, run, ALLOWED)
    parts.concat_and_output(TOKENS, run, run_h)
    st.markdown(t("multi_head.run.flat", it=gloss(TOKENS[IT]), top=pct(run.result.weights[:, IT].max())))
    try_this(LESSON, {"t3": seed != DEFAULT_SEED})


heads_demo()
shapes_demo()
run_demo()

st.header(t("multi_head.roles.header"))
st.markdown(t("multi_head.roles.body"))

lesson_end(LESSON)
