"""Self-study furniture: glossary look-ups, the progress file, the share link."""

from __future__ import annotations

import streamlit as st

from course_app import course, progress, session, url
from course_app.glossary import TERM_PARAM
from course_app.i18n import t
from course_app.page import link_params, load_progress, page_href, save_progress


def terms(*term_ids: str) -> None:
    """One look-up for the terms a section introduces, named on its button:
    it opens their short definitions, each with a link to the term in the
    glossary. Its content is drawn only once the learner opens it (keyed
    ``term_<group>``, where the group is the section's terms), and the whole
    row is one element: a lesson offers dozens of terms, and every element
    drawn on a first page load costs the server a message."""
    group = "-".join(term_ids)
    names = " · ".join(t(f"glossary.{term}.name") for term in term_ids)
    look_up = st.popover(
        t("glossary.terms_button", names=names),
        icon=":material/menu_book:",
        width="content",
        key=look_up_key(group),
        on_change="rerun",
    )
    if look_up.open:
        with look_up:
            params = link_params()
            st.markdown("\n\n".join(definition(term, params) for term in term_ids))


def definition(term: str, params: dict[str, str]) -> str:
    """A term's name, its short definition and the link to it in the glossary
    (markdown), which carries ``params`` (link_params()) and opens the entry's
    explanation when followed."""
    href = page_href(course.GLOSSARY, params | {TERM_PARAM: term})
    link = f"[{t('glossary.more')}]({href}#{anchor(term)})"
    return t(
        "glossary.definition", name=t(f"glossary.{term}.name"), short=t(f"glossary.{term}.short"), link=link
    )


def look_up_key(group: str) -> str:
    """The widget key of a section's look-up (its open state): ``group`` is its terms."""
    return f"term_{group}"


def anchor(term_id: str) -> str:
    """The glossary page's anchor for a term."""
    return term_id.replace("_", "-")


def _flash(kind: str, key: str, **values: object) -> None:
    session.put(session.PROGRESS_FLASH, (kind, key, values))


def _apply(how: str) -> None:
    """Merge the pending file's progress into the learner's, or replace it."""
    pending = session.pop(session.PROGRESS_PENDING, None)
    if pending is None:
        return
    before = load_progress()
    after = progress.merge(before, pending) if how == "merge" else pending
    save_progress(after)
    _flash("success", f"home.import_done_{how}", **progress.counts(after))


def _cancel() -> None:
    session.pop(session.PROGRESS_PENDING, None)
    _flash("info", "home.import_cancelled")


def _read_upload(upload) -> progress.FileReading:
    """The uploaded file, checked by name and size before its bytes are read."""
    if not upload.name.lower().endswith(".json"):
        return progress.FileReading(None, "wrong_type")
    if upload.size > progress.MAX_FILE_BYTES:
        return progress.FileReading(None, progress.TOO_BIG)
    return progress.read_file(upload.getvalue())


def progress_panel() -> None:
    """Keep, restore or reset the progress: a JSON file to download and upload.
    A file is read, summarised, and applied only when the learner chooses to
    merge it with the current progress or to replace it."""
    _show_flash()
    learner = load_progress()
    st.download_button(
        t("home.export"),
        progress.to_json(learner),
        file_name="attention-progress.json",
        mime="application/json",
        icon=":material/download:",
    )
    max_kb = progress.MAX_FILE_BYTES // 1024
    st.caption(t("ux.upload_hint", limit=max_kb))  # Streamlit's own limit line is English (hidden)
    _upload(max_kb)
    pending = session.get(session.PROGRESS_PENDING)
    if pending is not None:
        _merge_or_replace(pending, learner)
    _reset()


def _show_flash() -> None:
    """The outcome of the last action (merge, replace, cancel, reset), shown once."""
    if flash := session.pop(session.PROGRESS_FLASH, None):
        kind, key, values = flash
        getattr(st, kind)(t(key, **values))


def _upload(max_kb: int) -> None:
    """The file uploader. A newly uploaded file is read once: its problem is shown,
    or its progress kept as pending (with how many entries were skipped)."""
    upload = st.file_uploader(
        t("home.import"), key="progress_file", help=t("home.import_help", max_kb=max_kb)
    )
    if upload is not None and session.get(session.PROGRESS_FILE_SEEN) != upload.file_id:
        session.put(session.PROGRESS_FILE_SEEN, upload.file_id)
        reading = _read_upload(upload)
        session.pop(session.PROGRESS_PENDING, None)
        if reading.progress is None:
            st.error(t(f"home.import_problem.{reading.problem}", max_kb=max_kb, skipped=reading.skipped))
        else:
            session.put(session.PROGRESS_PENDING, reading.progress)
            session.put(session.PROGRESS_SKIPPED, reading.skipped)


def _merge_or_replace(pending: progress.Progress, learner: progress.Progress) -> None:
    """What the pending file holds next to the current progress, and the three
    choices: merge, replace, cancel."""
    with st.container(border=True):
        st.markdown(t("home.import_summary", **progress.counts(pending)))
        if skipped := session.get(session.PROGRESS_SKIPPED, 0):
            st.caption(t("home.import_skipped", skipped=skipped))
        st.markdown(t("home.import_current", **progress.counts(learner)))
        merge, replace, cancel = st.columns(3)
        merge.button(
            t("home.import_merge"), key="progress_merge", type="primary", on_click=_apply, args=("merge",)
        )
        replace.button(t("home.import_replace"), key="progress_replace", on_click=_apply, args=("replace",))
        cancel.button(t("home.import_cancel"), key="progress_cancel", on_click=_cancel)


def _reset() -> None:
    """Start over: a confirm button in a popover clears the progress everywhere."""
    with st.popover(t("home.reset"), icon=":material/restart_alt:"):
        st.caption(t("home.reset_help"))
        if st.button(t("home.reset_confirm"), type="primary", key="progress_reset"):
            save_progress(progress.Progress())
            url.drop(url.PROGRESS)
            _flash("success", "home.reset_done")
            st.rerun()
