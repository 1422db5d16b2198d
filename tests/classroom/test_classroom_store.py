"""The class's database, against SQLite and a real PostgreSQL server: schema
and upgrade, classes and passcodes, hostile names, isolation between
classes, and the teacher's tables against small classes counted by hand."""

from __future__ import annotations

import string
import threading

import pytest
import sqlalchemy as sa

from course_app.classroom import report, store
from course_app.classroom.store import (
    QUIZ_FIRST_RIGHT,
    QUIZ_FIRST_WRONG,
    QUIZ_RIGHT,
    TASK,
    VISIT,
    ClassroomError,
)


def test_a_new_database_is_brought_to_the_current_version(db_url):
    eng = store.make_engine(db_url)
    assert store.version(eng) == 0
    assert store.upgrade(eng) == 2
    assert store.upgrade(eng) == 2  # a second start changes nothing
    names = set(sa.inspect(eng).get_table_names())
    assert {"schema_version", "classes", "learners", "events"} <= names
    if eng.dialect.name == "sqlite":
        with eng.connect() as conn:
            assert conn.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"


def test_a_version_1_database_is_upgraded_with_its_data(db_url):
    eng = store.make_engine(db_url)
    assert store.upgrade(eng, to=1) == 1
    columns = {c["name"] for c in sa.inspect(eng).get_columns("classes")}
    assert "dropped" not in columns  # version 1 had no dropped count
    with eng.begin() as conn:  # a class, a learner and an event written by version 1
        conn.execute(
            sa.text("INSERT INTO classes (code, name, salt, passhash, created) VALUES (:c, :n, :s, :h, 1.0)"),
            {"c": "old-code", "n": "1-A", "s": "00", "h": "ff"},
        )
        class_id = conn.execute(sa.text("SELECT id FROM classes")).scalar_one()
        conn.execute(
            sa.text(
                "INSERT INTO learners (class_id, nickname, token, joined) VALUES (:c, 'ann', 'tok', 2.0)"
            ),
            {"c": class_id},
        )
        learner_id = conn.execute(sa.text("SELECT id FROM learners")).scalar_one()
        conn.execute(
            sa.text(
                "INSERT INTO events (uid, class_id, learner_id, kind, lesson, item, at)"
                " VALUES ('u1', :c, :l, 'visit', 'attention', '', 3.0)"
            ),
            {"c": class_id, "l": learner_id},
        )
    assert store.upgrade(eng) == 2
    assert store.find_class(eng, "old-code") == store.ClassInfo(class_id, "old-code", "1-A", 0)
    assert store.class_events(eng, class_id) == [store.Done(learner_id, VISIT, "attention", "", 3.0)]
    store.write_events(eng, [], {class_id: 4})
    assert store.dropped_count(eng, class_id) == 4


def test_two_processes_starting_together_upgrade_once(db_url):
    engines = [store.make_engine(db_url) for _ in range(2)]
    results, errors = [], []

    def start(eng):
        try:
            results.append(store.upgrade(eng))
        except Exception as error:  # pragma: no cover - the failure is reported below
            errors.append(error)

    threads = [threading.Thread(target=start, args=(eng,)) for eng in engines]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == [] and results == [2, 2]
    with engines[0].connect() as conn:
        assert conn.execute(sa.text("SELECT COUNT(*) FROM schema_version")).scalar_one() == 1


def test_two_processes_opening_a_new_sqlite_file_together_both_get_in(tmp_path):
    """The first connections to a new file race to switch it to WAL; SQLite
    refuses the loser at once (no busy wait). Twenty new files, two engines each."""
    errors = []

    def start(eng):
        try:
            store.upgrade(eng)
        except Exception as error:  # pragma: no cover - the failure is reported below
            errors.append(error)

    for round_ in range(20):
        url = f"sqlite:///{tmp_path / f'race-{round_}.sqlite3'}"
        engines = [store.make_engine(url) for _ in range(2)]
        threads = [threading.Thread(target=start, args=(eng,)) for eng in engines]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        for eng in engines:
            eng.dispose()
    assert errors == []


