"""Glossary: every term the course uses, each with its own anchor (/glossary#<term>),
a search box that keeps the entries containing what the learner typed, and an
index of links to them at the top. An entry shows its name and one-line
definition; its longer explanation is folded (the page is long on a phone)."""

from __future__ import annotations

import unicodedata

import streamlit as st

from course_app import TERMS, anchor, fold, page_start, t

SEARCH_KEY = "glossary_search"
SEARCH_MAX = 60  # characters: longer than any term's name, short enough to stay one line


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
        key=SEARCH_KEY,
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
    shown = search_box()
    if shown:
        st.markdown(" · ".join(f"[{t(f'glossary.{term}.name')}](#{anchor(term)})" for term in shown))
    for term in shown:
        name = t(f"glossary.{term}.name")
        st.subheader(name, anchor=anchor(term))
        st.markdown(f"**{t(f'glossary.{term}.short')}**")
        if box := fold(t("glossary.long_label", name=name), f"glossary_{term}"):
            with box:
                st.markdown(t(f"glossary.{term}.long"))
