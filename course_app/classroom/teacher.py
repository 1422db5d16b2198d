"""The teacher's page: create a class or open one with its passcode, then
the class live: the progress grid, the quiz questions hardest first, the
tasks, who is stuck, and the events the writer had to drop. Every table has
the toolbar's CSV download. Deleting the class deletes its data."""

from __future__ import annotations

import time
from datetime import datetime
from urllib.parse import urlencode, urlsplit
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

import sqlalchemy as sa
import streamlit as st

from course_app import charts, course, session
from course_app.a11y import plain_maths
from course_app.classroom import connect, report, store
from course_app.classroom.learner import problem
from course_app.classroom.limits import Limiter
from course_app.i18n import md_escape, num, pct, t, t_count

REFRESH_SECONDS = 5
WRONG_PASSCODE_DELAY = 2.0  # seconds a wrong passcode costs
# Wrong passcodes: 5 in 5 minutes per class code, 100 for the whole process.
PER_CODE, PER_PROCESS = Limiter(5, 300.0), Limiter(100, 300.0)


def pause(seconds: float) -> None:
    """The delay a wrong try costs (this session's script only waits)."""
    time.sleep(seconds)


def teacher_page() -> None:
    """The page below its title: the class opened, or the two ways in."""
    if session.pop(session.TEACHER_DELETED, False):
        st.success(t("teacher.deleted"))
    opened = session.get(session.TEACHER_CLASS)
    if opened is not None:
        class_view(opened)
        return
    open_tab, create_tab = st.tabs([t("teacher.open_header"), t("teacher.create_header")])
    with open_tab:
        open_form()
    with create_tab:
        create_form()


def create_form() -> None:
    with st.form("teacher_create"):
        name = st.text_input(t("teacher.class_name"), max_chars=store.NAME_MAX)
        passcode = st.text_input(t("teacher.passcode"), type="password", max_chars=store.PASSCODE_MAX)
        again = st.text_input(t("teacher.passcode_again"), type="password", max_chars=store.PASSCODE_MAX)
        st.caption(t_count("teacher.passcode_help", store.PASSCODE_MIN, low=store.PASSCODE_MIN))
        if not st.form_submit_button(t("teacher.create"), type="primary"):
            return
    if passcode != again:
        st.error(t("teacher.mismatch"))
        return
    try:
        created = store.create_class(connect.ready(), name, passcode)
    except store.ClassroomError as refused:
        st.error(problem(refused.code, max=store.NAME_MAX, low=store.PASSCODE_MIN))
        return
    except sa.exc.SQLAlchemyError:
        st.error(problem("database"))
        return
    session.put(session.TEACHER_CLASS, created)
    st.rerun()


def open_form() -> None:
    with st.form("teacher_open"):
        code = st.text_input(t("teacher.code"), max_chars=64)
        passcode = st.text_input(t("teacher.passcode"), type="password", max_chars=store.PASSCODE_MAX)
        if not st.form_submit_button(t("teacher.open"), type="primary"):
            return
    code = code.strip()
    wait = max(PER_CODE.wait_for(code), PER_PROCESS.wait_for("all"))
    if wait > 0:
        st.error(problem("too_many", seconds=int(wait) + 1))
        return
    try:
        opened = store.open_class(connect.ready(), code, passcode)
    except sa.exc.SQLAlchemyError:
        st.error(problem("database"))
        return
    if opened is None:
        PER_CODE.failed(code)
        PER_PROCESS.failed("all")
        pause(WRONG_PASSCODE_DELAY)
        st.error(t("teacher.wrong"))
        return
    session.put(session.TEACHER_CLASS, opened)
    st.rerun()


def join_link(code: str) -> str:
    """The home page's address with ?join=<code> (the app's root, from this page's URL)."""
    parts = urlsplit(st.context.url or "")
    root = f"{parts.scheme}://{parts.netloc}" if parts.netloc else ""
    path = (
        parts.path.rsplit("/", 1)[0] if parts.path.endswith(course.url_path(course.TEACHER)) else parts.path
    )
    return f"{root}{path.rstrip('/')}/?{urlencode({'join': code})}"


def class_view(opened: store.ClassInfo) -> None:
    st.subheader(t("teacher.class_header", name=md_escape(opened.name)))
    st.markdown(t("teacher.share"))
    st.code(join_link(opened.code), language=None, wrap_lines=True)
    st.markdown(t("teacher.code_is", code=md_escape(opened.code)))
    if st.button(t("teacher.close"), icon=":material/logout:"):
        session.pop(session.TEACHER_CLASS)
        st.rerun()
    minutes = st.number_input(t("teacher.stuck_minutes"), 1, 120, 5, key="teacher_stuck_minutes")
    live_tables(opened, minutes)
    delete_section(opened)


