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
from streamlit.delta_generator_singletons import get_last_dg_added_to_context_stack

from course_app import session


def fold(label: str, name: str, icon: str | None = None) -> DeltaGenerator | None:
    """Draw an expander keyed ``fold_<name>``, closed until the learner opens
    it; return its body (to draw into with ``with``) while it is open, None
    while it is closed. Inside an open fold, a fold is its body, always drawn.

    Streamlit takes an expander's label and ``expanded`` into its identity,
    so a label that names a changing value (a chosen query, a count) would
    make a new, closed expander at each change. The names of the open folds
    are kept apart (``open_folds``) and each fold starts as it was left: it
    stays open while its label changes, and when the learner comes back to
    the page."""
    if _inside_a_fold():
        st.markdown(f"**{label}**")
        return st.container()
    opened: set[str] = session.setdefault(session.OPEN_FOLDS, set())
    box = st.expander(label, icon=icon, expanded=name in opened, key=session.fold(name), on_change="rerun")
    if box.open:
        opened.add(name)
        return box
    opened.discard(name)
    return None


def _inside_a_fold() -> bool:
    """Whether the script is drawing into an open fold: an expander among the
    containers it draws into, on the page's run as on a fragment's own rerun
    (a fragment drawn inside a fold). A fold met there is drawn inline (its
    label in bold, its body below), never as an expander in an expander."""
    container = get_last_dg_added_to_context_stack()
    return container is not None and "expandable" in getattr(container, "_ancestor_block_types", ())


def open_fold(name: str) -> None:
    """Open the fold ``name`` from a widget's callback (before the script
    reruns): a step of the main path that reveals what the fold holds, as an
    answered prediction reveals the figures that check it."""
    session.setdefault(session.OPEN_FOLDS, set()).add(name)
    session.put(session.fold(name), True)