def test_a_class_code_is_long_random_and_url_safe(engine):
    codes = {store.create_class(engine, f"class {i}", "secret-1").code for i in range(8)}
    assert len(codes) == 8
    for code in codes:
        assert len(code) == 16 and set(code) <= set(string.ascii_letters + string.digits + "-_")


def test_the_passcode_is_kept_only_as_a_salted_hash(engine):
    a = store.create_class(engine, "A", "same passcode")
    b = store.create_class(engine, "B", "same passcode")
    with engine.connect() as conn:
        rows = conn.execute(sa.select(store.classes.c.salt, store.classes.c.passhash)).all()
    assert len({salt for salt, _ in rows}) == 2 and len({h for _, h in rows}) == 2
    assert all("same passcode" not in salt + h for salt, h in rows)
    assert store.open_class(engine, a.code, "same passcode") == a
    assert store.open_class(engine, b.code, "same passcode") == b


@pytest.mark.parametrize("wrong", ["", "same passcod", "same passcode ", "SAME PASSCODE", "x" * 10_000])
def test_a_wrong_passcode_opens_nothing(engine, wrong):
    klass = store.create_class(engine, "A", "same passcode")
    assert store.open_class(engine, klass.code, wrong) is None
    assert store.open_class(engine, "no-such-code", "same passcode") is None
    assert store.open_class(engine, klass.code + "x", "same passcode") is None


@pytest.mark.parametrize("passcode", ["", "12345", "x" * 129])
def test_a_passcode_too_short_or_too_long_is_refused(engine, passcode):
    with pytest.raises(ClassroomError) as refused:
        store.create_class(engine, "A", passcode)
    assert refused.value.code == "passcode_length"


HOSTILE = [
    "<script>alert(1)</script>",
    "'; DROP TABLE learners; --",
    "**bold** [link](http://x.y) :red[z] $x$",
    "Robert'); DELETE FROM events;--",
    "ねこ" * 20,  # exactly 40 characters
    "😀 emoji 😀",
    "%s %(x)s {0} \\",
]


@pytest.mark.parametrize("name", HOSTILE)
def test_hostile_names_are_kept_exactly_as_typed(engine, name):
    klass = store.create_class(engine, name, "passcode")
    seat = store.join(engine, klass.code, name)
    assert store.find_class(engine, klass.code).name == name
    assert seat.nickname == name and seat.class_name == name
    assert [m.nickname for m in store.class_members(engine, klass.id)] == [name]
    assert set(sa.inspect(engine).get_table_names()) >= {"classes", "learners", "events"}


@pytest.mark.parametrize(
    ("name", "problem"),
    [
        ("", "name_empty"),
        ("   ", "name_empty"),
        ("x" * 41, "name_long"),
        ("a\x00b", "name_control"),
        ("a\nb", "name_control"),
        ("a\x9bb", "name_control"),
    ],
)
def test_bad_names_are_refused_with_a_reason(engine, name, problem):
    with pytest.raises(ClassroomError) as refused:
        store.create_class(engine, name, "passcode")
    assert refused.value.code == problem
    klass = store.create_class(engine, "A", "passcode")
    with pytest.raises(ClassroomError) as refused:
        store.join(engine, klass.code, name)
    assert refused.value.code == problem


def test_a_nickname_is_unique_in_its_class_only(engine):
    a = store.create_class(engine, "A", "passcode")
    b = store.create_class(engine, "B", "passcode")
    store.join(engine, a.code, "ann")
    for taken in ("ann", "  ann "):
        with pytest.raises(ClassroomError) as refused:
            store.join(engine, a.code, taken)
        assert refused.value.code == "nickname_taken"
    assert store.join(engine, b.code, "ann").class_id == b.id  # another class may have its own ann
    assert store.join(engine, a.code, "Ann").nickname == "Ann"


@pytest.mark.parametrize("code", ["", "nope", "x" * 33, "' OR '1'='1", "%"])
def test_joining_a_class_that_does_not_exist_is_refused(engine, code):
    store.create_class(engine, "A", "passcode")
    with pytest.raises(ClassroomError) as refused:
        store.join(engine, code, "ann")
    assert refused.value.code == "no_class"


