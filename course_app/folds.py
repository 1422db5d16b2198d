"""Folds: the parts of a lesson off its main path (deep dives, long tables,
step-by-step arithmetic, worked examples), in expanders whose content is
drawn only while they are open.

A closed fold costs the page one line, on a phone as on a laptop, and the
server nothing but its label: the expander reruns the script when it is
opened or closed (``on_change="rerun"``), so its open state is known and a
closed one's body never runs. Use it as

    if box := fold(label, "lesson_part"):
        with box:
            ...  # drawn only while the fold is open

A fold's open state is the learner's own, for this session: it is not kept
in the URL (no fold key is bound to a query parameter) nor in the progress.
Quizzes are never folded: a question is part of the main path.
"""

from __future__ import annotations

import streamlit as st
from streamlit.delta_generator import DeltaGenerator

PREFIX = "fold_"
OPENED = "open_folds"  # the names of the folds open in this session


def fold_key(name: str) -> str:
    """The widget key of a fold (its open state): ``name`` is
    ``<lesson>_<part>``, stable across languages and reruns."""
    return f"{PREFIX}{name}"


def fold(label: str, name: str, icon: str | None = None) -> DeltaGenerator | None:
    """Draw an expander keyed ``fold_<name>``, closed until the learner opens
    it; return it while it is open (to draw its body into), None while it is
    closed.

    Streamlit takes an expander's label and ``expanded`` into its identity,
    so a label that names a changing value (a chosen query, a count) would
    make a new, closed expander at each change. The names of the open folds
    are kept apart (``open_folds``) and each fold starts as it was left: it
    stays open while its label changes, and when the learner comes back to
    the page."""
    opened: set[str] = st.session_state.setdefault(OPENED, set())
    box = st.expander(label, icon=icon, expanded=name in opened, key=fold_key(name), on_change="rerun")
    if box.open:
        opened.add(name)
        return box
    opened.discard(name)
    return None
