"""Joined learners under load: the slider's time and the class's events, end to end.

    python tests/benchmarks/class_load.py [--db sqlite,postgres] [--learners 20] [--seconds 60]
        [--think 2] [--pages attention,bigram] [--outage SECONDS] [--steady-after 20]

For each database: one app process (``streamlit run streamlit_app.py``) on a
fresh database: SQLite in a new data folder (``$CLASSROOM_DATA``), or
PostgreSQL, a server of the script's own (.ci/postgres.sh, on a free port),
given to the app as ``$CLASSROOM_DATABASE_URL`` (see
course_app/classroom/connect.py: a ``[connections.classroom]`` table in
secrets would win, so keep none in .streamlit/secrets.toml for this run).
The process is warmed up (each page opened once per language, outside any
class); a class is created with the store's API; then N Locust learners
(tests/benchmarks/streamlit_user.py ``--class-code``) each open a lesson
with ``?join=<code>``, submit the join form with a nickname of their own, and
act every ``--think`` seconds for S seconds. ``--no-join``: the same run with
learners who never join (the slider's time without a class, to compare).

Reported: each action's count, p50 / p95 / max (ms) and failures, as Locust
measured them, over the whole run (the statistics are not reset after the
ramp-up: a learner's events are counted from its join on) and, apart, over
the steady state (the actions from ``--steady-after`` seconds, 20 by
default, after the last learner started: without the queue of the
learners' arrival); the events the learners caused, as
each counted them (streamlit_user.ClassTally: visits, tasks, quiz answers);
the events the database holds for the class, by kind, and the class's
dropped count (the writer's, written with its next batch); events lost =
caused - written - dropped. With ``--outage SECONDS`` (PostgreSQL) the
server is stopped for that long in the middle of the run.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import shutil
import sys
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path
from types import SimpleNamespace

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
sys.path[:0] = [str(ROOT), str(HERE.parent), str(HERE)]

import sqlalchemy as sa
from classroom import Servers, fmt, loadavg, run_locust
from streamlit_protocol import QUIZ, STEADY, TASK, VISIT, lesson_pages

from course_app.classroom import store

KINDS = (VISIT, TASK, QUIZ)
EXPECTED = "expected"  # streamlit_user.EXPECTED: the request type of a caused event


def kind_of(stored: str) -> str:
    """The tally's kind of a stored event kind (the three answers are one: quiz)."""
    return QUIZ if stored.startswith("quiz") else stored


def database_events(eng: sa.Engine, class_id: int, prefix: str) -> tuple[Counter, int, int]:
    """(events by tally kind, learners whose nickname starts with ``prefix``, dropped)
    for the class."""
    with eng.connect() as conn:
        rows = conn.execute(
            sa.select(store.events.c.kind, sa.func.count())
            .where(store.events.c.class_id == class_id)
            .group_by(store.events.c.kind)
        ).all()
        joined = conn.execute(
            sa.select(sa.func.count())
            .select_from(store.learners)
            .where(store.learners.c.class_id == class_id, store.learners.c.nickname.startswith(prefix))
        ).scalar_one()
    written = Counter()
    for kind, n in rows:
        written[kind_of(kind)] += n
    return written, int(joined), store.dropped_count(eng, class_id)


def account(caused: Counter, written: Counter, dropped: int) -> dict[str, int]:
    """The events' balance: caused (the learners' count), written (the
    database's), dropped (the writer's count), lost = caused - written - dropped
    (an event written that no learner counted makes ``extra``)."""
    caused_n, written_n = sum(caused[k] for k in KINDS), sum(written[k] for k in KINDS)
    extra = sum(max(0, written[k] - caused[k]) for k in KINDS)
    lost = sum(max(0, caused[k] - written[k]) for k in KINDS) - dropped
    return {
        "caused": caused_n,
        "written": written_n,
        "dropped": dropped,
        "lost": max(lost, 0),
        "extra": extra,
    }


