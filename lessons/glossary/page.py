"""Glossary: every term the course uses, each with its own anchor (/glossary#<term>),
and an index of links to them at the top (the page is long on a phone)."""

import streamlit as st

from course_app import TERMS, anchor, page_start, t


def main() -> None:
    page_start("glossary")
    st.markdown(" · ".join(f"[{t(f'glossary.{term}.name')}](#{anchor(term)})" for term in TERMS))
    for term in TERMS:
        st.subheader(t(f"glossary.{term}.name"), anchor=anchor(term))
        st.markdown(f"**{t(f'glossary.{term}.short')}**")
        st.markdown(t(f"glossary.{term}.long"))
