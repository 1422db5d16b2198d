"""Lesson 3 — scaling: why attention divides the scores by √d_k."""

import numpy as np
import streamlit as st

from lesson_core import causal_mask
from lesson_core import scaled_dot_product_attention as attention
from lesson_core.examples import PRONOUN, PRONOUN_QUERY
from lesson_core.scaling import entropy, random_scores, softmax_at_spreads, unscaled_temperature
from lesson_core.ui import gloss, lesson_end, num, pct, setup_page, t, try_this, views
from lesson_core.ui import scaling_parts as parts
from lesson_core.ui.study import terms
from lesson_core.ui.url_state import bound

LESSON, TOP_TARGET, ENTROPY_TARGET, STD_TARGET, REFERENCE = "scaling", 0.99, 2.5, 10.0, 1.0
IT, KV, ALLOWED = PRONOUN_QUERY, PRONOUN.vectors, causal_mask(len(PRONOUN.tokens))
D_K = KV.shape[1]

setup_page(LESSON)
st.title(t("scaling.title"))
st.markdown(t("scaling.intro"))


@st.fragment
def growth_demo() -> None:
    st.header(t("scaling.growth.header"))
    st.markdown(t("scaling.growth.body", n_samples=parts.N_SAMPLES))
    st.latex(r"\operatorname{Var}(q \cdot k) = \sum_{i=1}^{d_k} \operatorname{Var}(q_i k_i) = d_k")
    left, right = st.columns(2)
    dk_seed = bound(
        left.slider, t("scaling.seed_label"), 0, 99, 0, key="sc_dk_seed", help=t("scaling.seed_help")
    )
    d_k = bound(right.select_slider, t("scaling.growth.dk_label"), parts.D_KS, 64, key="sc_dk")
    sweep = parts.dk_sweep(dk_seed)
    parts.spread_views(sweep, d_k)
    try_this(LESSON, {"t3": d_k == sweep.first_above(STD_TARGET)}, share=False, std_target=num(STD_TARGET, 0))


@st.fragment
def onehot_demo() -> None:
    st.header(t("scaling.onehot.header"))
    st.markdown(t("scaling.onehot.body", n=parts.N_SCORES, ref=num(REFERENCE, 0)))
    left, right = st.columns(2)
    spread = bound(left.slider, t("scaling.onehot.spread_label"), 0.25, 16.0, 8.0, 0.25, key="sc_spread")
    seed = bound(right.slider, t("scaling.seed_label"), 0, 99, 0, key="sc_seed", help=t("scaling.seed_help"))
    z = random_scores(parts.N_SCORES, np.random.default_rng(seed))
    pair = softmax_at_spreads(z, [spread, REFERENCE])
    parts.compare_chart(pair)

    st.header(t("scaling.gradient.header"))
    st.markdown(t("scaling.gradient.body"))
    st.latex(
        r"J = \frac{\partial p}{\partial s} = \operatorname{diag}(p) - p\,p^\top,"
        r"\quad J_{ij} = p_i(\delta_{ij} - p_j)"
    )
    terms("jacobian")
    st.markdown(t("scaling.gradient.norm"))
    parts.gradient_chart(softmax_at_spreads(z, parts.GRID), parts.typical_gradient(), pair)
    try_this(LESSON, {"t1": bool(pair.top[0] > TOP_TARGET)}, share=False, top_target=pct(TOP_TARGET, 0))


@st.fragment
def temperature_demo() -> None:
    st.header(t("scaling.temperature.header"))
    st.markdown(t("scaling.temperature.body"))
    st.latex(r"\mathrm{softmax}\!\left(\frac{q \cdot k}{\sqrt{d_k}\;T}\right)")
    st.markdown(t("scaling.temperature.example", d_k=D_K))
    st.caption(t("ui.hand_made"))
    controls, side = st.columns([1, 2], gap="large")
    with controls:
        temperature = views.temperature_slider("sc_temp")
    weights = attention(PRONOUN.queries, KV, KV, mask=ALLOWED, temperature=temperature).weights[IT]
    t_raw = unscaled_temperature(D_K)
    unscaled = attention(PRONOUN.queries, KV, KV, mask=ALLOWED, temperature=t_raw).weights[IT]
    h, labels = entropy(weights), [gloss(tok) for tok in PRONOUN.tokens]
    with side:
        views.weights_bars(labels, weights, labels[IT], "scaling.temperature.alt")
    with controls:
        parts.temperature_summary(weights, unscaled, h, int(ALLOWED[IT].sum()), t_raw)

    try_this(LESSON, {"t2": bool(h > ENTROPY_TARGET)}, entropy_target=num(ENTROPY_TARGET, 1))


growth_demo()
onehot_demo()
temperature_demo()

lesson_end(LESSON)
