"""Classroom load test: the standard scenarios, run with Locust, printed as one table.

    python tests/benchmarks/classroom.py                     # every scenario, ~45 minutes
    python tests/benchmarks/classroom.py --quick             # every scenario, short and small (~5 min)
    python tests/benchmarks/classroom.py --only grid,burst   # some of them
    python tests/benchmarks/classroom.py --url http://HOST:8080 --only grid   # a setup running elsewhere

Scenarios (``--only``; each is a fixed number of learners for a fixed time):

- ``cpu``: server CPU per slider move and per first page load, this app's
  attention and capstone pages against a bare app (one slider, one Altair
  chart), all in one run: one client acts alone, in turn, on a fresh
  process of each app; CPU is the process's utime + stime from /proc
  before and after.
- ``grid``: 1, 20, 50 and 100 learners acting every 1, 2 and 5 s (a
  learner reads 0.5-1.5 x that between actions), each on a random lesson,
  following the menu to another now and then; one app process.
- ``pages``: the attention and capstone lessons alone, 50 learners every
  2 s and 100 every 5 s, one process and two behind nginx.
- ``burst``: 100 learners open the same lesson at once (attention, then
  capstone): the first page load a class pays at the start of a lesson.
  One process, and two behind nginx.
- ``capacity``: 50, 100, 150, 200 learners every 2 s on random lessons, one
  process and two behind nginx: how many learners each keeps within
  ``--target`` ms p95 (the ratio is what a second process buys).
- ``soak``: ``--soak-users`` learners for ``--soak-minutes``; server memory
  (RSS) per session at the end, from before the learners came.

The learners are tests/benchmarks/streamlit_user.py (Streamlit's websocket
protocol, no browser). Locust runs in its distributed mode, a master and
``--workers`` worker processes, at the server's priority (a starved client
would add its own waiting to the times it reports). Every action is timed
from the request to its script_finished. The table gives Locust's own p50,
p95 and max (ms) and failures, the server's CPU ms per action, and the load
average. To load from a second machine, start Locust workers there,
pointed at this master (``--remote-workers N --master-bind 0.0.0.0`` here;
``locust -f tests/benchmarks/streamlit_user.py --worker --master-host THIS``
there), or drive a running setup with ``--url`` (``deploy/serve_two.sh``).

The app processes run ``streamlit run streamlit_app.py`` on 127.0.0.1 (two
processes sit behind nginx with deploy/nginx.conf, ports rewritten); each
is warmed up (every lesson opened once in each language) before it is
measured. Tracebacks in a server's log count as errors. Nothing leaves
127.0.0.1 unless you pass a URL or a bind address.
"""

from __future__ import annotations

import argparse
import contextlib
import csv
import os
import random
import secrets
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
sys.path[:0] = [str(HERE)]

from streamlit_protocol import StreamlitSession, lesson_pages

USER_FILE = HERE / "streamlit_user.py"
NGINX_TEMPLATE = ROOT / "deploy" / "nginx.conf"
TEMPLATE_FRONT, TEMPLATE_BACKENDS = "127.0.0.1:8080", ("127.0.0.1:8501", "127.0.0.1:8502")
BARE_APP = """
import altair as alt
import numpy as np
import pandas as pd
import streamlit as st

x = st.slider("x", 0.0, 5.0, 1.0, 0.1, key="x")
frame = pd.DataFrame({"i": np.arange(10), "y": np.arange(10) * x})
st.altair_chart(alt.Chart(frame).mark_bar().encode(x="i:O", y="y:Q"))
"""
SETTLE = 5  # s after the ramp-up before the statistics start (the first page loads finish first)
SCENARIOS = ("cpu", "grid", "pages", "burst", "capacity", "soak")


