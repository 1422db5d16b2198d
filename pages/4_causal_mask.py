"""Lesson 4 — the causal mask: each position sees itself and its left only (LESSONS.md §4)."""

import numpy as np
import streamlit as st

from lesson_core import causal_mask
from lesson_core import scaled_dot_product_attention as attention
from lesson_core.examples import DECODER, PRONOUN, PRONOUN_QUERY
from lesson_core.masking import MASK_FILLS, hidden_weight
from lesson_core.ui import causal_parts as parts
from lesson_core.ui import gloss, lesson_end, pct, setup_page, t, try_this, views
from lesson_core.ui.study import terms

LESSON = "causal_mask"
X, B_ALLOWED = DECODER.vectors, causal_mask(len(DECODER.tokens))
KV, C_ALLOWED = PRONOUN.vectors, causal_mask(len(PRONOUN.tokens))
IT, (CAT, FISH, FRESH) = PRONOUN_QUERY, (PRONOUN.index(tok) for tok in ("猫", "魚", "新鮮"))

setup_page(LESSON)
st.title(t("causal_mask.title"))
st.markdown(t("causal_mask.intro"))

st.header(t("causal_mask.why.header"))
n = len(DECODER.tokens)
st.markdown(t("causal_mask.why.body", n=n, pairs=n - 1, sentence=" ".join(map(gloss, DECODER.tokens))))
context, answer = parts.pairs_table(DECODER.tokens)[1]
st.markdown(t("causal_mask.why.copy", token=gloss(context[-1]), answer=gloss(answer)))
st.markdown(t("causal_mask.why.generate"))
terms("training", "token")

st.header(t("causal_mask.matrix.header"))
st.markdown(t("causal_mask.matrix.body"))
st.latex(
    r"M_{ij} = \begin{cases} 0 & (j \le i) \\ -\infty & (j > i) \end{cases} \qquad"
    r"\mathrm{softmax}\!\left(\frac{QK^\top}{\sqrt{d_k}} + M\right) V"
)
mask_col, note_col = st.columns([3, 2], gap="large")
with mask_col:
    parts.mask_map(DECODER.tokens, B_ALLOWED)
note_col.markdown(
    t("causal_mask.matrix.mask_note", n=n, first=gloss(DECODER.tokens[0]), last=gloss(DECODER.tokens[-1]))
)
st.markdown(t("causal_mask.matrix.example"))
before, after = attention(X, X, X), attention(X, X, X, mask=B_ALLOWED)
before_col, after_col = st.columns(2, gap="large")
with before_col:
    parts.scores_map(DECODER.tokens, before.scaled_scores, None, "before")
with after_col:
    parts.scores_map(DECODER.tokens, after.scaled_scores, B_ALLOWED, "after")
st.markdown(t("causal_mask.matrix.after_note"))
terms("causal_mask", "softmax", "matrix")

# Fixed figures the text quotes (default query vectors, scale strength 1).
zero_fill = hidden_weight(attention(X, X, X, mask=B_ALLOWED, mask_fill=0.0).weights, B_ALLOWED)
c_open, c_masked = attention(PRONOUN.queries, KV, KV), attention(PRONOUN.queries, KV, KV, mask=C_ALLOWED)
first, second = np.argsort(c_open.weights[CAT])[::-1][:2]


@st.fragment
def mask_demo() -> None:
    st.header(t("causal_mask.fill.header"))
    st.markdown(t("causal_mask.fill.body"))
    fill = parts.fill_choice(MASK_FILLS, "cm_fill")
    b = attention(X, X, X, mask=B_ALLOWED, mask_fill=fill)
    leaks = hidden_weight(b.weights, B_ALLOWED)
    left, right = st.columns([3, 2], gap="large")
    with left:
        parts.leak_map(DECODER.tokens, b.weights, B_ALLOWED, parts.fill_text(fill))
    with right:
        parts.sums_table(DECODER.tokens, b.weights, leaks)
        st.markdown(parts.leak_note(DECODER.tokens, leaks, fill))

    st.header(t("causal_mask.pronoun.header"))
    st.markdown(
        t(
            "causal_mask.pronoun.body",
            self_weight=pct(c_masked.weights[CAT, CAT]),
            first=gloss(PRONOUN.tokens[first]),
            first_weight=pct(c_open.weights[CAT, first]),
            second=gloss(PRONOUN.tokens[second]),
            second_weight=pct(c_open.weights[CAT, second]),
        )
    )
    st.caption(t("ui.hand_made"))
    controls, side = st.columns([1, 2], gap="large")
    with controls:
        query, masked, temperature = views.query_controls(PRONOUN.tokens, IT, "cm")
    allowed = C_ALLOWED if masked else None
    c = attention(PRONOUN.queries, KV, KV, mask=allowed, temperature=temperature)
    future = hidden_weight(c.weights, C_ALLOWED)
    with controls:
        st.markdown(parts.visibility_note(PRONOUN.tokens, query, masked, future[query]))
    views.explorer(PRONOUN.tokens, KV, c, query, allowed, "cm", side)
    st.markdown(
        t(
            "causal_mask.pronoun.gather",
            fresh_it=pct(c_masked.weights[FRESH, IT]),
            fresh_fish=pct(c_masked.weights[FRESH, FISH]),
            it_fresh=pct(c_masked.weights[IT, FRESH]),
        )
    )
    checks = {"t1": not masked and query == CAT, "t2": fill == 0.0, "t3": masked and query == FRESH}
    try_this(LESSON, checks, row=gloss(DECODER.tokens[0]), leak_zero=parts.leak_text(zero_fill[0]))


mask_demo()

lesson_end(LESSON)