def test_a_seat_is_found_by_its_token_until_the_learner_leaves(engine):
    klass = store.create_class(engine, "A", "passcode")
    seat = store.join(engine, klass.code, "ann")
    assert store.seat_of(engine, seat.token) == seat
    assert store.seat_of(engine, "not-a-token") is None
    store.leave(engine, seat)
    assert store.seat_of(engine, seat.token) is None
    assert store.class_members(engine, klass.id) == [store.Member(seat.learner_id, "ann", True)]


def _say(seat, kind, lesson, item, at):
    return store.new_event(seat, kind, lesson, item, at=at)


def hand_counted_class(engine):
    """The small class of the tests below (times in seconds)."""
    klass = store.create_class(engine, "1-A", "passcode")
    ann, bob, cy, dan = (store.join(engine, klass.code, n) for n in ("ann", "bob", "cy", "dan"))
    batch = [
        _say(ann, VISIT, "attention", "", 1000),
        _say(ann, TASK, "attention", "equal", 1010),
        _say(ann, QUIZ_FIRST_WRONG, "attention", "q1", 1020),
        _say(ann, QUIZ_RIGHT, "attention", "q1", 1030),
        _say(ann, QUIZ_FIRST_RIGHT, "attention", "q2", 1040),
        _say(ann, VISIT, "bigram", "", 1050),
        _say(bob, VISIT, "attention", "", 1000),
        _say(bob, QUIZ_FIRST_RIGHT, "attention", "q1", 1100),
        _say(bob, QUIZ_FIRST_WRONG, "attention", "q2", 1110),
        _say(bob, TASK, "attention", "equal", 1120),
        _say(bob, TASK, "attention", "flat", 1130),
        _say(cy, VISIT, "bigram", "", 1000),
        _say(dan, VISIT, "attention", "", 1190),
        _say(dan, QUIZ_FIRST_WRONG, "attention", "q1", 1200),
        _say(dan, QUIZ_FIRST_RIGHT, "attention", "q2", 1210),
        _say(dan, QUIZ_FIRST_RIGHT, "attention", "q1", 1300),  # a second "first" try after a reload
    ]
    store.write_events(engine, batch)
    store.leave(engine, cy)
    return klass


def test_the_progress_grid_of_a_hand_counted_class(engine):
    klass = hand_counted_class(engine)
    members, events = store.class_members(engine, klass.id), store.class_events(engine, klass.id)
    rest = [None] * 6  # scaling ... todays_llms: nobody went there
    assert report.progress_grid(members, events) == [
        ["ann", 0, 3, *rest],  # bigram visited, nothing done; equal, q1 (later), q2
        ["bob", None, 3, *rest],  # q1, equal, flat
        ["cy", 0, None, *rest],
        ["dan", None, 2, *rest],  # q2, and q1 right after a reload
    ]


def test_the_quiz_questions_hardest_first_of_a_hand_counted_class(engine):
    klass = hand_counted_class(engine)
    rows = report.quiz_rows(store.class_events(engine, klass.id))
    # q1: ann wrong, bob right, dan wrong (his later "first" try does not count) -> 1 of 3
    # q2: ann right, bob wrong, dan right -> 2 of 3
    assert rows[:2] == [report.QuizRow("attention", "q1", 3, 1), report.QuizRow("attention", "q2", 3, 2)]
    assert rows[2] == report.QuizRow("bigram", "q1", 0, 0)  # then the unanswered, in course order
    assert len(rows) == 3 + 3 + 3 + 3 + 3 + 3 + 3 + 4
    assert rows[0].share == pytest.approx(1 / 3) and rows[2].share == 0


def test_the_tasks_of_a_hand_counted_class(engine):
    klass = hand_counted_class(engine)
    rows = report.task_rows(store.class_events(engine, klass.id))
    counts = {(lesson, task): n for lesson, task, n in rows}
    assert counts[("attention", "equal")] == 2 and counts[("attention", "flat")] == 1
    assert counts[("attention", "fish_half")] == 0 and sum(counts.values()) == 3
    assert rows[0] == ("bigram", "t1", 0)


