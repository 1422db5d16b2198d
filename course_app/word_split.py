"""Japanese typed without spaces, split into words in the learner's own text
box: the box then shows the words separated by spaces, with a note, and the
learner corrects a wrong split by moving the spaces. Text with spaces, text
without Japanese and a single word are left exactly as typed."""

from __future__ import annotations

import streamlit as st

from course_app import session
from course_app.i18n import t
from course_app.page import one_shot
from lesson_core.japanese import proposed_split


def propose(key: str, unless: str | None = None) -> bool:
    """Widget callback (or the start of one): replace the text of the text box
    ``key`` by its words separated by spaces. Does nothing when the session
    state value ``unless`` is true (e.g. "one token per character"). Returns
    whether it changed the text."""
    if unless and session.get(unless):
        return False
    split = proposed_split(session.get(key, ""))
    if split is None:
        return False
    session.put(key, split)
    session.put(session.split_flag(key), True)
    return True


def notice(key: str, message_key: str, **values: str) -> None:
    """Say once, right after it happened, that the text of ``key`` was split."""
    if one_shot(session.split_flag(key), False):
        st.info(t(message_key, **values), icon=":material/content_cut:")
