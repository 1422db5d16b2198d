"""Lesson 2 — attention: Query, Key, Value and the weighted average (LESSONS.md §2)."""

import numpy as np
import streamlit as st

from lesson_core import causal_mask, equal_average, linear_map, residual
from lesson_core import scaled_dot_product_attention as attention
from lesson_core.examples import CHAPTER, LINEAR_MAP_INPUT, LINEAR_MAP_WEIGHTS, PRONOUN, PRONOUN_QUERY, TOY
from lesson_core.ui import gloss, lesson_end, maths, num, pct, setup_page, t, try_this, vec, views
from lesson_core.ui.study import terms

LESSON, SHARP_TARGET = "attention", 0.95
IT, CAT, N, KV = PRONOUN_QUERY, PRONOUN.index("猫"), len(PRONOUN.tokens), PRONOUN.vectors

setup_page(LESSON)
st.title(t("attention.title"))
st.markdown(t("attention.intro"))

st.header(t("attention.qkv.header"))
st.markdown(t("attention.qkv.body"))
terms("query_key_value", "linear_map", "matrix")
mapped = linear_map(LINEAR_MAP_INPUT, LINEAR_MAP_WEIGHTS)
st.markdown(t("attention.qkv.linear_map", x=vec(LINEAR_MAP_INPUT, 0), y=vec(mapped, 0)))
st.latex(maths.product(LINEAR_MAP_INPUT, LINEAR_MAP_WEIGHTS, mapped))

st.header(t("attention.steps.header"))
toy = attention(TOY.queries, TOY.vectors, TOY.vectors)
st.markdown(t("attention.steps.body", query=vec(TOY.queries[0], 0), d_k=TOY.vectors.shape[1]))
terms("dot_product", "softmax", "weighted_average")
views.steps_table([gloss(tok) for tok in TOY.tokens], TOY.vectors, toy, row=0)
top = int(np.argmax(toy.weights[0]))
st.markdown(
    t(
        "attention.steps.output",
        top=gloss(TOY.tokens[top]),
        top_weight=pct(toy.weights[0, top]),
        output=vec(toy.output[0]),
    )
)


@st.fragment
def sentence_demo() -> None:
    st.header(t("attention.demo.header"))
    st.markdown(t("attention.demo.body", n=N, d=len(PRONOUN.axes)))
    st.caption(t("ui.hand_made"))
    controls, side = st.columns([1, 2], gap="large")
    with controls:
        query, masked, temperature = views.query_controls(PRONOUN.tokens, IT, "at")
        st.markdown(f"**{t('attention.demo.sliders_label')}**", help=t("attention.demo.sliders_help"))
        queries = PRONOUN.queries.copy()
        queries[IT] = views.vector_sliders(PRONOUN.axes, PRONOUN.queries[IT], "at_q")
    allowed = causal_mask(N) if masked else None
    res = attention(queries, KV, KV, mask=allowed, temperature=temperature)
    best = views.explorer(PRONOUN.tokens, KV, res, query, allowed, "at", side)
    checks = {
        "cat_top": int(np.argmax(res.weights[IT])) == CAT,
        "unmask_cat": not masked and query == CAT,
        "sharpen": res.weights[query, best] >= SHARP_TARGET,
    }
    try_this(LESSON, checks, target=pct(SHARP_TARGET, 0))
    st.info(t("attention.demo.caveat"))


sentence_demo()

st.header(t("attention.chapter.header"))
x, sk, words = CHAPTER.vectors, CHAPTER.index("すき"), [gloss(tok) for tok in CHAPTER.tokens]
chapter, plain = attention(x, x, x), equal_average(x)
st.markdown(t("attention.chapter.body", each=num(plain.weights[sk, 0], 1)))
views.compare_bars(
    words,
    {
        t("attention.chapter.attention_series"): chapter.weights[sk],
        t("attention.chapter.uniform_series"): plain.weights[sk],
    },
    t("attention.chapter.alt"),
)
first, second = np.argsort(chapter.weights[sk])[::-1][:2]
st.markdown(
    t(
        "attention.chapter.result",
        first=words[first],
        first_weight=pct(chapter.weights[sk, first]),
        second=words[second],
        second_weight=pct(chapter.weights[sk, second]),
        particle_weight=pct(chapter.weights[sk, CHAPTER.index("は")]),
        attended=vec(chapter.output[sk]),
        uniform=vec(plain.output[sk]),
    )
)

st.header(t("attention.matrix.header"))
st.latex(r"\mathrm{Attention}(Q, K, V) = \mathrm{softmax}\!\left(\frac{QK^\top}{\sqrt{d_k}} + M\right) V")
full = attention(PRONOUN.queries, KV, KV, mask=causal_mask(N))
st.markdown(t("attention.matrix.body", n=N, d_k=KV.shape[1]))
terms("transpose", "causal_mask", "residual")
views.shapes_table(
    [
        ("Q", PRONOUN.queries.shape, t("attention.matrix.q")),
        ("Kᵀ", KV.T.shape, t("attention.matrix.kt")),
        ("QKᵀ / √d_k + M", full.scaled_scores.shape, t("attention.matrix.scores")),
        ("softmax(…)", full.weights.shape, t("attention.matrix.weights")),
        ("softmax(…) V", full.output.shape, t("attention.matrix.out")),
    ]
)
st.markdown(
    t(
        "attention.matrix.residual",
        x=vec(KV[IT], 1),
        attended=vec(full.output[IT]),
        total=vec(residual(KV[IT], full.output[IT])),
    )
)

lesson_end(LESSON)
