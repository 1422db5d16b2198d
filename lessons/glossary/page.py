"""Glossary: every term the course uses, each with its own anchor (/glossary#<term>),
a search box that keeps the entries containing what the learner typed, and an
index of links to them at the top. An entry shows its name and one-line
definition; its longer explanation is folded (the page is long on a phone).
A lesson's look-up links to one entry (?term=<id>#<anchor>), which opens that
entry's explanation and no other."""

from __future__ import annotations

import unicodedata

import streamlit as st

from course_app import TERM_PARAM, TERMS, anchor, fold, open_fold, page_start, session, t, url_state

SEARCH_MAX = 60  # characters: longer than any term's name, short enough to stay one line


def entry_fold(term: str) -> str:
    """The name of a term's folded explanation."""
    return f"glossary_{term}"


def arrive() -> None:
    """Open the explanation of the entry a link leads to (?term=), once per
    link: the learner can close it again, and the other entries stay as they
    were. A search that would hide that entry is emptied. A term the glossary
    does not have is removed from the URL, and the learner told."""
    term = url_state.read_choice(TERM_PARAM, TERMS, refused="glossary.no_such_term")
    if term is None or session.get(session.GLOSSARY_ARRIVED) == term:
        return
    session.put(session.GLOSSARY_ARRIVED, term)
    open_fold(entry_fold(term))
    query = session.get(session.GLOSSARY_SEARCH)
    if not isinstance(query, str) or term not in matching(query):
        session.put(session.GLOSSARY_SEARCH, "")


def folded(text: str) -> str:
    """Text as the search compares it: NFKC (full-width Ｓｏｆｔｍａｘ and
    half-width ｿﾌﾄ become their usual forms) and case-folded."""
    return unicodedata.normalize("NFKC", text).casefold()


def entry_texts(term: str) -> str:
    """All the words of one entry, in the learner's language: name, short and long."""
    return " ".join(t(f"glossary.{term}.{part}") for part in ("name", "short", "long"))


def matching(query: str, terms: tuple[str, ...] | list[str] = TERMS) -> list[str]:
    """The terms whose entry contains every word of ``query`` (split at
    spaces; Japanese, written without them, is one word), in glossary order.
    An empty query keeps every term."""
    words = folded(query[:SEARCH_MAX]).split()
    return [term for term in terms if all(word in folded(entry_texts(term)) for word in words)]


def search_box() -> list[str]:
    """The search box and what it found: the terms to show."""
    query = st.text_input(
        t("glossary.search"),
        key=session.GLOSSARY_SEARCH,
        max_chars=SEARCH_MAX,
        help=t("glossary.search_hint"),
    )
    query = query if isinstance(query, str) else ""  # a client may send anything
    shown = matching(query)
    if query.strip():
        if shown:
            st.caption(t("glossary.search_found", n=len(shown), total=len(TERMS)))
        else:
            st.info(t("glossary.search_none"))
    return shown


def main() -> None:
    page_start("glossary")
    arrive()
    shown = search_box()
    if shown:
        st.markdown(" · ".join(f"[{t(f'glossary.{term}.name')}](#{anchor(term)})" for term in shown))
    for term in shown:
        name = t(f"glossary.{term}.name")
        st.subheader(name, anchor=anchor(term))
        st.markdown(f"**{t(f'glossary.{term}.short')}**")
        if box := fold(t("glossary.long_label", name=name), entry_fold(term)):
            with box:
                st.markdown(t(f"glossary.{term}.long"))
