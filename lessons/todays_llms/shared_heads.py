"""Section 3, shared key/value heads (multi-query and grouped-query attention): the
cache each shape keeps, and a demo of heads sharing one key and value."""

from __future__ import annotations

import numpy as np
import streamlit as st

from course_app import bound, charts, gloss, pct, session, t, t_count, views
from lesson_core import causal_mask
from lesson_core.examples import PRONOUN, PRONOUN_QUERY
from lesson_core.kv_cache import (
    HALF_PRECISION,
    REAL_MODELS,
    GroupedResult,
    ModelShape,
    grouped_query_attention,
    model_cache_bytes,
)
from lesson_core.multihead import divisors, random_projections
from lesson_core.rounding import fixed
from lessons.todays_llms.kv_cache import GPT2_SMALL_CONTEXT, megabytes

GQA_TOKENS = (128, 256, 512, 1024, 2048, 4096, 8192, 32768)

DEMO_HEADS, DEMO_SEED, DEMO_D = 4, 8, 8


def gqa_controls() -> tuple[ModelShape, int, int]:
    """The model, its number of key/value heads and the text's length in tokens."""
    model = model_select()
    return model, kv_select(model), gqa_tokens()


def model_select() -> ModelShape:
    """One of the published models, by name (the same in both languages)."""
    names = [m.name for m in REAL_MODELS]  # the same in both languages, so a shared link reads the same
    choice = bound(st.selectbox, t("todays_llms.gqa.model"), names, index=0, key="llm_model")
    return REAL_MODELS[names.index(choice)] if choice in names else REAL_MODELS[0]


def kv_select(model: ModelShape) -> int:
    """How many key/value heads, among the divisors of the model's query heads
    (back to the model's own count when a new model makes the old one impossible)."""
    options = divisors(model.q_heads)
    fixed = session.get(session.LLM_KV) not in (None, *options)
    if fixed:  # the model changed and the old count does not divide its query heads
        session.put(session.LLM_KV, model.kv_heads)
    return bound(
        st.select_slider,
        t("todays_llms.gqa.kv"),
        options,
        value=None if fixed else model.kv_heads,
        help=t("todays_llms.gqa.kv_help"),
        key=session.LLM_KV,
    )


def gqa_tokens() -> int:
    """The text's length in tokens for the cache size."""
    tokens = bound(
        st.select_slider, t("todays_llms.gqa.tokens"), GQA_TOKENS, value=GPT2_SMALL_CONTEXT, key="llm_tokens"
    )
    return tokens if tokens in GQA_TOKENS else GPT2_SMALL_CONTEXT


def gqa_section(model: ModelShape, kv: int, tokens: int) -> int:
    """The cache for the chosen key/value heads against the published and the
    plain multi-head one, and a bar per allowed count. Returns the size in bytes."""
    size = model_cache_bytes(model, tokens, kv, HALF_PRECISION)
    st.markdown(
        t_count(
            "todays_llms.gqa.result",
            kv,
            model=model.name,
            layers=model.layers,
            q_heads=model.q_heads,
            d_head=model.d_head,
            kv=kv,
            group=model.q_heads // kv,
            tokens=f"{tokens:,}",
            bytes=HALF_PRECISION,
            size=megabytes(size),
            own=model.kv_heads,
            own_size=megabytes(model_cache_bytes(model, tokens, None, HALF_PRECISION)),
            full_size=megabytes(model_cache_bytes(model, tokens, model.q_heads, HALF_PRECISION)),
        )
    )
    if model.context is not None and tokens > model.context:
        st.caption(t("todays_llms.gqa.context", model=model.name, context=f"{model.context:,}"))
    if model.window is not None:
        st.caption(t("todays_llms.gqa.window", model=model.name, window=f"{model.window:,}"))
    options = divisors(model.q_heads)
    sizes = np.array([model_cache_bytes(model, tokens, g, HALF_PRECISION) for g in options]) / 1e6
    spec = charts.bar_spec(
        t("todays_llms.gqa.chart_x"), t("todays_llms.gqa.chart_y"), height=220, percent=False
    )
    frame = charts.bar_frame(
        [str(g) for g in options],
        sizes,
        [fixed(s, 0, grouped=True) if s >= 10 else fixed(s, 1) for s in sizes],
        highlight=options.index(kv),
    )
    charts.show(frame, spec, t("todays_llms.gqa.chart_alt"))
    return size


def group_demo() -> None:
    """Example C with DEMO_HEADS query heads and 1, 2 or 4 key/value heads: the
    weights of それ in every query head, side by side."""
    st.markdown(
        t(
            "todays_llms.gqa.demo_body",
            q_heads=DEMO_HEADS,
            seed=DEMO_SEED,
            it=gloss(PRONOUN.tokens[PRONOUN_QUERY]),
        )
    )
    g = group_select()
    res = grouped_demo_heads(g)
    row = res.weights[:, PRONOUN_QUERY, : PRONOUN_QUERY + 1]
    group_chart(res, row)
    if g == DEMO_HEADS:
        st.caption(t("todays_llms.gqa.demo_single"))
        return
    gap = max(
        float(np.abs(row[a] - row[b]).max())
        for a in range(DEMO_HEADS)
        for b in range(DEMO_HEADS)
        if a < b and res.group[a] == res.group[b]
    )
    st.caption(t("todays_llms.gqa.demo_result", gap=pct(gap)))


def group_select() -> int:
    """How many key/value heads the DEMO_HEADS query heads share (a divisor of DEMO_HEADS)."""
    g = bound(
        st.radio,
        t("todays_llms.gqa.group_kv"),
        divisors(DEMO_HEADS),
        index=1,
        horizontal=True,
        key="llm_group",
    )
    return int(g) if g in divisors(DEMO_HEADS) else 2


def grouped_demo_heads(g: int) -> GroupedResult:
    """Example C through DEMO_HEADS query heads sharing ``g`` key/value heads
    (fixed random projections, DEMO_D wide each), with the causal mask."""
    x = PRONOUN.vectors
    n, d_in = x.shape
    w = random_projections(d_in, DEMO_HEADS * DEMO_D, np.random.default_rng(DEMO_SEED), count=3)
    q = (x @ w[0]).reshape(n, DEMO_HEADS, DEMO_D).transpose(1, 0, 2)
    k = (x @ w[1][:, : g * DEMO_D]).reshape(n, g, DEMO_D).transpose(1, 0, 2)
    v = (x @ w[2][:, : g * DEMO_D]).reshape(n, g, DEMO_D).transpose(1, 0, 2)
    return grouped_query_attention(q, k, v, mask=causal_mask(n))


def group_chart(res: GroupedResult, row: np.ndarray) -> None:
    """それ's weights (``row``: one row per query head) as grouped bars, each head named with its group."""
    labels = views.glossed_labels(PRONOUN.tokens[: PRONOUN_QUERY + 1])
    series = {
        t("todays_llms.gqa.head_name", head=h + 1, group=int(res.group[h]) + 1): row[h]
        for h in range(DEMO_HEADS)
    }
    spec = charts.grouped_bar_spec(
        t("todays_llms.gqa.demo_x"),
        t("todays_llms.gqa.demo_y"),
        t("todays_llms.gqa.demo_series"),
        values=False,
    )
    charts.show(
        charts.grouped_bar_frame(labels, series, pct),
        spec,
        t("todays_llms.gqa.demo_alt", it=gloss(PRONOUN.tokens[PRONOUN_QUERY])),
    )
