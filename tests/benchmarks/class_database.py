"""The class's database under a class's load (docs/serving.md, "A class and its teacher").

    python tests/benchmarks/class_database.py teacher [--db sqlite|postgres] [--learners 100]
    python tests/benchmarks/class_database.py outage [--db sqlite|postgres] [--learners 100]
        [--before 30] [--down 60] [--after 30]

teacher: a class of N learners with a full course of events each (every
lesson visited, every task done, every quiz question answered, a third of
them wrong first and right later); the teacher's page is run through AppTest
(the server's own script runner, no browser) and each full run is timed, as
is the database read and the tables' computation alone. Median of 7.

outage: N learners each send an event every 2 s (spread evenly) into the
app's writer for before + down + after seconds; with --db postgres the
server is stopped for the middle ``down`` seconds (with sqlite nothing is
stopped). Prints the time each put() took (p50, p95, max: what a learner's
page waits), events put, written, dropped, and the failed writes.

PostgreSQL is a server of the script's own (.ci/postgres.sh, port 5440).
"""

from __future__ import annotations

import argparse
import itertools
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parent.parent), str(HERE.parent)]

from helpers.classroom_db import Server

from course_app.classroom import events, report, store
from course_app.course import LESSONS


def database(kind: str):
    """(url, server or None) for a fresh database of ``kind``."""
    if kind == "sqlite":
        return f"sqlite:///{tempfile.mkdtemp(prefix='classbench-')}/classroom.sqlite3", None
    server = Server()
    return server.fresh_database(), server


def full_course(seat: store.Seat, start: float, learner: int) -> list[store.Event]:
    """Every visit, task and quiz answer of one learner, a minute apart."""
    at, batch = itertools.count(start, 60.0), []
    for lesson in LESSONS:
        batch.append(store.new_event(seat, store.VISIT, lesson.id, at=next(at)))
        batch += [store.new_event(seat, store.TASK, lesson.id, task, at=next(at)) for task in lesson.tasks]
        for i, quiz in enumerate(lesson.quizzes):
            if (learner + i) % 3:
                batch.append(store.new_event(seat, store.QUIZ_FIRST_RIGHT, lesson.id, quiz.id, at=next(at)))
            else:
                batch.append(store.new_event(seat, store.QUIZ_FIRST_WRONG, lesson.id, quiz.id, at=next(at)))
                batch.append(store.new_event(seat, store.QUIZ_RIGHT, lesson.id, quiz.id, at=next(at)))
    return batch


def teacher(kind: str, learners: int) -> None:
    from streamlit.testing.v1 import AppTest

    url, server = database(kind)
    eng = store.make_engine(url)
    store.upgrade(eng)
    made = store.create_class(eng, "bench", "passcode")
    seats = [store.join(eng, made.code, f"learner {i}") for i in range(learners)]
    n = 0
    for i, seat in enumerate(seats):
        batch = full_course(seat, time.time() - 3 * 3600, i)
        store.write_events(eng, batch)
        n += len(batch)
    reads, tables, pages = [], [], []
    for _ in range(7):
        t0 = time.perf_counter()
        members, done = store.class_members(eng, made.id), store.class_events(eng, made.id)
        t1 = time.perf_counter()
        report.progress_grid(members, done), report.quiz_rows(done), report.task_rows(done)
        report.stuck(members, done, time.time(), 5)
        t2 = time.perf_counter()
        reads.append(t1 - t0)
        tables.append(t2 - t1)
    os.environ["CLASSROOM_DATABASE_URL"] = url  # the page reads the same database
    at = AppTest.from_file(str(HERE.parent.parent / "streamlit_app.py"), default_timeout=120)
    at.query_params["lang"] = "en"
    at.run()
    at.session_state["teacher_class"] = made
    at.switch_page("pages/11_teacher.py").run()  # the first run imports and connects
    for _ in range(7):
        t0 = time.perf_counter()
        at.run()
        pages.append(time.perf_counter() - t0)
        assert not at.exception, at.exception
    assert f"learner {learners - 1}" in at.dataframe[0].value.iloc[:, 0].tolist()
    print(f"{kind}: {learners} learners, {n} events")
    print(f"  read the class (members + events): median {1000 * statistics.median(reads):.0f} ms")
    print(f"  compute the four tables:           median {1000 * statistics.median(tables):.0f} ms")
    print(f"  the teacher's page, a full run:    median {1000 * statistics.median(pages):.0f} ms")
    if server:
        server.stop()


def outage(kind: str, learners: int, before: float, down: float, after: float) -> None:
    url, server = database(kind)
    eng = store.make_engine(url)
    store.upgrade(eng)
    made = store.create_class(eng, "bench", "passcode")
    seats = [store.join(eng, made.code, f"learner {i}") for i in range(learners)]
    writer = events.Writer(lambda batch, dropped: store.write_events(eng, batch, dropped))
    waits, put, start = [], 0, time.monotonic()
    stopped = restarted = False
    gap = 2.0 / learners  # each learner every 2 s, spread evenly
    while (elapsed := time.monotonic() - start) < before + down + after:
        if server and not stopped and elapsed >= before:
            server.stop()
            stopped = True
            print(f"  server stopped at {elapsed:.0f} s")
        if server and stopped and not restarted and elapsed >= before + down:
            server.start()
            restarted = True
            print(f"  server started again at {elapsed:.0f} s")
        seat = seats[put % learners]
        t0 = time.perf_counter()
        writer.put(store.new_event(seat, store.TASK, "bigram", f"e{put}"))
        waits.append(time.perf_counter() - t0)
        put += 1
        time.sleep(max(0.0, start + put * gap - time.monotonic()))
    flushed = writer.flush(300)
    writer.stop()
    written = len(store.class_events(eng, made.id))
    waits.sort()
    what = "down" if server else "(nothing stopped)"
    print(f"{kind}: {learners} learners, {before:.0f} s + {down:.0f} s {what} + {after:.0f} s")
    p50, p95 = waits[len(waits) // 2], waits[int(len(waits) * 0.95)]
    print(f"  put(): p50 {1e6 * p50:.0f} µs, p95 {1e6 * p95:.0f} µs, max {1e3 * waits[-1]:.1f} ms")
    print(
        f"  events put {put}, written {written}, dropped {store.dropped_count(eng, made.id)},"
        f" failed writes {writer.failures}, all flushed: {flushed}"
    )
    if server:
        server.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("scenario", choices=["teacher", "outage"])
    parser.add_argument("--db", choices=["sqlite", "postgres"], default="sqlite")
    parser.add_argument("--learners", type=int, default=100)
    parser.add_argument("--before", type=float, default=30)
    parser.add_argument("--down", type=float, default=60)
    parser.add_argument("--after", type=float, default=30)
    args = parser.parse_args()
    if args.scenario == "teacher":
        teacher(args.db, args.learners)
    else:
        outage(args.db, args.learners, args.before, args.down, args.after)


if __name__ == "__main__":
    main()