def test_who_is_stuck_in_a_hand_counted_class(engine):
    klass = hand_counted_class(engine)
    members, events = store.class_members(engine, klass.id), store.class_events(engine, klass.id)
    # at 1600: ann on bigram since 1050 (550 s), bob on attention, last done 1130 (470 s),
    # dan on attention, last done 1300 (300 s, exactly 5 min); cy left
    found = report.stuck(members, events, now=1600, minutes=5)
    assert [(s.nickname, s.lesson) for s in found] == [
        ("ann", "bigram"),
        ("bob", "attention"),
        ("dan", "attention"),
    ]
    assert [s.minutes for s in found] == pytest.approx([550 / 60, 470 / 60, 5.0])
    assert [s.nickname for s in report.stuck(members, events, now=1600, minutes=8)] == ["ann"]
    assert report.stuck(members, events, now=1600, minutes=10) == []


def test_a_lesson_finished_is_not_stuck(engine):
    klass = store.create_class(engine, "A", "passcode")
    seat = store.join(engine, klass.code, "ann")
    batch = [_say(seat, VISIT, "scaling", "", 0)]
    batch += [_say(seat, TASK, "scaling", t, 1) for t in ("raw_one_hot", "one_hot", "undo_scaling")]
    batch += [_say(seat, QUIZ_FIRST_RIGHT, "scaling", q, 2) for q in ("q1", "q2", "q3")]
    store.write_events(engine, batch)
    members, events = store.class_members(engine, klass.id), store.class_events(engine, klass.id)
    assert report.stuck(members, events, now=10_000, minutes=1) == []
    assert report.stuck(members, events[:-1], now=10_000, minutes=1)[0].lesson == "scaling"


def test_classes_see_only_their_own_learners_and_events(engine):
    a, b = store.create_class(engine, "A", "passcode"), store.create_class(engine, "B", "passcode")
    ann_a, ann_b = store.join(engine, a.code, "ann"), store.join(engine, b.code, "ann")
    store.write_events(engine, [_say(ann_a, VISIT, "bigram", "", 1), _say(ann_b, TASK, "bigram", "t1", 2)])
    assert store.class_events(engine, a.id) == [store.Done(ann_a.learner_id, VISIT, "bigram", "", 1.0)]
    assert store.class_events(engine, b.id) == [store.Done(ann_b.learner_id, TASK, "bigram", "t1", 2.0)]
    assert [m.id for m in store.class_members(engine, a.id)] == [ann_a.learner_id]


def test_deleting_a_class_deletes_its_data_and_nothing_else(engine):
    a, b = store.create_class(engine, "A", "passcode"), store.create_class(engine, "B", "passcode")
    ann_a, ann_b = store.join(engine, a.code, "ann"), store.join(engine, b.code, "bob")
    store.write_events(engine, [_say(ann_a, VISIT, "bigram", "", 1), _say(ann_b, VISIT, "bigram", "", 2)])
    store.delete_class(engine, a.id)
    assert store.find_class(engine, a.code) is None and store.seat_of(engine, ann_a.token) is None
    with engine.connect() as conn:
        assert conn.execute(sa.select(sa.func.count()).select_from(store.events)).scalar_one() == 1
        assert conn.execute(sa.select(sa.func.count()).select_from(store.learners)).scalar_one() == 1
    assert len(store.class_events(engine, b.id)) == 1
    # a learner of the deleted class still sending: dropped quietly, the others still written
    store.write_events(
        engine, [_say(ann_a, VISIT, "attention", "", 3), _say(ann_b, VISIT, "attention", "", 4)]
    )
    assert len(store.class_events(engine, b.id)) == 2


def test_a_batch_written_twice_lands_once(engine):
    klass = store.create_class(engine, "A", "passcode")
    seat = store.join(engine, klass.code, "ann")
    batch = [_say(seat, VISIT, "bigram", "", 1), _say(seat, TASK, "bigram", "t1", 2)]
    store.write_events(engine, batch)
    store.write_events(engine, [*batch, _say(seat, TASK, "bigram", "t2", 3)])
    assert [e.item for e in store.class_events(engine, klass.id)] == ["", "t1", "t2"]
