"""Playground: the learner's own sentence and feature vectors through the attention explorer."""

import numpy as np
import streamlit as st

from course_app import bound, md_escape, page_start, session, t, views, word_split
from lesson_core import causal_mask
from lesson_core import scaled_dot_product_attention as attention
from lesson_core.examples import PRONOUN
from lesson_core.playground import MAX_ABS, MAX_CHARS, MAX_TOKENS, bad_cells, default_vectors, tokenize

KNOWN = dict(zip(PRONOUN.tokens, PRONOUN.vectors, strict=True))
MAX_SENTENCES = 20  # sentences whose vectors a session keeps (each: at most MAX_TOKENS x 4 numbers)


def main() -> None:
    page_start("playground", max_tokens=MAX_TOKENS, max_abs=f"{MAX_ABS:g}")

    tokens = sentence_tokens()
    vectors = vectors_section(tokens)
    st.subheader(t("playground.explore_header"))
    explore(tokens, vectors)


def sentence_tokens() -> tuple[str, ...]:
    """The learner's sentence and how to split it; returns its tokens, or stops
    the page with a message when the sentence cannot be used."""
    sentence = bound(
        st.text_input,
        t("playground.sentence_label"),
        value=" ".join(PRONOUN.tokens),
        key=session.PG_SENTENCE,
        persist_state="session",
        on_change=word_split.propose,  # Japanese without spaces -> words, shown in the box
        args=(session.PG_SENTENCE, session.PG_CHARS),
    )  # no max_chars: a longer paste gets a message below instead of being cut silently
    st.caption(t("ux.enter_hint"))  # Streamlit's own hint is English, hidden on Japanese pages
    word_split.notice(session.PG_SENTENCE, "ux.split_done")
    per_character = bound(
        st.toggle, t("playground.per_character"), key=session.PG_CHARS, persist_state="session"
    )
    parsed = tokenize(sentence, per_character)
    if parsed.removed:
        st.info(t("playground.removed", n=parsed.removed))
    if parsed.problem:
        limits = {"max_tokens": MAX_TOKENS, "max_chars": MAX_CHARS, "n": parsed.n_chars}
        st.warning(t(f"playground.problem.{parsed.problem}", **limits))
        st.stop()
    return parsed.tokens


def vectors_section(tokens: tuple[str, ...]) -> np.ndarray:
    """The tokens' feature vectors in an editable table, kept per sentence for the
    session; returns them, or stops the page and names the cells that are out of range."""
    st.subheader(t("playground.vectors_header"))
    st.caption(t("playground.vectors_help"))
    saved = session.setdefault(session.PG_VECTORS, {})  # tokens -> the learner's vectors, newest last
    start = saved.pop(tokens) if tokens in saved else default_vectors(tokens, KNOWN, 4)
    key = session.vector_table(tokens)
    if not editor_state_fits(key, len(tokens)):
        session.pop(key, None)  # back to the last vectors the page accepted
        st.warning(t("playground.table_changed"))
    vectors = views.vector_editor(tokens, PRONOUN.axes, start, key, MAX_ABS)
    saved[tokens] = vectors
    while len(saved) > MAX_SENTENCES:  # the least recently used sentence goes first
        saved.pop(next(iter(saved)))
    if problems := bad_cells(vectors):
        cells = [
            t("playground.cell", row=r + 1, token=md_escape(tokens[r]), axis=t(f"axis.{PRONOUN.axes[c]}"))
            for r, c, _ in problems
        ]
        st.error(
            t("playground.bad_cells", max_abs=f"{MAX_ABS:g}", cells=t("playground.separator").join(cells[:8]))
        )
        st.stop()
    return vectors


def editor_state_fits(key: str, rows: int) -> bool:
    """Whether the vector table's edits (as any client may send them over the
    websocket) fit the table: no added or deleted rows (the browser offers
    neither), only existing rows and number columns, numbers or empty cells.
    Checked before Streamlit applies them, which costs seconds for many rows."""
    if not session.has(key):
        return True
    try:
        state = session.get(key)
        edited = state.get("edited_rows", {})
        names = {t(f"axis.{axis}") for axis in PRONOUN.axes}
        return (
            not state.get("added_rows")
            and not state.get("deleted_rows")
            and all(0 <= int(row) < rows for row in edited)
            and all(name in names and _is_number(v) for row in edited.values() for name, v in row.items())
        )
    except (AttributeError, KeyError, TypeError, ValueError):
        return False


def _is_number(cell: object) -> bool:
    """An empty cell or a number (the page names any out of range itself)."""
    return cell is None or (isinstance(cell, int | float) and not isinstance(cell, bool))


@st.fragment
def explore(tokens: tuple[str, ...], vectors: np.ndarray) -> None:
    """The attention explorer on the learner's tokens and vectors."""
    controls, side = st.columns([1, 2], gap="large")
    with controls:
        query, masked, temperature = views.query_controls(tokens, len(tokens) - 1, "pg", in_url=False)
    allowed = causal_mask(len(tokens)) if masked else None
    result = attention(vectors, vectors, vectors, mask=allowed, temperature=temperature)
    views.explorer(views.Explored(tokens, vectors, result, query, allowed), "pg", side)
    views.attention_code(
        "playground_code", None, tokens, vectors, vectors, vectors, allowed, temperature, query
    )
