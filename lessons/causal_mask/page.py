"""Lesson 4 — the causal mask: each position sees itself and its left only."""

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
    t,
    terms,
    try_this,
    views,
)
from lesson_core import causal_mask
from lesson_core import scaled_dot_product_attention as attention
from lesson_core.examples import DECODER, PRONOUN, PRONOUN_QUERY
from lesson_core.masking import MASK_FILLS, hidden_weight, sliding_window_mask
from lessons.causal_mask import parts

LESSON = "causal_mask"
X, B_ALLOWED = DECODER.vectors, causal_mask(len(DECODER.tokens))
KV, C_ALLOWED = PRONOUN.vectors, causal_mask(len(PRONOUN.tokens))
IT, (CAT, FISH, FRESH) = PRONOUN_QUERY, (PRONOUN.index(tok) for tok in ("猫", "魚", "新鮮"))
N_C = len(PRONOUN.tokens)
# the value closest to 0 that still lets no weight through to the right
TIGHTEST_FILL = max(
    fill
    for fill in MASK_FILLS
    if not np.any(hidden_weight(attention(X, X, X, mask=B_ALLOWED, mask_fill=fill).weights, B_ALLOWED))
)
# the smallest window with which それ still sees 魚
FISH_WINDOW = next(w for w in range(1, N_C + 1) if sliding_window_mask(N_C, w)[IT, FISH])

# Fixed figures the text and the tasks use (default vectors, temperature 1).
ZERO_FILL = hidden_weight(attention(X, X, X, mask=B_ALLOWED, mask_fill=0.0).weights, B_ALLOWED)
C_OPEN, C_MASKED = attention(PRONOUN.queries, KV, KV), attention(PRONOUN.queries, KV, KV, mask=C_ALLOWED)
RIGHT_OF_CAT = np.arange(CAT + 1, N_C)
FIRST, SECOND = RIGHT_OF_CAT[np.argsort(C_OPEN.weights[CAT, RIGHT_OF_CAT])[::-1][:2]]


def main() -> None:
    page_start(LESSON)

    why_section()
    matrix_section()
    scores_example()
    fill_demo()
    mask_demo()
    cache_section()
    lesson_end(LESSON)


def why_section() -> None:
    """1. In training every position predicts its next token at once: none may see it."""
    n = len(DECODER.tokens)
    sentence = " ".join(map(gloss, DECODER.tokens))
    section_start("causal_mask.why", terms=("training", "token"), n=n, pairs=n - 1, sentence=sentence)
    if box := fold(t("causal_mask.why.fold"), "causal_mask_why"):
        with box:
            context, answer = parts.pairs_table(DECODER.tokens)[1]
            st.markdown(t("causal_mask.why.copy", token=gloss(context[-1]), answer=gloss(answer)))
            st.markdown(t("causal_mask.why.generate"))


def matrix_section() -> None:
    """2. The mask matrix M, added to the scores: 0 on and left of the diagonal, −∞ right of it."""
    section_start(
        "causal_mask.matrix",
        # two lines: one would be wider than a phone's column
        r"\begin{gathered} M_{ij} = \begin{cases} 0 & (j \le i) \\ -\infty & (j > i) \end{cases} \\"
        r"\mathrm{softmax}\!\left(\frac{QK^\top}{\sqrt{d_k}} + M\right) V \end{gathered}",
    )
    mask_col, note_col = st.columns([3, 2], gap="large")
    with mask_col:
        parts.mask_map(DECODER.tokens, B_ALLOWED)
    n, first, last = len(DECODER.tokens), gloss(DECODER.tokens[0]), gloss(DECODER.tokens[-1])
    note_col.markdown(t("causal_mask.matrix.mask_note", n=n, first=first, last=last))


def scores_example() -> None:
    """The decoder example's vectors, and its scores before and after the mask is added (folded)."""
    if box := fold(t("ui.fold.worked"), "causal_mask_scores", icon=":material/calculate:"):
        with box:
            scores_body()
    terms("causal_mask", "softmax", "matrix")


def scores_body() -> None:
    st.markdown(t("causal_mask.matrix.vectors", d=X.shape[1]))
    parts.vectors_table(DECODER.tokens, X)
    st.caption(t("ui.hand_made"))
    st.markdown(t("causal_mask.matrix.example", d=X.shape[1]))
    before, after = attention(X, X, X), attention(X, X, X, mask=B_ALLOWED)
    before_col, after_col = st.columns(2, gap="large")
    with before_col:
        parts.scores_map(DECODER.tokens, before.scaled_scores, None, "before")
    with after_col:
        parts.scores_map(DECODER.tokens, after.scaled_scores, B_ALLOWED, "after")
    st.markdown(t("causal_mask.matrix.after_note"))


