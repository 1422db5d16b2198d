"""The event writer: a bounded queue, a background thread, retries while the
database is away (a real PostgreSQL server stopped and started again), and
the count of what had to be dropped, shown to the teacher."""

from __future__ import annotations

import threading
import time

import pytest

from course_app.classroom import store
from course_app.classroom.events import Writer
from course_app.classroom.store import TASK, VISIT


def _class(engine, n_learners: int = 1):
    klass = store.create_class(engine, "A", "passcode")
    return klass, [store.join(engine, klass.code, f"learner {i}") for i in range(n_learners)]


def _writer(engine, **options) -> Writer:
    return Writer(lambda batch, dropped: store.write_events(engine, batch, dropped), **options)


def test_every_event_put_is_written(engine):
    klass, seats = _class(engine, 3)
    writer = _writer(engine)
    for i in range(60):
        assert writer.put(store.new_event(seats[i % 3], VISIT if i % 2 else TASK, "bigram", f"t{i}", at=i))
    assert writer.flush(30)
    writer.stop()
    written = store.class_events(engine, klass.id)
    assert [e.item for e in written] == [f"t{i}" for i in range(60)]
    assert {e.learner_id for e in written} == {s.learner_id for s in seats}
    assert writer.written == 60 and writer.dropped_total == 0
    assert store.dropped_count(engine, klass.id) == 0


def test_a_full_queue_drops_and_counts_and_the_teacher_sees_the_count(engine):
    klass, (seat,) = _class(engine)
    writing, release = threading.Event(), threading.Event()

    def slow_write(batch, dropped):
        writing.set()
        release.wait(30)
        store.write_events(engine, batch, dropped)

    writer = Writer(slow_write, size=5)
    writer.put(store.new_event(seat, VISIT, "bigram", "first"))
    assert writing.wait(10)  # the thread holds the first event in a write that hangs
    accepted = [writer.put(store.new_event(seat, TASK, "bigram", f"t{i}")) for i in range(8)]
    assert accepted == [True] * 5 + [False] * 3
    assert writer.dropped_total == 3
    release.set()
    assert writer.flush(30)
    writer.stop()
    assert len(store.class_events(engine, klass.id)) == 1 + 5
    assert store.dropped_count(engine, klass.id) == 3


def test_events_older_than_the_retry_window_are_dropped_and_counted(engine):
    klass, (seat,) = _class(engine)
    now, down = [1000.0], [True]

    def write(batch, dropped):
        if down[0]:
            raise ConnectionError("the database is away")
        store.write_events(engine, batch, dropped)

    writer = Writer(write, keep_for=60, max_wait=0.05, clock=lambda: now[0])
    for i in range(4):
        writer.put(store.new_event(seat, TASK, "bigram", f"old{i}", at=950.0))  # 50 s old: kept
    time.sleep(0.5)
    assert writer.failures > 0 and writer.dropped_total == 0
    now[0] = 1020.0  # now 70 s old: past the window
    writer.put(store.new_event(seat, TASK, "bigram", "new", at=1015.0))
    deadline = time.monotonic() + 10
    while writer.dropped_total < 4 and time.monotonic() < deadline:
        time.sleep(0.05)
    down[0] = False
    assert writer.flush(30)
    writer.stop()
    assert [e.item for e in store.class_events(engine, klass.id)] == ["new"]
    assert store.dropped_count(engine, klass.id) == 4


def test_postgres_stopped_and_started_again_loses_no_event(pg_server):
    eng = store.make_engine(pg_server.fresh_database())
    store.upgrade(eng)
    klass, seats = _class(eng, 2)
    writer = _writer(eng, max_wait=0.5)
    writer.put(store.new_event(seats[0], VISIT, "bigram", "before"))
    assert writer.flush(30)
    pg_server.stop()
    try:
        accepted = [writer.put(store.new_event(seats[i % 2], TASK, "bigram", f"down{i}")) for i in range(20)]
        assert accepted == [True] * 20  # nothing waits for the database
        deadline = time.monotonic() + 30
        while writer.failures == 0 and time.monotonic() < deadline:
            time.sleep(0.1)
        assert writer.failures > 0 and not writer.flush(0.5)  # it is trying, and cannot yet
    finally:
        pg_server.start()
    assert writer.flush(60)
    writer.stop()
    items = [e.item for e in store.class_events(eng, klass.id)]
    assert items == ["before"] + [f"down{i}" for i in range(20)]
    assert store.dropped_count(eng, klass.id) == 0 and writer.dropped_total == 0
    eng.dispose()


def test_a_learner_event_of_an_unknown_kind_is_refused(engine):
    _, (seat,) = _class(engine)
    with pytest.raises(ValueError):
        store.new_event(seat, "drop table", "bigram")