def settle(eng: sa.Engine, class_id: int, prefix: str, caused: Counter, timeout: float) -> tuple:
    """Wait until the database holds every caused event, or nothing changed
    for 5 s (the writer retries every few seconds at most), or ``timeout``."""
    deadline, last, since = time.monotonic() + timeout, None, time.monotonic()
    while True:
        try:
            found = database_events(eng, class_id, prefix)
        except sa.exc.SQLAlchemyError:
            found = None
        if found is not None:
            written, _, dropped = found
            if sum(written.values()) + dropped >= sum(caused.values()):
                return found
            if found != last:
                last, since = found, time.monotonic()
        if time.monotonic() > deadline or (last is not None and time.monotonic() - since > 5):
            return last if last is not None else database_events(eng, class_id, prefix)
        time.sleep(0.5)


@contextlib.contextmanager
def database(kind: str):
    """(url, environment for the app, server or None) for a fresh database."""
    if kind == "sqlite":
        folder = tempfile.mkdtemp(prefix="class-load-")
        try:
            yield f"sqlite:///{folder}/classroom.sqlite3", {"CLASSROOM_DATA": folder}, None
        finally:
            shutil.rmtree(folder, ignore_errors=True)
        return
    from helpers.classroom_db import Server

    server = Server()
    try:
        url = server.fresh_database()
        yield url, {"CLASSROOM_DATABASE_URL": url}, server
    finally:
        server.stop()
        shutil.rmtree(server.dir, ignore_errors=True)


def outage_later(server, start_after: float, seconds: float) -> threading.Thread:
    """Stop the PostgreSQL server ``start_after`` s from now, start it ``seconds`` later."""

    def run() -> None:
        time.sleep(start_after)
        print(f"  PostgreSQL stopped at +{start_after:.0f} s for {seconds:.0f} s", flush=True)
        server.stop()
        time.sleep(seconds)
        server.start()
        print("  PostgreSQL started again", flush=True)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread


def run(args, kind: str) -> dict:
    """One measured run on one database; prints and returns its figures."""
    pages = [p for p in args.pages.split(",") if p] or lesson_pages()
    prefix = f"load{os.getpid()}"
    with database(kind) as (url, env, server):
        eng = store.make_engine(url)
        store.upgrade(eng)
        made = store.create_class(eng, "class load", "passcode")
        saved = {k: os.environ.get(k) for k in ("CLASSROOM_DATA", "CLASSROOM_DATABASE_URL")}
        os.environ.pop("CLASSROOM_DATABASE_URL", None)
        os.environ.update(env)  # the app process inherits it
        try:
            setup = Servers(1)
        finally:
            for key, value in saved.items():
                os.environ.pop(key, None) if value is None else os.environ.update({key: value})
        try:
            setup.warm(pages)
            tb0 = setup.tracebacks()
            extra = ["--think", f"{args.think:g}", "--nickname-prefix", prefix]
            extra += [] if args.no_join else ["--class-code", made.code]
            extra += ["--pages", ",".join(pages), "--step-timeout", "60"]
            extra += ["--steady-after", f"{args.steady_after:g}"]
            if args.outage and server is not None:
                outage_later(server, max(0.0, (args.seconds - args.outage) / 2), args.outage)
            locust_args = SimpleNamespace(
                workers=args.workers, remote_workers=0, master_bind="127.0.0.1", seed=args.seed, verbose=False
            )
            cpu0 = setup.cpu()
            stats = run_locust(locust_args, setup.url, args.learners, args.seconds, extra)
            load = loadavg()
            cpu = setup.cpu() - cpu0
            caused = Counter(
                {
                    k.split(" ", 1)[1]: int(r["Request Count"])
                    for k, r in stats.items()
                    if k.startswith(EXPECTED + " ")
                }
            )
            written, joined, dropped = settle(eng, made.id, prefix, caused, timeout=args.outage + 60)
            tracebacks = setup.tracebacks() - tb0
        finally:
            setup.stop()
            eng.dispose()
    figures = {
        "db": kind,
        "actions": actions(whole_run(stats)),
        "steady": actions(steady_state(stats)),
        "caused": caused,
        "written": written,
        "joined": joined,
        "balance": account(caused, written, dropped),
        "load": load,
        "cpu": cpu,
        "tracebacks": tracebacks,
    }
    report(args, figures)
    return figures


def steady_row(key: str) -> bool:
    """Whether a statistics row ("<type> <name>") is an action of the steady state."""
    return key.split(" ", 1)[0].endswith(STEADY)


