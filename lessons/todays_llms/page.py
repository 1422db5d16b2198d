"""Lesson 8 — attention in today's LLMs: the KV cache, rotary position
embedding, shared key/value heads (MQA, GQA) and long context."""

import streamlit as st

from course_app import (
    course,
    fold,
    lesson_end,
    page_link,
    page_start,
    section_fold,
    section_start,
    t,
    terms,
    try_this,
)
from lesson_core.kv_cache import GPT2_SMALL, MISTRAL_7B
from lesson_core.rope import BASE, EXAMPLE_K, EXAMPLE_Q
from lessons.todays_llms import kv_cache, long_context, rope, shared_heads

LESSON = "todays_llms"
TARGET_TOKENS, TARGET_BYTES = 1024, 10_000_000  # task t3: GPT-2 small's cache at 1,024 tokens under 10 MB
SMALL_BLOCK = 2  # task t4: blocks of at most this many keys (then 魚, それ's top score, is not in block 1)


def main() -> None:
    page_start(LESSON)

    cache_demo()
    cache_size()
    rope_demo()
    gqa_demo()
    group_demo()
    long_demo()
    block_demo()
    lesson_end(LESSON)


@st.fragment
def cache_demo() -> None:
    """1. Generation one token at a time on the mini GPT, with a KV cache."""
    section_start("todays_llms.cache", terms=("kv_cache", "causal_mask"))
    controls, side = st.columns([1, 2], gap="large")
    with controls:
        gen, step = kv_cache.cache_controls()
    with side:
        kv_cache.step_section(gen, step)
    kv_cache.ops_chart(gen)
    try_this(LESSON, {"t1": step == len(gen.run.token_ids)}, share=False)


def cache_size() -> None:
    """How large the cache grows with the text's length (folded)."""
    if box := fold(
        t("todays_llms.cache.size_header"), "todays_llms_cache_size", icon=":material/unfold_more:"
    ):
        with box:
            st.fragment(kv_cache.cache_size_section)()


def rope_demo() -> None:
    """2. Rotary position embedding: the score depends on m − n only. The
    whole section is folded (``section_fold``), on the lesson's path. Each folded
    demo is a fragment inside its fold, so a closed fold costs a first load
    no fragment."""
    if box := section_fold("todays_llms.rope", "todays_llms_rope"):
        with box:
            rope_body()


@st.fragment
def rope_body() -> None:
    st.markdown(t("todays_llms.rope.body", base=f"{BASE:,.0f}"))
    terms("rope", "positional_encoding")
    st.latex(  # two lines: one would be wider than a phone's column
        r"\begin{gathered} \begin{pmatrix} q'_{2i} \\ q'_{2i+1} \end{pmatrix} = "
        r"\begin{pmatrix} \cos m\theta_i & -\sin m\theta_i \\ \sin m\theta_i & \cos m\theta_i \end{pmatrix}"
        r"\begin{pmatrix} q_{2i} \\ q_{2i+1} \end{pmatrix}, \\ \theta_i = "
        + f"{BASE:.0f}"
        + r"^{-2i/d_{head}} \end{gathered}"
    )
    same = rope.rope_section(EXAMPLE_Q, EXAMPLE_K)
    try_this(LESSON, {"t2": same}, share=False)


def gqa_demo() -> None:
    """3. Key/value heads shared between query heads: the cache of a real model.
    The whole section is folded (``section_fold``), on the lesson's path."""
    if box := section_fold("todays_llms.gqa", "todays_llms_gqa"):
        with box:
            gqa_body()


@st.fragment
def gqa_body() -> None:
    st.markdown(t("todays_llms.gqa.body"))
    terms("gqa", "head")
    controls, side = st.columns([1, 2], gap="large")
    with controls:
        model, kv, tokens = shared_heads.gqa_controls()
    with side:
        size = shared_heads.gqa_section(model, kv, tokens)
    st.caption(t("todays_llms.gqa.sources"))
    done = model == GPT2_SMALL and tokens == TARGET_TOKENS and size < TARGET_BYTES
    try_this(
        LESSON,
        {"t3": done},
        share=False,
        tokens=f"{TARGET_TOKENS:,}",
        target=kv_cache.megabytes(TARGET_BYTES),
    )


def group_demo() -> None:
    """Query heads that share key/value heads give それ the same weights (folded)."""
    if box := fold(t("todays_llms.gqa.demo_header"), "todays_llms_group", icon=":material/unfold_more:"):
        with box:
            st.fragment(shared_heads.group_demo)()


@st.fragment
def long_demo() -> None:
    """4. Long context: the n × n scores and the measured time."""
    section_start("todays_llms.long", terms=("long_context", "matrix"))
    long_context.long_section()


def block_demo() -> None:
    """Attention block by block, with a running maximum and sum: the same result (folded)."""
    if box := fold(t("todays_llms.long.block_header"), "todays_llms_block", icon=":material/unfold_more:"):
        with box:
            block_body()


@st.fragment
def block_body() -> None:
    """The block-by-block demo, in its fold: a fragment, so its controls redraw it alone."""
    st.markdown(t("todays_llms.long.block_body"))
    block, masked = long_context.block_section()
    if inner := fold(t("todays_llms.long.online_expander"), "todays_llms_online"):
        with inner:
            st.markdown(t("todays_llms.long.online"))
    st.markdown(t("todays_llms.long.window", window=f"{MISTRAL_7B.window:,}"))
    page_link(course.BY_ID["causal_mask"])
    try_this(LESSON, {"t4": masked and block <= SMALL_BLOCK}, block=SMALL_BLOCK)
