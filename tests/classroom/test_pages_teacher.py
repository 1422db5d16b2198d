"""The class in the app (AppTest, SQLite in a temporary folder): the teacher
creates and opens a class, a wrong passcode is refused with a delay, a
learner joins from the link with a hostile nickname, does a task and answers
a quiz, and the teacher's tables show it; a learner who never joins touches
no database."""

from __future__ import annotations

import pytest
import streamlit as st
from helpers.apptest import all_text, assert_clean, open_page

from course_app import session
from course_app.classroom import connect, learner, store, teacher
from course_app.i18n import md_escape

TEACHER = "pages/11_teacher.py"


@pytest.fixture(autouse=True)
def fresh_data(tmp_path, monkeypatch):
    """Each test its own database file, engine and writer; no delays."""
    monkeypatch.setenv("CLASSROOM_DATA", str(tmp_path))
    monkeypatch.setattr(teacher, "pause", lambda seconds: None)
    monkeypatch.setattr(learner, "pause", lambda seconds: None)
    for limiter in (teacher.PER_CODE, teacher.PER_PROCESS, learner.PER_SESSION, learner.PER_PROCESS):
        monkeypatch.setattr(limiter, "_failures", type(limiter._failures)(limiter._failures.default_factory))
    st.cache_resource.clear()
    connect._upgraded.clear()
    yield tmp_path
    connect.writer().stop()
    st.cache_resource.clear()
    connect._upgraded.clear()


def create_class(lang: str, name: str = "1-A", passcode: str = "passcode"):
    at = open_page(TEACHER, lang)
    at.text_input[0].input(name)  # the open tab's inputs come first: code, passcode
    fields = at.text_input
    fields[2].input(name)
    fields[3].input(passcode)
    fields[4].input(passcode)
    at.button[1].click().run()
    return at


def test_the_teacher_page_renders_in_both_languages(lang):
    at = open_page(TEACHER, lang)
    assert_clean(at)
    assert [tab.label for tab in at.tabs] == [
        "クラスを開く" if lang == "ja" else "Open a class",
        "クラスを作る" if lang == "ja" else "Create a class",
    ]


def test_a_new_class_shows_its_link_and_code_and_an_empty_class(lang):
    at = create_class(lang, "<b>1-A</b> **x**")
    assert_clean(at)
    opened = at.session_state[session.TEACHER_CLASS]
    assert opened.name == "<b>1-A</b> **x**"
    assert md_escape(opened.name) in at.subheader[0].value
    assert any(f"/?join={opened.code}" in code.value for code in at.code)
    assert "Nobody has joined yet." in all_text(at) or "まだ誰も参加していません。" in all_text(at)


def test_passcodes_that_differ_or_are_short_are_refused():
    at = open_page(TEACHER, "en")
    fields = at.text_input
    fields[2].input("A")
    fields[3].input("passcode")
    fields[4].input("passcodf")
    at.button[1].click().run()
    assert "The two passcodes differ." in [e.value for e in at.error]
    fields = at.text_input
    fields[3].input("short")
    fields[4].input("short")
    at.button[1].click().run()
    assert "A passcode needs at least 6 characters." in [e.value for e in at.error]
    assert session.TEACHER_CLASS not in at.session_state


def test_a_wrong_passcode_is_refused_and_the_right_one_opens(monkeypatch):
    made = store.create_class(connect.ready(), "1-A", "right passcode")
    slept = []
    monkeypatch.setattr(teacher, "pause", slept.append)
    at = open_page(TEACHER, "en")
    at.text_input[0].input(made.code)
    at.text_input[1].input("wrong passcode")
    at.button[0].click().run()
    assert [e.value for e in at.error] == [
        "Wrong code or passcode. After several wrong tries in a row you have to wait before trying again."
    ]
    assert slept == [teacher.WRONG_PASSCODE_DELAY] and session.TEACHER_CLASS not in at.session_state
    at.text_input[1].input("right passcode")
    at.button[0].click().run()
    assert at.session_state[session.TEACHER_CLASS] == made


