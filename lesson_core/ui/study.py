"""Self-study furniture: glossary look-ups, the progress file, the share link."""

from __future__ import annotations

from urllib.parse import urlencode

import streamlit as st

from lesson_core import course, progress
from lesson_core.ui.i18n import t
from lesson_core.ui.page import link_params, load_progress, save_progress


def terms(*term_ids: str) -> None:
    """A row of look-ups for the terms a section introduces: each opens a short
    definition with a link to the term in the glossary."""
    query = urlencode(link_params())
    # one row that wraps (columns would stack one button per line on a phone)
    with st.container(horizontal=True, vertical_alignment="center"):
        st.caption(t("glossary.terms_label"))
        for term in term_ids:
            with st.popover(t(f"glossary.{term}.name"), icon=":material/menu_book:", width="content"):
                st.markdown(t(f"glossary.{term}.short"))
                st.markdown(f"[{t('glossary.more')}]({glossary_path()}?{query}#{anchor(term)})")


def anchor(term_id: str) -> str:
    """The glossary page's anchor for a term."""
    return term_id.replace("_", "-")


def glossary_path() -> str:
    """The glossary page's URL path (Streamlit names it after the file)."""
    return course.GLOSSARY.split("/")[-1].removesuffix(".py").split("_", 1)[1]


def progress_panel() -> None:
    """Keep, restore or reset the progress: a JSON file to download and upload."""
    if flash := st.session_state.pop("progress_flash", None):
        kind, key = flash
        getattr(st, kind)(t(key))
    learner = load_progress()
    st.download_button(
        t("home.export"),
        progress.to_json(learner),
        file_name="attention-progress.json",
        mime="application/json",
        icon=":material/download:",
    )
    st.caption(t("ux.upload_hint", limit=st.get_option("server.maxUploadSize")))  # Streamlit's is English
    upload = st.file_uploader(t("home.import"), type=["json"], key="progress_file")
    if upload is not None and st.session_state.get("progress_file_seen") != upload.file_id:
        st.session_state.progress_file_seen = upload.file_id
        loaded, clean = progress.from_json(upload.getvalue())
        if loaded is None:
            st.error(t("home.import_failed"))
        else:  # rerun so that the course map above shows the restored progress
            save_progress(loaded)
            st.session_state.progress_flash = (
                ("success", "home.imported") if clean else ("warning", "home.imported_partly")
            )
            st.rerun()
    with st.popover(t("home.reset"), icon=":material/restart_alt:"):
        st.caption(t("home.reset_help"))
        if st.button(t("home.reset_confirm"), type="primary", key="progress_reset"):
            save_progress(progress.Progress())
            st.query_params.pop("p", None)
            st.session_state.progress_flash = ("success", "home.reset_done")
            st.rerun()
