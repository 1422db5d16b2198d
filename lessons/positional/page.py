"""Lesson 5 — positional encoding: attention alone is blind to order (one layer
with the causal mask is blind to the order inside each prefix; stacked masked
layers recover some of it); sinusoidal marks."""

import numpy as np
import streamlit as st

from course_app import (
    MAIN_FIGURE,
    fold,
    gloss,
    lesson_end,
    num,
    page_start,
    section_fold,
    section_start,
    session,
    snippets,
    t,
    try_this,
)
from lesson_core.examples import SAME_TOKEN_POSITIONS, SAME_TOKEN_VECTOR, WORD_ORDER, WORD_ORDER_EMBEDDINGS
from lesson_core.positional import (
    GPT2_POSITIONS,
    EncodingSizeError,
    OrderComparison,
    compare_word_orders,
    encoding_explorer,
    sinusoidal_encoding,
    token_at_positions,
)
from lessons.positional import parts

LESSON, TABLE_SIZE = "positional", (12, 8)
LONG_RUN, COLLISION, ALIKE = 200, 0.05, 0.95  # thresholds of the try-this tasks
SENT_A, SENT_B = WORD_ORDER


def main() -> None:
    page_start(LESSON)

    order_demo()
    formula_section()
    section_start("positional.explore")
    explorer()
    same_token_section()
    clock_section()
    lesson_end(LESSON)


@st.fragment
def order_demo() -> None:
    """1. Attention cannot see word order: two sentences with the same tokens,
    without and with positions added (the mask switch changes both tables)."""
    order_intro()
    table_area = st.container()
    causal, layers = parts.mask_switch(), parts.layers_choice()
    plain = compare_word_orders(
        SENT_A, SENT_B, WORD_ORDER_EMBEDDINGS, with_positions=False, causal=causal, layers=layers
    )
    with table_area:
        st.subheader(t("positional.order.without"))
        parts.order_table(SENT_A, SENT_B, plain)
    if causal:
        masked_note(plain, layers)
    else:
        st.markdown(t("positional.order.same", largest=num(plain.largest, 3)))
        st.markdown(t("positional.order.why" if layers == 1 else "positional.order.why_stacked"))
    if box := fold(t("positional.order.with"), "positional_with", icon=":material/unfold_more:"):
        with box:
            with_positions(causal, layers)


def order_intro() -> None:
    """The two sentences of the word-order example."""
    section_start(
        "positional.order",
        sentence_a=" ".join(SENT_A),
        sentence_b=" ".join(SENT_B),
        n=len(SENT_A),
        d=len(WORD_ORDER_EMBEDDINGS[SENT_A[0]]),
    )
    st.caption(t("ui.hand_made"))


def masked_note(plain: OrderComparison, layers: int) -> None:
    """With the causal mask and no positions: which tokens' outputs change, and why
    (one layer: only where the prefix holds other tokens; two: the later ones too)."""
    kept = [gloss(tok) for tok, same in zip(SENT_A, plain.unchanged, strict=True) if same]
    changed = [gloss(tok) for tok, same in zip(SENT_A, plain.unchanged, strict=True) if not same]
    sep = t("positional.order.sep")
    words = {"changed": sep.join(changed), "kept": sep.join(kept)}
    numbers = {"largest": num(plain.largest, 3), "smallest": num(float(np.min(plain.differences)), 3)}
    if kept:
        st.markdown(t("positional.order.masked", **words, **numbers))
        if layers == 1:
            st.markdown(t("positional.order.masked_why", **words))
        return
    st.markdown(t("positional.order.masked_all", changed=words["changed"], **numbers))
    st.markdown(t("positional.order.masked_stacked"))


def with_positions(causal: bool, layers: int) -> None:
    """The same two sentences with each position's encoding added: every output differs."""
    placed = compare_word_orders(
        SENT_A, SENT_B, WORD_ORDER_EMBEDDINGS, with_positions=True, causal=causal, layers=layers
    )
    st.markdown(t("positional.order.with_body", last=len(SENT_A) - 1))
    parts.order_table(SENT_A, SENT_B, placed)
    most = gloss(SENT_A[placed.largest_at])
    st.markdown(
        t(
            "positional.order.differ",
            token=most,
            largest=num(placed.largest, 3),
            smallest=num(float(np.min(placed.differences)), 3),
        )
    )


