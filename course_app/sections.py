"""How a section of a lesson opens: the one shape every section has (its
header, its text, the formula it rests on, the glossary look-up for its
terms), and the fold of a section on the lesson's path."""

from __future__ import annotations

from collections.abc import Sequence

import streamlit as st
from streamlit.delta_generator import DeltaGenerator

from course_app.folds import fold
from course_app.i18n import t
from course_app.study import terms as look_up


def section_start(
    section: str,
    formula: str | None = None,
    *,
    body: str | None = "body",
    terms: Sequence[str] = (),
    **body_values: object,
) -> None:
    """How a section begins: its header; its text (the catalog entry
    ``<section>.<body>``, none with ``body=None``) with ``body_values`` filled
    in; the formula (LaTeX), if it rests on one, on a line of its own; then
    one look-up for the glossary ``terms`` it introduces (``study.terms``). A
    demo section calls it before its fragment, so that a control redraws only
    what it can change.

    Catalog entries: <section>.header and <section>.<body>."""
    st.header(t(f"{section}.header"))
    if body is not None:
        st.markdown(t(f"{section}.{body}", **body_values))
    if formula is not None:
        st.latex(formula)
    if terms:
        look_up(*terms)


# The icon of a folded section of the lesson's path (other folds go further:
# worked examples, tables, deep dives, each with its own icon or none).
PATH_ICON = ":material/format_list_numbered:"


def section_fold(section: str, name: str) -> DeltaGenerator | None:
    """A numbered section of the lesson's path, folded so that a phone's page
    stays short (``fold``, keyed ``name``): labelled with the section's header
    and a badge that says it is part of the lesson, so that it does not read
    as optional beside the folds that go further. The caller draws the
    section's body into it.

    Catalog entries: <section>.header and ui.fold.on_path."""
    label = f"{t(f'{section}.header')} :blue-badge[{t('ui.fold.on_path')}]"
    return fold(label, name, icon=PATH_ICON)