def fill_demo() -> None:
    """3. Why −∞ and not 0: choose the fill and see how much weight leaks to the
    right. A deep dive: the whole section is a fold named after its header."""
    if box := section_fold("causal_mask.fill", "causal_mask_fill"):
        with box:
            fill_body()


@st.fragment
def fill_body() -> None:
    st.markdown(t("causal_mask.fill.body"))
    chart = st.container()  # the map first, the choice that changes it just below
    fill = parts.fill_choice(MASK_FILLS, "cm_fill")
    b = attention(X, X, X, mask=B_ALLOWED, mask_fill=fill)
    leaks = hidden_weight(b.weights, B_ALLOWED)
    with chart:
        parts.leak_map(DECODER.tokens, b.weights, B_ALLOWED, parts.fill_text(fill))
    st.markdown(parts.leak_note(DECODER.tokens, leaks, fill))
    parts.sums_table(DECODER.tokens, b.weights, leaks)
    try_this(
        LESSON,
        {"tightest_fill": fill == TIGHTEST_FILL},
        share=False,
        row=gloss(DECODER.tokens[0]),
        leak_zero=parts.leak_text(ZERO_FILL[0]),
    )


@st.fragment
def mask_demo() -> None:
    """4. Three masks on example C: none, causal, or a sliding window, for any query."""
    pronoun_intro()
    chart = st.container(key=MAIN_FIGURE)  # the bars first, their controls just below
    query, kind, window, temperature = parts.mask_controls(PRONOUN.tokens, IT)
    allowed = parts.allowed_by(kind, N_C, window)
    c = attention(PRONOUN.queries, KV, KV, mask=allowed, temperature=temperature)
    future = hidden_weight(c.weights, C_ALLOWED)
    view = views.Explored(PRONOUN.tokens, KV, c, query, allowed)
    with chart:
        views.explorer_bars(view)
    st.markdown(parts.visibility_note(PRONOUN.tokens, query, allowed, future[query]))
    views.explorer_details(view, "cm", fold_map=True)
    views.attention_code(
        "causal_mask_code", LESSON, PRONOUN.tokens, PRONOUN.queries, KV, KV, allowed, temperature, query
    )
    if box := fold(t("causal_mask.pronoun.gather_fold"), "causal_mask_gather"):
        with box:
            st.markdown(
                t(
                    "causal_mask.pronoun.gather",
                    fresh_it=pct(C_MASKED.weights[FRESH, IT]),
                    fresh_fish=pct(C_MASKED.weights[FRESH, FISH]),
                    it_fresh=pct(C_MASKED.weights[IT, FRESH]),
                )
            )
    # the causal mask changes no weight of this query: compare with the masked weights
    masked_row = attention(PRONOUN.queries, KV, KV, mask=C_ALLOWED, temperature=temperature).weights[query]
    unchanged = kind == "none" and bool(np.allclose(c.weights[query], masked_row, rtol=0, atol=1e-12))
    checks = {
        "window_fish": kind == "window" and query == IT and window == FISH_WINDOW,
        "mask_no_effect": unchanged,
    }
    try_this(LESSON, checks)


def pronoun_intro() -> None:
    """What 猫 sees with and without the mask, and what a sliding window is."""
    section_start(
        "causal_mask.pronoun",
        self_weight=pct(C_MASKED.weights[CAT, CAT]),
        first=gloss(PRONOUN.tokens[FIRST]),
        first_weight=pct(C_OPEN.weights[CAT, FIRST]),
        second=gloss(PRONOUN.tokens[SECOND]),
        second_weight=pct(C_OPEN.weights[CAT, SECOND]),
    )
    st.caption(t("ui.hand_made"))
    if box := fold(t("causal_mask.pronoun.window_fold"), "causal_mask_window"):
        with box:
            st.markdown(t("causal_mask.pronoun.window_body"))


def cache_section() -> None:
    """5. In real models: the mask lets generation keep a KV cache."""
    if box := section_fold("causal_mask.cache", "causal_mask_cache"):
        with box:
            st.markdown(t("causal_mask.cache.body"))
            terms("kv_cache")
