"""The load test's joined learners (tests/benchmarks/class_load.py): the join
form submitted over Streamlit's protocol to a real app process with its own
empty data folder (SQLite), the class events a learner counts against those
the database holds, on a hand-counted case, and a short Locust run of three
joined learners."""

from __future__ import annotations

import csv
import importlib.util
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest
import sqlalchemy as sa
from helpers.apprun import running_app

from course_app.classroom import store
from course_app.course import BY_ID

BENCH = Path(__file__).resolve().parents[1] / "benchmarks"
sys.path.insert(0, str(BENCH))
from class_load import account, actions, database_events, steady_state, whole_run  # noqa: E402
from streamlit_protocol import QUIZ, TASK, VISIT, ClassTally, StreamlitSession  # noqa: E402


@pytest.fixture(scope="module")
def class_app(tmp_path_factory):
    """(url, engine) of an app process on a fresh SQLite data folder."""
    folder = tmp_path_factory.mktemp("class-load")
    eng = store.make_engine(f"sqlite:///{folder / 'classroom.sqlite3'}")
    store.upgrade(eng)
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("CLASSROOM_DATA", str(folder))
        patch.delenv("CLASSROOM_DATABASE_URL", raising=False)
        with running_app() as url:
            yield url, eng
    eng.dispose()


def wait_for(eng, class_id: int, prefix: str, total: int, timeout: float = 30) -> tuple:
    """The class's events once the writer has written ``total`` of them (or timeout)."""
    deadline = time.monotonic() + timeout
    while True:
        found = database_events(eng, class_id, prefix)
        if sum(found[0].values()) >= total or time.monotonic() > deadline:
            return found
        time.sleep(0.3)


def test_the_balance_of_a_hand_counted_case():
    caused = Counter({VISIT: 3, TASK: 2, QUIZ: 4})
    assert account(caused, Counter(caused), 0) == {
        "caused": 9,
        "written": 9,
        "dropped": 0,
        "lost": 0,
        "extra": 0,
    }
    # one task never written, one quiz answer dropped (and counted) by the writer
    written = Counter({VISIT: 3, TASK: 1, QUIZ: 3})
    assert account(caused, written, 1) == {"caused": 9, "written": 7, "dropped": 1, "lost": 1, "extra": 0}
    # a visit nobody counted
    assert account(caused, Counter({VISIT: 4, TASK: 2, QUIZ: 4}), 0)["extra"] == 1


def stats_row(count: int, p95: int, failures: int = 0) -> dict[str, str]:
    """A row of Locust's statistics CSV, as run_locust returns it."""
    return {
        "Request Count": str(count),
        "Failure Count": str(failures),
        "50%": "20",
        "95%": str(p95),
        "Max Response Time": str(p95 + 100),
    }


def test_the_steady_state_rows_are_reported_apart_from_the_whole_run():
    stats = {
        "": stats_row(70, 900),  # Locust's aggregate row
        "slider attention": stats_row(50, 480, failures=1),
        "slider bigram": stats_row(30, 300),
        "slider:steady attention": stats_row(40, 220),
        "slider:steady bigram": stats_row(20, 150),
        "join attention": stats_row(10, 3000),
        "expected visit": stats_row(12, 0),
    }
    whole, steady = actions(whole_run(stats)), actions(steady_state(stats))
    assert set(whole) == {"slider", "join"} and set(steady) == {"slider"}
    assert (whole["slider"]["n"], whole["slider"]["p95"], whole["slider"]["fail"]) == (80, 480.0, 1)
    assert (steady["slider"]["n"], steady["slider"]["p95"]) == (60, 220.0)  # the worst page's p95