# --- processes ----------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def loadavg() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def cpu_seconds(pid: int) -> float:
    """utime + stime of a process, from /proc/<pid>/stat."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def wait_healthy(url: str, procs: list[subprocess.Popen], timeout: float = 90) -> None:
    deadline = time.monotonic() + timeout
    while True:
        try:
            with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as r:
                if r.status == 200:
                    return
        except OSError:
            if any(p.poll() is not None for p in procs) or time.monotonic() > deadline:
                raise RuntimeError(f"{url} did not start") from None
            time.sleep(0.2)


class Servers:
    """``processes`` app processes (of ``script``, in ``cwd``), behind nginx when
    there are two, in a temporary run directory; or an app already running at ``url``."""

    def __init__(self, processes: int = 1, script: Path = ROOT / "streamlit_app.py", url: str | None = None):
        self.run_dir = Path(tempfile.mkdtemp(prefix="classroom-"))
        self.run_dir.chmod(0o755)  # nginx workers may run as another user
        self.procs: list[subprocess.Popen] = []
        self.logs: list[Path] = []
        self.nginx: subprocess.Popen | None = None
        if url:
            self.url = url.rstrip("/")
            return
        secret = secrets.token_hex(32)
        ports = [free_port() for _ in range(processes)]
        try:
            for port in ports:
                cmd = [sys.executable, "-m", "streamlit", "run", str(script), "--server.headless", "true"]
                cmd += ["--server.address", "127.0.0.1", "--server.port", str(port)]
                self.logs.append(self.run_dir / f"streamlit-{port}.log")
                env = os.environ | {"STREAMLIT_SERVER_COOKIE_SECRET": secret}
                with self.logs[-1].open("wb") as out:
                    self.procs.append(
                        subprocess.Popen(
                            cmd, cwd=script.parent, stdout=out, stderr=subprocess.STDOUT, env=env
                        )
                    )
            for port in ports:
                wait_healthy(f"http://127.0.0.1:{port}", self.procs)
            self.url = f"http://127.0.0.1:{ports[0]}"
            if processes == 2:
                front = free_port()
                text = NGINX_TEMPLATE.read_text()
                for old, new in [(TEMPLATE_FRONT, front), *zip(TEMPLATE_BACKENDS, ports, strict=True)]:
                    assert old in text, f"{old} not in {NGINX_TEMPLATE}"
                    text = text.replace(old, f"127.0.0.1:{new}")
                conf = self.run_dir / "nginx.conf"
                conf.write_text(text)
                nginx = shutil.which("nginx") or "/usr/sbin/nginx"
                cmd = [nginx, "-p", str(self.run_dir), "-c", str(conf), "-e", "stderr", "-g", "daemon off;"]
                with (self.run_dir / "nginx.out").open("wb") as out:
                    self.nginx = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT)
                self.url = f"http://127.0.0.1:{front}"
                wait_healthy(self.url, [self.nginx], timeout=20)
        except BaseException:
            self.stop()
            raise

    @property
    def pids(self) -> list[int]:
        return [p.pid for p in self.procs]

    def cpu(self) -> float:
        return sum(cpu_seconds(pid) for pid in self.pids)

    def rss(self) -> float:
        return sum(rss_mb(pid) for pid in self.pids)

    def tracebacks(self) -> int:
        return sum(log.read_text(errors="replace").count("Traceback") for log in self.logs)

    def sessions_per_backend(self) -> list[int]:
        """Websockets opened on each app process (from nginx's access log)."""
        log = self.run_dir / "logs" / "access.log"
        if not log.exists():
            log = self.run_dir / "access.log"
        text = log.read_text() if log.exists() else ""
        ports = [p.args[p.args.index("--server.port") + 1] for p in self.procs]
        streams = [line for line in text.splitlines() if "/_stcore/stream" in line and '" 101 ' in line]
        return [sum(f"upstream=127.0.0.1:{port}" in line for line in streams) for port in ports]

    def warm(self, pages: list[str]) -> None:
        """Open every page once on every process (imports, caches), not measured."""
        if not self.procs:
            return
        for proc in self.procs:
            port = proc.args[proc.args.index("--server.port") + 1]
            for page in pages:
                for lang in ("ja", "en"):
                    session = StreamlitSession(f"http://127.0.0.1:{port}")
                    session.open(page, f"lang={lang}")
                    session.close()

    def stop(self) -> None:
        for proc in ([self.nginx] if self.nginx else []) + self.procs:
            if proc.poll() is None:
                proc.terminate()
        for proc in ([self.nginx] if self.nginx else []) + self.procs:
            try:
                proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        shutil.rmtree(self.run_dir, ignore_errors=True)


@contextlib.contextmanager
def servers(args, processes: int, pages: list[str]) -> Iterator[Servers]:
    setup = Servers(processes, url=args.url)
    try:
        if not args.cold:
            setup.warm(pages)
        yield setup
    finally:
        setup.stop()


# --- Locust -------------------------------------------------------------------


@dataclass
class Row:
    scenario: str
    setup: str
    users: int
    think: float
    pages: str
    stats: dict[str, dict] = field(default_factory=dict)  # "Type Name" -> csv row; "" -> aggregated
    cpu_per_action_ms: float = float("nan")
    load: str = ""
    tracebacks: int = 0
    per_backend: str = ""


CLIENT_NICE = [0]


def nice() -> None:
    os.nice(CLIENT_NICE[0])


def run_locust(args, url: str, users: int, seconds: float, extra: list[str]) -> dict[str, dict]:
    """A headless Locust run in distributed mode: one master, ``args.workers``
    local workers (+ ``args.remote_workers`` from elsewhere); returns its CSV stats."""
    out = Path(tempfile.mkdtemp(prefix="locust-"))
    port = free_port()
    common = ["-f", str(USER_FILE), "--host", url, *extra]
    if args.seed:
        common += ["--seed", str(args.seed)]
    master = [sys.executable, "-m", "locust", *common, "--master", "--headless", "--only-summary"]
    master += ["--master-bind-host", args.master_bind, "--master-bind-port", str(port)]
    master += ["--expect-workers", str(args.workers + args.remote_workers), "--expect-workers-max-wait", "60"]
    master += ["-u", str(users), "-r", str(extra_rate(extra, users)), "-t", f"{seconds:.0f}s"]
    master += [
        "--csv",
        str(out / "run"),
        "--stop-timeout",
        "10",
        "--loglevel",
        os.environ.get("LOCUST_LOGLEVEL", "WARNING"),
    ]
    worker = [sys.executable, "-m", "locust", *common, "--worker", "--master-host", "127.0.0.1"]
    worker += ["--master-port", str(port), "--loglevel", os.environ.get("LOCUST_LOGLEVEL", "WARNING")]
    procs = [
        subprocess.Popen(master, cwd=ROOT, preexec_fn=nice, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    ]
    worker_log = (out / "workers.log").open("wb")
    procs += [
        subprocess.Popen(worker, cwd=ROOT, preexec_fn=nice, stdout=worker_log, stderr=subprocess.STDOUT)
        for _ in range(args.workers)
    ]
    try:
        output, _ = procs[0].communicate(timeout=seconds + 180)
    finally:
        for proc in procs:
            if proc.poll() is None:
                proc.terminate()
        for proc in procs:
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                proc.kill()
    worker_log.close()
    if args.verbose:
        print(output.decode(errors="replace")[-3000:], (out / "workers.log").read_text()[-3000:])
    stats_file = out / "run_stats.csv"
    if not stats_file.exists():
        raise RuntimeError(f"locust wrote no statistics:\n{output.decode(errors='replace')[-3000:]}")
    with stats_file.open() as f:
        stats = {
            (r["Type"] + " " + r["Name"]).strip() if r["Name"] != "Aggregated" else "": r
            for r in csv.DictReader(f)
        }
    failures = out / "run_failures.csv"
    if failures.exists():
        with failures.open() as f:
            for r in csv.DictReader(f):
                print(f"    failure x{r['Occurrences']}: {r['Method']} {r['Name']}: {r['Error'][:200]}")
    shutil.rmtree(out, ignore_errors=True)
    return stats


def extra_rate(extra: list[str], users: int) -> float:
    """Spawn rate: all at once for a burst, else ramp up over ~5 s."""
    return users if "--burst" in extra else max(1.0, users / 5)


def measure(args, setup: Servers, row: Row, seconds: float, extra: list[str]) -> Row:
    cpu0 = setup.cpu() if setup.procs else 0.0
    tb0 = setup.tracebacks() if setup.procs else 0
    row.stats = run_locust(args, setup.url, row.users, seconds, extra)
    row.load = loadavg()
    if setup.procs:
        actions = sum(int(r["Request Count"]) for k, r in row.stats.items() if k)
        row.cpu_per_action_ms = 1000 * (setup.cpu() - cpu0) / max(actions, 1)
        row.tracebacks = setup.tracebacks() - tb0
    if setup.nginx:
        row.per_backend = "/".join(map(str, setup.sessions_per_backend()))
    print_row(row, args.target)
    return row


# --- output -------------------------------------------------------------------


HEADER = (
    f"{'scenario':<10}{'setup':<9}{'users':>6}{'think':>6}  {'pages':<20}{'action':<8}"
    f"{'n':>6}{'p50':>7}{'p95':>7}{'max':>7}{'fail':>6}{'cpu/act':>8}  load"
)


def fmt(value: str) -> str:
    return "-" if value in ("N/A", "", None) else f"{float(value):.0f}"


def print_row(row: Row, target: float) -> None:
    agg = row.stats.get("", {})
    kinds = sorted({k.split(" ")[0] for k in row.stats if k})
    lines = []
    for kind in ["all", *kinds] if len(kinds) > 1 else ["all"]:
        if kind == "all":
            r = agg
        else:  # one action over every page: merge by request counts (p95 of the busiest page)
            rows = [r for k, r in row.stats.items() if k.split(" ")[0] == kind]
            r = max(rows, key=lambda r: int(r["Request Count"]))
            r = dict(r, **{"Request Count": sum(int(x["Request Count"]) for x in rows)})
            r["Failure Count"] = sum(int(x["Failure Count"]) for x in rows)
            known = [float(x["95%"]) for x in rows if x["95%"] not in ("N/A", "")]
            r["95%"] = max(known) if known else "N/A"
            r["Max Response Time"] = max(float(x["Max Response Time"]) for x in rows)
        lines.append(
            f"{row.scenario:<10}{row.setup:<9}{row.users:>6}{row.think:>6g}  {row.pages:<20}{kind:<8}"
            f"{int(r.get('Request Count', 0)):>6}{fmt(r.get('50%')):>7}{fmt(r.get('95%')):>7}"
            f"{fmt(r.get('Max Response Time')):>7}{int(r.get('Failure Count', 0)):>6}"
            + (f"{row.cpu_per_action_ms:>8.1f}" if kind == "all" else f"{'':>8}")
            + (f"  {row.load}" if kind == "all" else "")
            + (f"  tracebacks {row.tracebacks}" if kind == "all" and row.tracebacks else "")
            + (f"  sessions/backend {row.per_backend}" if kind == "all" and row.per_backend else "")
        )
    print("\n".join(lines), flush=True)


def p95(row: Row) -> float:
    value = row.stats.get("", {}).get("95%", "N/A")
    return float("inf") if value in ("N/A", "") else float(value)


def failures(row: Row) -> int:
    return int(row.stats.get("", {}).get("Failure Count", 0)) + row.tracebacks


# --- scenarios ----------------------------------------------------------------


def first_slider(session: StreamlitSession):
    """The page's first slider, or its first select-slider on a page whose
    sliders are all folded away on a first load."""
    return (session.controls(("slider",)) or session.controls(("select_slider",)))[0]


def scenario_cpu(args) -> None:
    """CPU per slider move and per first load: bare app vs attention vs capstone."""
    print("\n== cpu: server CPU per action, one client acting alone on a fresh process of each app")
    moves, opens = args.cpu_moves, args.cpu_opens
    tmp = Path(tempfile.mkdtemp(prefix="bare-"))
    (tmp / "bare_app.py").write_text(BARE_APP)
    (tmp / ".streamlit").mkdir()
    shutil.copy(ROOT / ".streamlit" / "config.toml", tmp / ".streamlit" / "config.toml")
    results = {}
    for name, script, page in [
        ("bare app", tmp / "bare_app.py", ""),
        *[(p, ROOT / "streamlit_app.py", p) for p in args.focus],
    ]:
        setup = Servers(1, script=script)
        try:
            pid = setup.pids[0]
            cold0 = cpu_seconds(pid)
            first = StreamlitSession(setup.url, rng=random.Random(1))
            first.open(page, "lang=ja")
            cold = cpu_seconds(pid) - cold0
            first.close()
            for _ in range(3):  # warm: a few more sessions and moves
                s = StreamlitSession(setup.url, rng=random.Random(2))
                s.open(page, "lang=ja")
                slider = first_slider(s)
                for _ in range(3):
                    s.act(slider)
                s.close()
            rss0 = rss_mb(pid)
            c0, sessions, wall = cpu_seconds(pid), [], []
            for _ in range(opens):
                s = StreamlitSession(setup.url, rng=random.Random(3))
                wall.append(s.open(page, "lang=ja"))
                sessions.append(s)
            per_open = (cpu_seconds(pid) - c0) / opens
            open_wall = sorted(wall)[len(wall) // 2]
            s = sessions[0]
            slider = first_slider(s)  # the page's first slider (a fragment's, on a lesson)
            c0, wall = cpu_seconds(pid), []
            for _ in range(moves):
                wall.append(s.act(slider))
            per_move = (cpu_seconds(pid) - c0) / moves
            move_wall = sorted(wall)[len(wall) // 2]
            rss = (rss_mb(pid) - rss0) / opens
            for s in sessions:
                s.close()
            results[name] = (per_move, per_open, cold, move_wall, open_wall, rss, bool(slider.fragment_id))
        finally:
            setup.stop()
    shutil.rmtree(tmp, ignore_errors=True)
    bare_move, bare_open = results["bare app"][:2]
    print(
        f"{'app':<12}{'CPU ms/move':>12}{'x bare':>8}{'CPU ms/open':>12}{'x bare':>8}"
        f"{'1st run ms':>11}{'move p50':>9}{'open p50':>9}{'MB/session':>11}  load {loadavg()}"
    )
    for name, (move, opened, cold, move_wall, open_wall, rss, fragment) in results.items():
        print(
            f"{name:<12}{1000 * move:>12.1f}{move / bare_move:>8.2f}"
            f"{1000 * opened:>12.1f}{opened / bare_open:>8.2f}"
            f"{1000 * cold:>11.0f}{1000 * move_wall:>9.0f}{1000 * open_wall:>9.0f}{rss:>11.2f}"
            + ("  (move = fragment rerun)" if fragment else "  (move = full rerun)")
        )


def scenario_grid(args) -> list[Row]:
    print(f"\n== grid: learners on random lessons, one process, {args.seconds:.0f} s each (after ramp-up)")
    rows = []
    pages = lesson_pages()
    with servers(args, 1, pages) as setup:
        for think in args.thinks:
            for users in args.users:
                row = Row("grid", "1 proc", users, think, "all lessons")
                rows.append(
                    measure(
                        args,
                        setup,
                        row,
                        args.seconds + users / 5 + SETTLE,
                        ["--think", str(think), "--settle", str(SETTLE)],
                    )
                )
    return rows


def scenario_pages(args) -> list[Row]:
    print(f"\n== pages: one lesson at a time, {args.seconds:.0f} s each (after ramp-up)")
    rows = []
    for processes in (1, 2):
        with servers(args, processes, args.focus) as setup:
            for page in args.focus:
                for users, think in args.page_loads:
                    row = Row("pages", f"{processes} proc", users, think, page)
                    extra = ["--think", str(think), "--pages", page, "--stay", "--settle", str(SETTLE)]
                    rows.append(measure(args, setup, row, args.seconds + users / 5 + SETTLE, extra))
        if args.url:
            break
    return rows


def scenario_burst(args) -> list[Row]:
    print(f"\n== burst: {args.burst} learners open one lesson at the same moment")
    rows = []
    for processes in (1, 2):
        for page in args.focus:
            with servers(args, processes, lesson_pages()) as setup:  # fresh, warmed processes
                row = Row("burst", f"{processes} proc", args.burst, 0, page)
                rows.append(
                    measure(
                        args, setup, row, args.burst_seconds, ["--burst", "--pages", page, "--think", "1"]
                    )
                )
        if args.url:
            break
    return rows


def scenario_capacity(args) -> list[Row]:
    print(f"\n== capacity: learners every 2 s on random lessons; p95 target {args.target:.0f} ms")
    rows, best = [], {}
    for processes in (1, 2):
        with servers(args, processes, lesson_pages()) as setup:
            best[processes] = 0
            for users in args.capacity:
                row = Row("capacity", f"{processes} proc", users, 2, "all lessons")
                rows.append(
                    measure(
                        args,
                        setup,
                        row,
                        args.seconds + users / 5 + SETTLE,
                        ["--think", "2", "--settle", str(SETTLE)],
                    )
                )
                if p95(rows[-1]) <= args.target and failures(rows[-1]) == 0:
                    best[processes] = users
                else:
                    break
        if args.url:
            break
    if len(best) == 2:
        ratio = best[2] / best[1] if best[1] else float("nan")
        print(
            f"   learners within p95 <= {args.target:.0f} ms: one process {best[1]},"
            f" two behind nginx {best[2]}"
            f" (ratio {ratio:.2f}; steps {args.capacity})"
        )
    return rows


def scenario_soak(args) -> list[Row]:
    minutes, users = args.soak_minutes, args.soak_users
    print(f"\n== soak: {users} learners every 5 s for {minutes:g} minutes, one process")
    with servers(args, 1, lesson_pages()) as setup:
        samples: list[tuple[float, float]] = []  # (seconds since start, RSS MB), while the learners act
        done = threading.Event()

        def sample() -> None:
            start = time.monotonic()
            while not done.wait(5):
                samples.append((time.monotonic() - start, setup.rss()))

        rss0 = setup.rss() if setup.procs else float("nan")
        sampler = threading.Thread(target=sample, daemon=True)
        if setup.procs:
            sampler.start()
        row = Row("soak", "1 proc", users, 5, "all lessons")
        measure(args, setup, row, minutes * 60, ["--think", "5"])
        done.set()
        if samples:
            # a third of the way in (all learners connected and warm), and the last sample
            live = samples
            early = live[len(live) // 3][1]
            late = live[-1][1]
            print(
                f"   server RSS: {rss0:.0f} MB before the learners, {early:.0f} MB with all connected,"
                f" {late:.0f} MB after {live[-1][0] / 60:.1f} min:"
                f" {(late - rss0) / users:.2f} MB per session,"
                f" growth {late - early:+.0f} MB while acting"
            )
    return [row]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--only", default=",".join(SCENARIOS), help=f"scenarios to run, of {','.join(SCENARIOS)}"
    )
    parser.add_argument("--quick", action="store_true", help="short runs, fewer learners: to check the setup")
    parser.add_argument("--seconds", type=float, default=40, help="length of one measured run")
    parser.add_argument("--users", default="1,20,50,100", help="grid: learners")
    parser.add_argument("--thinks", default="1,2,5", help="grid: seconds between a learner's actions")
    parser.add_argument(
        "--focus", default="attention,capstone", help="pages for the pages/burst/cpu scenarios"
    )
    parser.add_argument("--burst", type=int, default=100, help="learners in the burst")
    parser.add_argument("--burst-seconds", type=float, default=30)
    parser.add_argument("--capacity", default="50,100,150,200", help="capacity: learner steps")
    parser.add_argument("--target", type=float, default=200, help="capacity: p95 target, ms")
    parser.add_argument("--soak-users", type=int, default=50)
    parser.add_argument("--soak-minutes", type=float, default=10)
    parser.add_argument("--cpu-moves", type=int, default=60)
    parser.add_argument("--cpu-opens", type=int, default=20)
    parser.add_argument("--workers", type=int, default=1, help="local Locust worker processes")
    parser.add_argument(
        "--remote-workers", type=int, default=0, help="Locust workers that join from other machines"
    )
    parser.add_argument("--master-bind", default="127.0.0.1", help="address the Locust master listens on")
    parser.add_argument("--url", help="drive an app already running there (no server CPU or memory figures)")
    parser.add_argument(
        "--cold", action="store_true", help="do not warm the app processes up (a class meeting a fresh start)"
    )
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--client-nice",
        type=int,
        default=0,
        help="niceness of the Locust processes (0: as the server; a starved client adds its own wait)",
    )
    parser.add_argument("--verbose", action="store_true", help="print Locust's own output")
    args = parser.parse_args()
    args.users = [int(x) for x in args.users.split(",")]
    args.thinks = [float(x) for x in args.thinks.split(",")]
    args.focus = args.focus.split(",")
    args.capacity = [int(x) for x in args.capacity.split(",")]
    args.page_loads = [(50, 2.0), (100, 5.0)]
    if args.quick:
        args.seconds, args.users, args.thinks = 8, [1, 10], [1.0]
        args.page_loads, args.burst, args.burst_seconds = [(10, 2.0)], 20, 10
        args.capacity, args.soak_users, args.soak_minutes = [10, 20], 10, 0.25
        args.cpu_moves, args.cpu_opens = 10, 4
    CLIENT_NICE[0] = args.client_nice
    chosen = args.only.split(",")
    unknown = set(chosen) - set(SCENARIOS)
    if unknown:
        parser.error(f"unknown scenario(s): {', '.join(sorted(unknown))}")
    print(f"classroom load test, {os.cpu_count()} cores, load average at start {loadavg()}")
    print("times in ms from the request to its script_finished; cpu/act: server CPU ms per action")
    print(HEADER)
    started = time.monotonic()
    for name in SCENARIOS:
        if name in chosen:
            globals()[f"scenario_{name}"](args)
    print(f"\ndone in {(time.monotonic() - started) / 60:.1f} min; load average at end {loadavg()}")


if __name__ == "__main__":
    main()
