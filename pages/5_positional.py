"""Lesson 5 — positional encoding: attention is blind to order; sinusoidal marks (LESSONS.md §5)."""

import streamlit as st

from lesson_core.examples import SAME_TOKEN_POSITIONS, SAME_TOKEN_VECTOR, WORD_ORDER, WORD_ORDER_EMBEDDINGS
from lesson_core.positional import (
    EncodingSizeError,
    compare_word_orders,
    encoding_explorer,
    sinusoidal_encoding,
    token_at_positions,
)
from lesson_core.ui import gloss, lesson_end, num, setup_page, t, try_this
from lesson_core.ui import positional_parts as parts

LESSON, TABLE_SIZE = "positional", (12, 8)
LONG_RUN, COLLISION, ALIKE = 200, 0.05, 0.95  # thresholds of the try-this tasks
SENT_A, SENT_B = WORD_ORDER

setup_page(LESSON)
st.title(t("positional.title"))
st.markdown(t("positional.intro"))

st.header(t("positional.order.header"))
d_words = len(WORD_ORDER_EMBEDDINGS[SENT_A[0]])
st.markdown(
    t(
        "positional.order.body",
        sentence_a=" ".join(SENT_A),
        sentence_b=" ".join(SENT_B),
        n=len(SENT_A),
        d=d_words,
    )
)
st.caption(t("ui.hand_made"))
plain = compare_word_orders(SENT_A, SENT_B, WORD_ORDER_EMBEDDINGS, with_positions=False)
st.subheader(t("positional.order.without"))
parts.order_table(SENT_A, SENT_B, plain)
st.markdown(t("positional.order.same", largest=num(plain.largest, 3)))
st.markdown(t("positional.order.why"))
placed = compare_word_orders(SENT_A, SENT_B, WORD_ORDER_EMBEDDINGS, with_positions=True)
st.subheader(t("positional.order.with"))
st.markdown(t("positional.order.with_body", last=len(SENT_A) - 1))
parts.order_table(SENT_A, SENT_B, placed)
most = gloss(SENT_A[placed.largest_at])
st.markdown(t("positional.order.differ", token=most, largest=num(placed.largest, 3)))

st.header(t("positional.formula.header"))
st.markdown(t("positional.formula.body"))
st.latex(
    r"\theta_{pos,\,i} = \frac{pos}{10000^{\,2\lfloor i/2 \rfloor / d_{model}}}, \qquad "
    r"PE_{pos,\,i} = \begin{cases} \sin\theta_{pos,\,i} & (i = 0, 2, 4, \dots) \\"
    r" \cos\theta_{pos,\,i} & (i = 1, 3, 5, \dots) \end{cases}"
)
st.markdown(t("positional.formula.table", last=TABLE_SIZE[0] - 1, d=TABLE_SIZE[1]))
parts.encoding_table(sinusoidal_encoding(*TABLE_SIZE))


@st.fragment
def explorer() -> None:
    st.header(t("positional.explore.header"))
    st.markdown(t("positional.explore.body"))
    n, d = parts.size_controls()
    try:
        view = encoding_explorer(n, d)
    except EncodingSizeError as err:
        parts.size_error(err)
        return
    parts.waves_section(view)
    parts.maps_section(view)
    checks = {
        "t1": n >= LONG_RUN,
        "t2": d == 2 and view.closest_distance < COLLISION,
        "t3": view.neighbour_cosine >= ALIKE,
    }
    try_this(
        LESSON,
        checks,
        min_n=LONG_RUN,
        threshold=num(COLLISION),
        target=num(ALIKE),
        current=num(view.neighbour_cosine, 3),
    )


explorer()

st.header(t("positional.same.header"))
parts.same_token_section(token_at_positions(SAME_TOKEN_VECTOR, SAME_TOKEN_POSITIONS))

st.header(t("positional.clock.header"))
st.markdown(t("positional.clock.body"))

lesson_end(LESSON)
