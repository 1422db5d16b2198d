"""Glossary: every term the course uses, each with its own anchor (/glossary#<term>),
and an index of links to them at the top (the page is long on a phone)."""

import streamlit as st

from lesson_core.glossary import TERMS
from lesson_core.ui import anchor, setup_page, t


def main() -> None:
    setup_page("glossary")
    st.title(t("glossary.title"))
    st.markdown(t("glossary.intro"))
    st.markdown(" · ".join(f"[{t(f'glossary.{term}.name')}](#{anchor(term)})" for term in TERMS))
    for term in TERMS:
        st.subheader(t(f"glossary.{term}.name"), anchor=anchor(term))
        st.markdown(f"**{t(f'glossary.{term}.short')}**")
        st.markdown(t(f"glossary.{term}.long"))