@st.fragment(run_every=REFRESH_SECONDS)
def live_tables(opened: store.ClassInfo, minutes: int) -> None:
    """Read the class again and draw its tables (every REFRESH_SECONDS)."""
    try:
        eng = connect.ready()
        members, events = store.class_members(eng, opened.id), store.class_events(eng, opened.id)
        dropped = store.dropped_count(eng, opened.id)
    except sa.exc.SQLAlchemyError:
        st.warning(problem("database"))
        return
    now = clock_time()
    st.caption(t_count("teacher.refreshed", REFRESH_SECONDS, time=now, seconds=REFRESH_SECONDS))
    if dropped:
        st.warning(t_count("teacher.dropped", dropped, n=dropped))
    grid_table(members, events)
    quiz_table(events)
    task_table(events)
    stuck_table(members, events, minutes)


def clock_time() -> str:
    """The time now on the teacher's clock (the browser's time zone; UTC if unknown)."""
    try:
        zone = ZoneInfo(st.context.timezone or "UTC")
    except (ZoneInfoNotFoundError, ValueError, OSError):
        zone = ZoneInfo("UTC")
    return datetime.now(zone).strftime("%H:%M:%S")


def grid_table(members: list[store.Member], events: list[store.Done]) -> None:
    st.header(t("teacher.grid_header"))
    if not members:
        st.info(t("teacher.no_learners"))
        return
    rows = report.progress_grid(members, events)
    columns: dict[str, list[str]] = {t("teacher.col_nickname"): [str(row[0]) for row in rows]}
    for i, lesson in enumerate(course.LESSONS, start=1):
        total = len(lesson.tasks) + len(lesson.quizzes)
        cells = ["—" if row[i] is None else f"{row[i]} / {total}" for row in rows]
        columns[t(f"{lesson.id}.menu")] = cells
    st.caption(t("teacher.grid_caption"))
    st.dataframe(charts.table(columns), hide_index=True)


def quiz_table(events: list[store.Done]) -> None:
    st.header(t("teacher.quiz_header"))
    rows = report.quiz_rows(events)
    st.dataframe(
        charts.table(
            {
                t("teacher.col_lesson"): [t(f"{r.lesson}.menu") for r in rows],
                t("teacher.col_share"): [pct(r.share, 0) if r.answered else "—" for r in rows],
                t("teacher.col_right_first"): [r.right_first for r in rows],
                t("teacher.col_answered"): [r.answered for r in rows],
                t("teacher.col_question"): [
                    plain_maths(t(f"{r.lesson}.quiz.{r.quiz}.question")) for r in rows
                ],
            }
        ),
        hide_index=True,
    )


def task_table(events: list[store.Done]) -> None:
    st.header(t("teacher.task_header"))
    rows = report.task_rows(events)
    numbers = {(lesson.id, task): i for lesson in course.LESSONS for i, task in enumerate(lesson.tasks, 1)}
    st.dataframe(
        charts.table(
            {
                t("teacher.col_lesson"): [t(f"{lesson}.menu") for lesson, _, _ in rows],
                t("teacher.col_task"): [
                    t("teacher.task_n", n=numbers[(lesson, task)]) for lesson, task, _ in rows
                ],
                t("teacher.col_did"): [n for _, _, n in rows],
            }
        ),
        hide_index=True,
    )


def stuck_table(members: list[store.Member], events: list[store.Done], minutes: int) -> None:
    st.header(t("teacher.stuck_header"))
    found = report.stuck(members, events, time.time(), minutes)
    if not found:
        st.info(t_count("teacher.nobody_stuck", minutes, minutes=minutes))
        return
    st.dataframe(
        charts.table(
            {
                t("teacher.col_nickname"): [s.nickname for s in found],
                t("teacher.col_lesson"): [t(f"{s.lesson}.menu") for s in found],
                t("teacher.col_minutes"): [num(s.minutes, 0) for s in found],
            }
        ),
        hide_index=True,
    )


def delete_section(opened: store.ClassInfo) -> None:
    with st.expander(t("teacher.delete_header"), icon=":material/delete:"):
        sure = st.checkbox(t("teacher.delete_confirm"), key="teacher_delete_sure")
        if st.button(t("teacher.delete"), disabled=not sure, type="primary", key="teacher_delete"):
            try:
                store.delete_class(connect.ready(), opened.id)
            except sa.exc.SQLAlchemyError:
                st.error(problem("database"))
                return
            session.pop(session.TEACHER_CLASS)
            session.put(session.TEACHER_DELETED, True)
            st.rerun()