def whole_run(stats: dict[str, dict]) -> dict[str, dict]:
    """The statistics rows of the whole run (each action as it happened)."""
    return {key: row for key, row in stats.items() if not steady_row(key)}


def steady_state(stats: dict[str, dict]) -> dict[str, dict]:
    """The rows of the actions in the steady state (``--steady-after``), keyed as the whole run's."""
    return {key.replace(STEADY, "", 1): row for key, row in stats.items() if steady_row(key)}


def actions(stats: dict[str, dict]) -> dict[str, dict]:
    """Per action (over every page): count, failures, p50 (the busiest page's), p95 (the worst
    page's), max."""
    merged: dict[str, dict] = {}
    for key, row in stats.items():
        if not key or key.startswith(EXPECTED + " "):
            continue
        rows = merged.setdefault(key.split(" ", 1)[0], [])
        rows.append(row)
    out = {}
    for action, rows in merged.items():
        busiest = max(rows, key=lambda r: int(r["Request Count"]))
        out[action] = {
            "n": sum(int(r["Request Count"]) for r in rows),
            "fail": sum(int(r["Failure Count"]) for r in rows),
            "p50": busiest["50%"],
            "p95": max((float(r["95%"]) for r in rows if r["95%"] not in ("N/A", "")), default="N/A"),
            "max": max(float(r["Max Response Time"]) for r in rows),
        }
    return out


def print_actions(rows: dict[str, dict]) -> None:
    print(f"{'action':<8}{'n':>7}{'p50':>7}{'p95':>7}{'max':>7}{'fail':>6}")
    for action, r in sorted(rows.items()):
        print(
            f"{action:<8}{r['n']:>7}{fmt(str(r['p50'])):>7}{fmt(str(r['p95'])):>7}"
            f"{fmt(str(r['max'])):>7}{r['fail']:>6}"
        )


def report(args, f: dict) -> None:
    joined = "learners outside the class" if args.no_join else "joined learners"
    print(f"\n== {f['db']}: {args.learners} {joined}, think {args.think:g} s, {args.seconds:.0f} s")
    print_actions(f["actions"])
    if f["steady"]:
        print(f"the steady state, from {args.steady_after:g} s after the last learner started:")
        print_actions(f["steady"])
    print(f"learners in the class (database): {f['joined']} of {args.learners}")
    for k in KINDS:
        print(f"  {k:<6} caused {f['caused'][k]:>6}   written {f['written'][k]:>6}")
    b = f["balance"]
    print(
        f"events caused (put) {b['caused']}, written {b['written']}, dropped {b['dropped']}, "
        f"lost {b['lost']}, extra {b['extra']}"
    )
    n_actions = sum(r["n"] for r in f["actions"].values())
    print(
        f"server CPU {f['cpu']:.0f} s ({1000 * f['cpu'] / max(n_actions, 1):.0f} ms per action), "
        f"tracebacks {f['tracebacks']}, load average {f['load']}",
        flush=True,
    )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--db", default="sqlite,postgres", help="databases, comma-separated: sqlite, postgres"
    )
    parser.add_argument("--learners", type=int, default=20)
    parser.add_argument("--seconds", type=float, default=60)
    parser.add_argument("--think", type=float, default=2.0, help="seconds between a learner's actions (mean)")
    parser.add_argument("--pages", default="", help="lesson pages (URL paths), comma-separated; default: all")
    parser.add_argument("--outage", type=float, default=0, help="PostgreSQL: stop it this long mid-run")
    parser.add_argument("--workers", type=int, default=1, help="local Locust worker processes")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--steady-after",
        type=float,
        default=20,
        help="seconds after the last learner started from when the actions are also reported "
        "apart (the steady state, without the ramp-up's first page loads and joins); 0: not",
    )
    parser.add_argument(
        "--no-join", action="store_true", help="the same run with learners outside any class (to compare)"
    )
    args = parser.parse_args()
    results = [run(args, kind.strip()) for kind in args.db.split(",") if kind.strip()]
    lost = sum(r["balance"]["lost"] + r["balance"]["extra"] for r in results)
    sys.exit(1 if lost else 0)


if __name__ == "__main__":
    main()
