"""A one-page app for tests/browser/test_browser_hostile.py: every text in the JSON file
named by $PROBE_TEXTS, escaped with md_escape and drawn by st.markdown (and the
other elements that render markdown), each in its own keyed container."""

import json
import os
from pathlib import Path

import streamlit as st

from course_app.i18n import md_escape

texts = json.loads(Path(os.environ["PROBE_TEXTS"]).read_text(encoding="utf-8"))
for i, text in enumerate(texts):
    with st.container(key=f"case_{i}"):
        st.markdown(md_escape(text))
    with st.container(key=f"caption_{i}"):
        st.caption(f"« {md_escape(text)} »")