def test_a_learner_joins_over_the_protocol_and_its_events_are_counted(class_app):
    url, eng = class_app
    made = store.create_class(eng, "protocol", "passcode")
    session, tally = StreamlitSession(url, timeout=120), ClassTally()
    try:
        session.open("attention", f"lang=en&join={made.code}")
        fields = {"classroom_code": made.code, "classroom_nickname": "by hand"}
        tally.around(session, lambda: session.submit_form(fields))
        assert "seat=" in session.query and session.keyed("classroom_leave") is not None
        tally.add(VISIT)  # 1 visit: the run after joining
        lesson = BY_ID["attention"]
        question = lesson.quizzes[0]
        radio = session.keyed(f"attention_{question.id}")
        wrong = (question.answer + 1) % len(radio.options)
        for choice in (wrong, question.answer, question.answer):  # first wrong, then right, then the same
            radio = session.keyed(f"attention_{question.id}")
            radio.value = choice
            tally.around(session, lambda radio=radio: session.rerun(radio.fragment_id), radio)
        session.follow_menu("bigram")
        tally.add(VISIT)  # 1 visit: another lesson through the menu
    finally:
        session.close()
    assert tally.counts[VISIT] == 2 and tally.counts[QUIZ] == 2  # counted by hand
    written, joined, dropped = wait_for(eng, made.id, "by hand", sum(tally.counts.values()))
    assert joined == 1 and dropped == 0
    assert written == tally.counts
    with eng.connect() as conn:
        kinds = conn.execute(
            sa.select(store.events.c.kind)
            .where(store.events.c.class_id == made.id, store.events.c.lesson == "attention")
            .where(store.events.c.item == question.id)
            .order_by(store.events.c.at)
        ).scalars()
        assert list(kinds) == [store.QUIZ_FIRST_WRONG, store.QUIZ_RIGHT]


@pytest.mark.slow
@pytest.mark.xfail(
    reason="open: the database often holds one event more than the Locust learners reported "
    "(an event of the last action before Locust stops them is written but not counted); "
    "the hand-counted test above checks the accounting against a real app",
    strict=False,
)
def test_three_joined_locust_learners_for_ten_seconds(class_app, tmp_path):
    if importlib.util.find_spec("locust") is None:
        pytest.skip("Locust is not installed (pip install -e .[bench])")
    url, eng = class_app
    made = store.create_class(eng, "locust", "passcode")
    cmd = [sys.executable, "-m", "locust", "-f", str(BENCH / "streamlit_user.py"), "--headless"]
    cmd += ["-H", url, "-u", "3", "-r", "3", "-t", "10s", "--think", "1", "--stop-timeout", "10"]
    cmd += ["--class-code", made.code, "--nickname-prefix", "three", "--pages", "attention,bigram"]
    cmd += ["--csv", str(tmp_path / "run"), "--only-summary"]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=180)
    assert (tmp_path / "run_stats.csv").exists(), (done.returncode, done.stdout[-2000:], done.stderr[-2000:])
    with (tmp_path / "run_stats.csv").open() as f:
        stats = {(r["Type"], r["Name"]): r for r in csv.DictReader(f)}
    joins = sum(int(r["Request Count"]) for (kind, _), r in stats.items() if kind == "join")
    assert joins == 3, done.stdout[-2000:]
    assert int(stats[("", "Aggregated")]["Failure Count"]) == 0, done.stdout[-2000:]
    caused = Counter(
        {name: int(r["Request Count"]) for (kind, name), r in stats.items() if kind == "expected"}
    )
    written, joined, dropped = wait_for(eng, made.id, "three", sum(caused.values()))
    assert joined == 3 and caused[VISIT] >= 3
    balance = account(caused, written, dropped) | {"caused": 0, "written": 0}
    assert balance == {"caused": 0, "written": 0, "dropped": 0, "lost": 0, "extra": 0}, (caused, written)
    with eng.connect() as conn:
        nicknames = conn.execute(
            sa.select(store.learners.c.nickname)
            .distinct()
            .join(store.events, store.events.c.learner_id == store.learners.c.id)
            .where(store.events.c.class_id == made.id)
        ).scalars()
        assert sorted(n.split("-")[0] for n in nicknames) == ["three"] * 3
