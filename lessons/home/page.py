"""Home page: what the course teaches, the path to the next token that it follows, the lesson
map with progress, how to use it."""

import streamlit as st

from course_app import LESSONS, hrefs, load_progress, page_link, page_start, pipeline, progress_panel, t


def main() -> None:
    page_start()
    pipeline.home_figure(hrefs())  # the path to the next token, each part linked to its lesson
    course_map()
    how_section()
    progress_section()


def course_map() -> None:
    """Every lesson as a link, with the learner's progress in it."""
    st.header(t("home.map_header"))
    learner = load_progress()
    for lesson in LESSONS:
        done, total = learner.lesson_counts(lesson)
        with st.container(border=True):  # title above the bar, so long titles wrap on a phone
            page_link(lesson, f"**{t(f'{lesson.id}.title')}**")
            visited = lesson.id in learner.visited
            status = t("home.lesson_progress", done=done, total=total) if visited else t("home.not_visited")
            st.progress(done / max(total, 1), text=status)


def how_section() -> None:
    """How to use the course."""
    st.header(t("home.how_header"))
    st.markdown(t("home.how"))


def progress_section() -> None:
    """Where the learner's progress is kept: save it to a file, load it back."""
    st.header(t("home.progress_header"))
    st.caption(t("home.progress_help"))
    progress_panel()