def test_too_many_wrong_passcodes_wait_even_with_the_right_one():
    made = store.create_class(connect.ready(), "1-A", "right passcode")
    at = open_page(TEACHER, "en")
    at.text_input[0].input(made.code)
    for _ in range(teacher.PER_CODE.allowed):
        at.text_input[1].input("wrong passcode")
        at.button[0].click().run()
    at.text_input[1].input("right passcode")
    at.button[0].click().run()
    assert any(e.value.startswith("Too many attempts failed in a row.") for e in at.error)
    assert session.TEACHER_CLASS not in at.session_state


def join(code: str, nickname: str, lang: str = "en"):
    at = open_page(None, lang, {"join": code})
    at.sidebar.text_input[0].input(code)
    at.sidebar.text_input[1].input(nickname)
    at.sidebar.button[0].click().run()
    return at


def test_a_learner_joins_from_the_link_and_the_teacher_sees_what_they_did():
    made = store.create_class(connect.ready(), "1-A", "passcode")
    nickname = "<img src=x> **ann** :red[x]"
    at = join(made.code, nickname)
    assert_clean(at)
    seat = at.session_state[session.CLASS_SEAT]
    assert seat.nickname == nickname and at.query_params["seat"] == seat.token
    assert "join" not in at.query_params
    assert md_escape(nickname) in " ".join(c.value for c in at.sidebar.caption)
    # every menu link carries the seat, so a reload on the next page stays in the class
    assert all(f"seat={seat.token}" in link.proto.query_string for link in at.get("page_link"))
    at.switch_page("pages/3_scaling.py").run()
    at.radio(key="scaling_q1").set_value(0).run()  # wrong (the answer is 2)
    at.radio(key="scaling_q1").set_value(2).run()  # then right
    assert connect.writer().flush(20)
    events = store.class_events(connect.ready(), made.id)
    assert [(e.kind, e.lesson, e.item) for e in events] == [
        (store.VISIT, "scaling", ""),
        (store.QUIZ_FIRST_WRONG, "scaling", "q1"),
        (store.QUIZ_RIGHT, "scaling", "q1"),
    ]
    teacher_view = open_page(TEACHER, "en")
    teacher_view.session_state[session.TEACHER_CLASS] = made
    teacher_view.run()
    assert_clean(teacher_view)
    grid = teacher_view.dataframe[0].value
    assert list(grid.iloc[0])[:4] == [nickname, "—", "—", "1 / 6"]


def test_a_learner_with_a_wrong_code_or_a_taken_nickname_is_told_why():
    made = store.create_class(connect.ready(), "1-A", "passcode")
    join(made.code, "ann")
    at = join("not-a-code", "bob")
    assert [e.value for e in at.error] == ["There is no class with that code. Check the code."]
    at = join(made.code, "ann")
    assert [e.value for e in at.error] == [
        "Someone in this class already uses that nickname. Choose another one."
    ]
    at = join(made.code, "x" * 40 + "\x00")
    assert session.CLASS_SEAT not in at.session_state


def test_a_reload_with_the_seat_keeps_the_learner_in_the_class_until_they_leave():
    made = store.create_class(connect.ready(), "1-A", "passcode")
    seat = join(made.code, "ann").session_state[session.CLASS_SEAT]
    at = open_page("pages/2_attention.py", "en", {"seat": seat.token})
    assert at.session_state[session.CLASS_SEAT] == seat
    at.sidebar.button(key="classroom_leave").click().run()
    assert session.CLASS_SEAT not in at.session_state and "seat" not in at.query_params
    assert store.seat_of(connect.ready(), seat.token) is None
    again = open_page("pages/2_attention.py", "en", {"seat": seat.token})
    assert session.CLASS_SEAT not in again.session_state and "seat" not in again.query_params


def test_a_learner_who_never_joins_touches_no_database(fresh_data):
    at = open_page("pages/3_scaling.py", "en")
    at.radio(key="scaling_q1").set_value(2).run()
    assert_clean(at)
    assert list(fresh_data.iterdir()) == []  # no database file was even created
    assert all("seat=" not in link.proto.query_string for link in at.get("page_link"))
