"""A learner's side of a class: the sidebar's join / leave panel, and the
hooks page.py calls when a lesson is visited, a task ticks or a quiz is
answered. For a learner who never joined, each hook is one dictionary look-up.

A joined learner's seat lives in the session and in the URL (``?seat=``, a
secret token, carried by the menu's links and dropped from shared links), so
a reload keeps the learner in the class. Nothing here reads the class's
events: a learner sees their class's name and their own nickname, no more.
"""

from __future__ import annotations

import time

import sqlalchemy as sa
import streamlit as st

from course_app import course, session, url
from course_app.classroom import connect, store
from course_app.classroom.limits import Limiter
from course_app.i18n import md_escape, t, t_count
from course_app.streamlit_private import session_id

SEAT_PARAM, JOIN_PARAM = url.SEAT, url.JOIN
FAILED_JOIN_DELAY = 1.0  # seconds a wrong class code costs
# Wrong codes: 5 a minute per session, 60 a minute for the whole process.
PER_SESSION, PER_PROCESS = Limiter(5, 60.0), Limiter(60, 60.0)


def pause(seconds: float) -> None:
    """The delay a wrong try costs (this session's script only waits)."""
    time.sleep(seconds)


_COUNTED = {"name_long": "max", "passcode_length": "low", "too_many": "seconds"}


def problem(code: str, **values: int) -> str:
    """Why a class could not be joined or created, in the learner's language."""
    key = f"classroom.problem.{code}"
    if code in _COUNTED:
        return t_count(key, values[_COUNTED[code]], **values)
    return t(key)


def seat() -> store.Seat | None:
    return session.get(session.CLASS_SEAT)


def link_params() -> dict[str, str]:
    """What the menu's links carry for a joined learner (nothing otherwise);
    on a new session's first run, the seat is first looked up from ?seat=."""
    joined = seat() or _seat_from_url()
    return {SEAT_PARAM: joined.token} if joined else {}


def _put(kind: str, lesson: str, item: str = "") -> None:
    joined = seat()
    if joined is not None:
        connect.writer().put(store.new_event(joined, kind, lesson, item))


def record_tasks(lesson_id: str, newly: set[str]) -> None:
    """Tasks just done ("<lesson>.<task>")."""
    if seat() is not None:
        for name in sorted(newly):
            _put(store.TASK, lesson_id, name.split(".", 1)[1])


def record_answer(lesson_id: str, quiz_id: str, choice: int, right: bool) -> None:
    """A quiz answer: the first try in this session (right or wrong), then a
    later right answer. The same choice drawn again by a rerun is no new answer;
    a question already right before joining has no first try."""
    if seat() is None:
        return
    key, answers = f"{lesson_id}.{quiz_id}", session.setdefault(session.CLASS_ANSWERS, {})
    if answers.get(key) == choice:
        return
    first = key not in answers
    answers[key] = choice
    progress = session.get(session.PROGRESS)
    if first and progress is not None and key in progress.quizzes:
        return
    if first:
        _put(store.QUIZ_FIRST_RIGHT if right else store.QUIZ_FIRST_WRONG, lesson_id, quiz_id)
    elif right:
        _put(store.QUIZ_RIGHT, lesson_id, quiz_id)


def learner_panel(page_id: str | None) -> None:
    """Called by every page's setup: find the seat (session or ?seat=),
    count a lesson's visit, and draw the sidebar's class panel."""
    joined = seat() or _seat_from_url()
    if joined is not None:
        if page_id in course.BY_ID and session.get(session.CLASS_VISITED) != page_id:
            session.put(session.CLASS_VISITED, page_id)
            _put(store.VISIT, page_id)
        _joined_panel(joined)
    elif code := url.get(url.JOIN):
        with st.sidebar.container(border=True):
            _join_form(code)
    else:
        panel = st.sidebar.popover(
            t("classroom.join_header"), icon=":material/groups:", key="classroom_join", on_change="rerun"
        )
        if panel.open:
            with panel:
                _join_form("")


def _seat_from_url() -> store.Seat | None:
    """The seat named by ?seat=, looked up once per session. A token that
    names no seat (the learner left, the class was deleted) is removed from
    the URL; while the database is away the learner goes on outside the
    class, and the token stays for the next visit."""
    token = url.get(url.SEAT)
    if not token:
        return None
    if session.get(session.CLASS_LOOKED) != token:
        session.put(session.CLASS_LOOKED, token)
        try:
            found = store.seat_of(connect.ready(), token)
        except sa.exc.SQLAlchemyError:
            session.put(session.CLASS_UNREACHED, True)
            return None
        if found is not None:
            session.put(session.CLASS_SEAT, found)
            return found
    if not session.get(session.CLASS_UNREACHED):
        url.drop(url.SEAT)
    return None


def _joined_panel(joined: store.Seat) -> None:
    with st.sidebar.container(border=True):
        st.caption(
            t("classroom.joined", name=md_escape(joined.class_name), nickname=md_escape(joined.nickname))
        )
        if st.button(t("classroom.leave"), key="classroom_leave", icon=":material/logout:"):
            _leave(joined)


def _leave(joined: store.Seat) -> None:
    try:
        store.leave(connect.ready(), joined)
    except sa.exc.SQLAlchemyError:
        st.error(problem("database"))
        return
    for key in (session.CLASS_SEAT, session.CLASS_VISITED, session.CLASS_ANSWERS):
        session.pop(key, None)
    url.drop(url.SEAT)
    st.rerun()


def _join_form(code: str) -> None:
    st.markdown(f"**{t('classroom.join_header')}**")
    st.caption(t("classroom.join_intro"))
    with st.form("classroom_join_form", border=False):
        typed_code = st.text_input(t("classroom.code"), value=code, max_chars=64, key="classroom_code")
        nickname = st.text_input(t("classroom.nickname"), max_chars=store.NAME_MAX, key="classroom_nickname")
        if st.form_submit_button(t("classroom.join"), type="primary"):
            _join(typed_code, nickname)


def _join(code: str, nickname: str) -> None:
    """Join, or say why not (a wrong code costs a delay; many cost a wait)."""
    wait = max(PER_SESSION.wait_for(session_id()), PER_PROCESS.wait_for("all"))
    if wait > 0:
        st.error(problem("too_many", seconds=int(wait) + 1))
        return
    try:
        joined = store.join(connect.ready(), code, nickname)
    except store.ClassroomError as refused:
        if refused.code == "no_class":
            PER_SESSION.failed(session_id())
            PER_PROCESS.failed("all")
            pause(FAILED_JOIN_DELAY)
        st.error(problem(refused.code, max=store.NAME_MAX))
        return
    except sa.exc.SQLAlchemyError:
        st.error(problem("database"))
        return
    session.put(session.CLASS_SEAT, joined)
    url.drop(url.JOIN)
    url.put(url.SEAT, joined.token)
    st.rerun()