def formula_section() -> None:
    """2. The sinusoidal encoding's formula, and a small table of it."""
    section_start(
        "positional.formula",
        # two lines, so that a phone's column (358 px) holds each of them whole; the strut
        # (\rule) gives the fraction's numerator room under the box's top edge
        r"\begin{gathered} \rule{0pt}{1.4em} "
        r"\theta_{pos,\,i} = \frac{pos}{10000^{\,2\lfloor i/2 \rfloor / d_{model}}} \\[4pt] "
        r"PE_{pos,\,i} = \begin{cases} \sin\theta_{pos,\,i} & (i = 0, 2, 4, \dots) \\"
        r" \cos\theta_{pos,\,i} & (i = 1, 3, 5, \dots) \end{cases} \end{gathered}",
    )
    label = t("positional.formula.table_label", n=TABLE_SIZE[0], d=TABLE_SIZE[1])
    if box := fold(label, "positional_table"):
        with box:
            st.markdown(t("positional.formula.table", last=TABLE_SIZE[0] - 1, d=TABLE_SIZE[1]))
            parts.encoding_table(sinusoidal_encoding(*TABLE_SIZE))


@st.fragment
def explorer() -> None:
    """3. The encoding explorer: positions and dimensions of the learner's choice."""
    waves_area = st.container(key=MAIN_FIGURE)  # the waves first, their controls right below them
    n, d = parts.size_controls()
    try:
        view = encoding_explorer(n, d)
    except EncodingSizeError as err:
        parts.size_error(err)
        return
    with waves_area:
        parts.waves_chart(view)
    snippets.code_fold("positional_code", lambda: encoding_code(n, d), LESSON)
    parts.hands_text(view)
    parts.maps_section(view)
    checks = {
        "t1": n >= LONG_RUN and d >= 4,  # a slowest hand exists only with two or more pairs
        "t2": found_collision(d, view.closest_distance),
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


def encoding_code(n: int, d: int) -> snippets.Snippet:
    """The code behind the waves: the encoding, and its first dimensions over position."""
    shows = [f"pe[:, {i}]" for i in range(min(parts.WAVE_DIMS, d))]
    lines = [f"pe = sinusoidal_encoding({n}, {d})"]
    names = [
        t("positional.explore.series", i=i, fn="sin" if i % 2 == 0 else "cos") for i in range(len(shows))
    ]
    x, y = t("positional.col.position"), t("positional.col.value")
    plot = snippets.Plot("lines", f"range({n})", list(zip(names, shows, strict=True)), x, y)
    return snippets.Snippet(uses=[sinusoidal_encoding], lines=lines, shows=shows, plot=plot)


def found_collision(d: int, closest: float) -> bool:
    """Task t2: with one hand (d = 2), the learner first saw no two marks close
    (too few positions) and then added positions until two nearly coincide. The
    default 50 positions already hold such a pair, so setting d = 2 alone must
    not tick it."""
    if d != 2:
        return False
    if closest >= COLLISION:
        session.put(session.PE_CLEAR_SEEN, True)
        return False
    return bool(session.get(session.PE_CLEAR_SEEN))


def same_token_section() -> None:
    """4. One token vector at several positions: every input differs."""
    section_start("positional.same", body=None)
    parts.same_token_section(token_at_positions(SAME_TOKEN_VECTOR, SAME_TOKEN_POSITIONS))


def clock_section() -> None:
    """5. The sin/cos pairs as clock hands: they mark position, they carry no grammar."""
    if box := section_fold("positional.clock", "positional_clock"):
        with box:
            st.markdown(t("positional.clock.body"))
            st.markdown(t("positional.clock.real", positions=f"{GPT2_POSITIONS:,}"))
