"""The page's URL (its query string), read and written: the one module that
touches ``st.query_params``. What each value means, and how it is checked on
the way in, lives with its owner: a lesson's controls and values in
``url_state``, the language in ``i18n.resolve_lang``, the progress in
``progress.decode``, a class seat in ``classroom.learner``. The names of the
page-wide parameters are here, so that each is spelled once."""

from __future__ import annotations

import streamlit as st

LANG = "lang"  # the learner's language (i18n.LANGS)
PROGRESS = "p"  # the learner's progress, compact (progress.encode)
SEAT = "seat"  # a learner's seat in a class (classroom.learner)
JOIN = "join"  # a class's code, from the link a teacher shares


def get(name: str) -> str | None:
    """The (last) value the URL holds under ``name``, None when absent."""
    return st.query_params.get(name)


def get_all(name: str) -> list[str]:
    """Every value the URL holds under ``name``, in order."""
    return st.query_params.get_all(name)


def has(name: str) -> bool:
    return name in st.query_params


def put(name: str, value: str | list[str]) -> None:
    """Make the URL hold ``value`` under ``name`` (a list: one value each);
    written only when it disagrees, so that an unchanged value costs no
    message to the browser."""
    if isinstance(value, list):
        if st.query_params.get_all(name) != value:
            st.query_params[name] = value
    elif st.query_params.get(name) != value:
        st.query_params[name] = value


def drop(name: str) -> None:
    """Remove ``name`` from the URL (nothing when it is absent)."""
    st.query_params.pop(name, None)


def everything() -> dict[str, str]:
    """Every parameter the URL holds, the last value of each."""
    return st.query_params.to_dict()


def count() -> int:
    """How many parameters the URL holds (0 when Streamlit refused it)."""
    return len(st.query_params)


def replace(params: dict[str, str]) -> None:
    """Make the URL hold ``params`` and nothing else."""
    st.query_params.from_dict(params)
