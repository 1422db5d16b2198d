"""Load test: a class of learners at once, each in their own browser session.

    python tests/benchmarks/load.py [--sessions 20] [--rounds 1] [--moves 4] [--think 1.0]
    python tests/benchmarks/load.py --behind-nginx      # two app processes behind nginx
    python tests/benchmarks/load.py --url http://127.0.0.1:8080 [--pid PID ...]

Starts the app on 127.0.0.1 (or, with ``--behind-nginx``, two app processes
behind nginx with deploy/nginx.conf; or drives an app already running at
``--url``), then drives ONE Chromium with one browser context (= one learner,
one Streamlit session) per session through every page: the home page, every
lesson page that exists, the playground and the glossary, switching pages
with the sidebar menu as a learner does. On each page with a slider, the
first slider of the main area is focused and moved with ArrowRight /
ArrowLeft ``--moves`` times; between two actions a learner "reads" for a
random 0.5-1.5 × ``--think`` seconds (0: no pause, a stress test).

Interaction latency is measured inside the page: from the keydown (or the
click on a menu link) to the moment the app's script state, having been
"running", is "notRunning" again. When all of a run's messages are handled
before the page renders, the state never shows "running"; then the end is
the first change the app draws after the script_finished message came on
its websocket. Split at the first script output on the websocket:
"key→1st reply" (the slider's debounce, the network, the server's queue,
the script up to its first element) and "reply→idle" (the rest of the
script and the browser drawing it). "server trip" is the same action seen
by the browser's network stack (DevTools Protocol timestamps): from the
rerun request leaving to script_finished arriving, i.e. the server's queue
and script plus the loopback, without the page's debounce and drawing. The
page's text outside the sliders is compared before and after each move
("unchanged" counts moves where only a chart or nothing changed).

The app processes this script starts run under stopwatch_server.py, which
logs, for every rerun request, the time from its arrival in the process to
its script_finished leaving it: "in the app process", the server's share
alone (its queue and the script), for fragment reruns (slider moves) and
full reruns (page switches, first loads) separately.

First each app process is warmed up (one session, direct, not measured),
then one session alone (the baseline median), then ``--sessions`` at once.
Prints p50/p95 latencies per action and per page, the ratio p95 /
single-session median (goal: ≤ 3), every error (an exception box on the
page, a timeout, a browser console error, a traceback in the server log),
the CPU seconds used by the server(s) and by the browser, and the server
memory per session: VmRSS of the server process(es) from /proc after the
baseline and after all sessions have visited every page (still connected),
divided by the number of sessions. Behind nginx it also prints how many
sessions each backend served (from nginx's access log) and whether every
browser stayed on one backend.

The learners' browsers all run here, in one Chromium, and cost several
times the server's CPU: on a small machine they, not the server, set the
latency. So this script, playwright and Chromium run at nice +19
(``--browser-nice``; Chromium is kept from raising its own priority) and the
server(s) at 0, as if the browsers were on the learners' own machines; the
CPU seconds printed show who used what.

The machine is shared: compare figures from one run only, and note the load
average printed at the start and the end. Bounded: every wait has a timeout
(``--step-timeout``) and each phase stops at ``--time-limit``.
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import collections
import contextlib
import os
import random
import re
import secrets
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parent), str(HERE.parent.parent)]

from apprun import CHROMIUM, CHROMIUM_ARGS, MENU_READY, ROOT, free_port
from playwright.async_api import async_playwright
from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

from lesson_core import course
from lesson_core.ui.page import available_lessons

EXCEPTION = '[data-testid="stException"]'
EARLY_FOR_RERUN = 2  # ForwardMsg.script_finished: FINISHED_EARLY_FOR_RERUN (another run follows)
MAIN = '[data-testid="stMain"]'
NGINX_TEMPLATE = ROOT / "deploy" / "nginx.conf"
TEMPLATE_FRONT, TEMPLATE_BACKENDS = "127.0.0.1:8080", ("127.0.0.1:8501", "127.0.0.1:8502")

# Runs in every document before the app. After window.__lt.arm() it records,
# in page time (ms): t0, the first keydown/pointerdown; reply, the first
# script output (a new_session or delta message) on the app's websocket; and
# done, when the app is idle again: the script state, having been "running",
# is "notRunning". When all of a run's messages are handled before the page
# renders, the state never shows "running"; then done is the first change
# the app draws after the script_finished message came (via = "wire").
# Armed at navigation start too, so a page load is timed from t0 = 0.
OBSERVER_JS = """
(() => {
  const fresh = { reply: null, running: null, finished: null, done: null, via: null, armed: true };
  const L = (window.__lt = { ...fresh, t0: 0, waiting: [] });
  L.arm = () => Object.assign(L, fresh, { t0: null });
  L.wait = () => new Promise((resolve) => (L.done !== null ? resolve() : L.waiting.push(resolve)));
  const finish = (via) => {
    Object.assign(L, { done: performance.now(), via, armed: false });
    L.waiting.splice(0).forEach((resolve) => resolve());
  };
  const state = () => {
    const app = document.querySelector('[data-testid="stApp"]');
    return app ? app.getAttribute("data-test-script-state") : null;
  };
  new MutationObserver(() => {
    if (!L.armed || L.t0 === null) return;
    const s = state();
    if (s === "running" && L.running === null) L.running = performance.now();
    else if (s === "notRunning" && L.running !== null) finish("state");
  }).observe(document, { subtree: true, attributes: true, attributeFilter: ["data-test-script-state"] });
  // "running" never showed: idle at the first change the app draws after script_finished
  // (charts' own SVG/canvas redraws and the sliders do not count)
  new MutationObserver((records) => {
    if (!L.armed || L.finished === null || L.running !== null || state() !== "notRunning") return;
    for (const r of records) {
      const el = r.target.nodeType === 1 ? r.target : r.target.parentElement;
      if (el && el.closest('[data-testid="stApp"]') && !el.closest('svg, canvas, [data-testid="stSlider"]')) {
        return finish("wire");
      }
    }
  }).observe(document, { subtree: true, childList: true, characterData: true });
  const start = () => { if (L.armed && L.t0 === null) L.t0 = performance.now(); };
  document.addEventListener("keydown", start, true);
  document.addEventListener("pointerdown", start, true);

  // Top-level fields of a ForwardMsg (protobuf): {field number: varint value or true}.
  const fields = (buf) => {
    const b = new Uint8Array(buf), out = {};
    let i = 0;
    const varint = () => {
      let x = 0, scale = 1, c;
      do { c = b[i++]; x += (c & 0x7f) * scale; scale *= 128; } while (c & 0x80 && i < b.length);
      return x;
    };
    while (i < b.length) {
      const key = varint(), field = Math.floor(key / 8), wire = key & 7;
      if (wire === 0) out[field] = varint();
      else if (wire === 2) { const n = varint(); i += n; out[field] = true; }
      else if (wire === 1) i += 8;
      else if (wire === 5) i += 4;
      else break;
    }
    return out;
  };
  const NEW_SESSION = 4, DELTA = 5, SCRIPT_FINISHED = 6, EARLY_FOR_RERUN = 2;  // ForwardMsg
  const Native = window.WebSocket;
  window.WebSocket = class extends Native {
    constructor(...args) {
      super(...args);
      this.addEventListener("message", (event) => {
        if (!L.armed || L.t0 === null || !(event.data instanceof ArrayBuffer)) return;
        const f = fields(event.data);
        if (L.reply === null && (f[NEW_SESSION] || f[DELTA])) L.reply = performance.now();
        if (SCRIPT_FINISHED in f && f[SCRIPT_FINISHED] !== EARLY_FOR_RERUN && L.reply !== null) {
          L.finished = performance.now();
        }
      });
    }
  };
})();
"""
WAIT_JS = "() => window.__lt.wait()"  # resolves when done (no polling)
TIMES_JS = "() => [window.__lt.t0, window.__lt.reply, window.__lt.done, window.__lt.via]"
# The main area's text without the sliders' own labels and values.
MAIN_TEXT_JS = """() => {
  const main = document.querySelector('[data-testid="stMain"]');
  if (!main) return "";
  let text = main.innerText;
  for (const s of main.querySelectorAll('[data-testid="stSlider"]')) text = text.replace(s.innerText, "");
  return text;
}"""
# Whether a slider (an <input type=range> or an ARIA slider) is at its maximum.
AT_MAX_JS = """(e) => e.getAttribute("aria-valuenow") !== null
  ? e.getAttribute("aria-valuenow") === e.getAttribute("aria-valuemax")
  : Number(e.value) >= Number(e.max)"""
# Index of the sidebar link to a page (by URL path), or -1.
LINK_JS = """(path) => Array.from(document.querySelectorAll('[data-testid="stSidebar"] a'))
  .findIndex(a => new URL(a.href).pathname.replace(/\\/$/, "") === path.replace(/\\/$/, ""))"""


# --------------------------------------------------------------------------- pages


def pages() -> list[tuple[str, str]]:
    """(name, URL path) of the home page, every lesson page that exists, the
    playground and the glossary, in menu order."""

    def path(script: str) -> str:
        return "/" + Path(script).stem.split("_", 1)[1]

    found = [("home", "/")] + [(lesson.id, path(lesson.page)) for lesson in available_lessons()]
    for name, script in (("playground", course.PLAYGROUND), ("glossary", course.GLOSSARY)):
        if (ROOT / script).exists():
            found.append((name, path(script)))
    return found


# --------------------------------------------------------------------------- results


@dataclass
class Results:
    # page, ms: total, key→1st reply, reply→idle, server round trip (None: not seen)
    moves: list[tuple[str, float, float, float, float | None]] = field(default_factory=list)
    switches: list[tuple[str, float, float | None]] = field(default_factory=list)  # page, ms: total, trip
    loads: list[float] = field(default_factory=list)
    errors: list[tuple[str, str]] = field(default_factory=list)  # kind, detail
    unchanged: int = 0
    stopped_early: int = 0
    browser_cpu: float = 0.0
    menu_late: int = 0  # menu link not there yet when the previous page was idle
    server_cpu: float = float("nan")  # CPU seconds of the server process(es) during the phase
    server_busy: dict[int, list[float]] = field(default_factory=dict)  # pid: share of a core per second
    via_wire: int = 0  # moves whose rerun never showed "running" (timed by the websocket)
    arrived: set[int] = field(default_factory=set)  # sessions past their first page load

    def error(self, kind: str, session: int, page: str, detail: str) -> None:
        detail = " ".join(detail.split())[:300]
        self.errors.append((kind, f"session {session} on {page}: {detail}"))


def pct(values: list[float], q: float) -> float:
    return float(np.percentile(values, q)) if values else float("nan")


def summary(label: str, values: list[float]) -> str:
    if not values:
        return f"{label:<16} n=0"
    return f"{label:<16} n={len(values):<5} p50 {pct(values, 50):7.0f} ms   p95 {pct(values, 95):7.0f} ms"


def print_results(res: Results, per_page: bool) -> None:
    print(summary("slider moves", [m[1] for m in res.moves]))
    print(summary("  key→1st reply", [m[2] for m in res.moves]))
    print(summary("  reply→idle", [m[3] for m in res.moves]))
    print(summary("  server trip", [m[4] for m in res.moves if m[4] is not None]))
    print(summary("page switches", [s[1] for s in res.switches]))
    print(summary("  server trip", [s[2] for s in res.switches if s[2] is not None]))
    print(summary("first loads", res.loads))
    if per_page:
        head = ["move p50", "move p95", "trip p50", "trip p95", "switch p50", "switch p95"]
        print(f"  {'page':<14}" + "".join(f"{h:>11}" for h in head))
        for name in dict.fromkeys([m[0] for m in res.moves] + [s[0] for s in res.switches]):
            mv = [m[1] for m in res.moves if m[0] == name]
            trip = [m[4] for m in res.moves if m[0] == name and m[4] is not None]
            sw = [s[1] for s in res.switches if s[0] == name]
            cells = [pct(v, q) if v else None for v in (mv, trip, sw) for q in (50, 95)]
            print(f"  {name:<14}" + "".join(f"{c:>11.0f}" if c is not None else f"{'-':>11}" for c in cells))
    print(f"moves where only the slider / a chart changed: {res.unchanged}")
    print(f"moves whose rerun never showed 'running' (idle timed from the websocket): {res.via_wire}")
    if res.menu_late:
        print(f"menu link not yet drawn when the page was idle (waited for it): {res.menu_late}")
    actions = len(res.moves) + len(res.switches) + len(res.loads)
    per_action = 1000 * res.server_cpu / max(actions, 1)
    print(
        f"CPU seconds: server {res.server_cpu:.0f} ({per_action:.0f} ms per action),"
        f" Chromium + playwright driver {res.browser_cpu:.0f}"
    )
    for pid, shares in res.server_busy.items():
        if shares:
            full = sum(x >= 0.9 for x in shares)
            print(
                f"server {pid} CPU, share of one core per second: median {pct(shares, 50):.0%},"
                f" p95 {pct(shares, 95):.0%}; seconds at ≥ 90%: {full} of {len(shares)}"
            )
    if res.stopped_early:
        print(f"sessions stopped at the time limit: {res.stopped_early}")
    kinds = collections.Counter(kind for kind, _ in res.errors)
    print(f"errors: {len(res.errors)}" + (f" ({dict(kinds)})" if kinds else ""))
    for detail, n in collections.Counter(f"[{k}] {d}" for k, d in res.errors).most_common(12):
        print(f"  {n}× {detail}")


def print_server_times(times: dict[str, list[float]]) -> None:
    """The app process's own time per rerun (stopwatch_server.py)."""
    print("in the app process (request in → script_finished out):")
    print(summary("  fragment reruns", times["fragment"]))
    print(summary("  full reruns", times["full"]))


# --------------------------------------------------------------------------- one learner

SLIDER_PAGES: set[str] = set()  # pages seen with a slider (in the warm-up): one must show up there


class Wire:
    """The app's websocket as the browser's network stack sees it (Chrome
    DevTools Protocol timestamps): when a rerun request left and when its
    script_finished came back. The difference is the server's round trip
    (queue + script + network), without the page's own debounce and drawing."""

    def __init__(self) -> None:
        self.frames: list[tuple[float, str]] = []  # (browser monotonic s, "rerun" | "finished")
        self.arrived = asyncio.Event()

    async def attach(self, context, page) -> None:
        cdp = await context.new_cdp_session(page)
        cdp.on("Network.webSocketFrameSent", self._sent)
        cdp.on("Network.webSocketFrameReceived", self._received)
        await cdp.send("Network.enable")

    def _payload(self, params: dict) -> bytes | None:
        frame = params["response"]
        return base64.b64decode(frame["payloadData"]) if frame.get("opcode") == 2 else None

    def _sent(self, params: dict) -> None:
        data = self._payload(params)
        if data and BackMsg.FromString(data).WhichOneof("type") == "rerun_script":
            self.frames.append((params["timestamp"], "rerun"))

    def _received(self, params: dict) -> None:
        data = self._payload(params)
        if data:
            msg = ForwardMsg.FromString(data)
            if msg.WhichOneof("type") == "script_finished" and msg.script_finished != EARLY_FOR_RERUN:
                self.frames.append((params["timestamp"], "finished"))
                self.arrived.set()

    def mark(self) -> int:
        self.arrived.clear()
        return len(self.frames)

    async def round_trip(self, mark: int, timeout: float = 10) -> float | None:
        """ms from the first rerun request after ``mark`` to the script_finished after it."""
        deadline = time.monotonic() + timeout
        while True:
            sent = next((i for i in range(mark, len(self.frames)) if self.frames[i][1] == "rerun"), None)
            if sent is not None:
                back = next((f[0] for f in self.frames[sent:] if f[1] == "finished"), None)
                if back is not None:
                    return (back - self.frames[sent][0]) * 1000
            if time.monotonic() > deadline:
                return None
            self.arrived.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.arrived.wait(), max(deadline - time.monotonic(), 0.01))


async def learner(browser, base: str, who: str, args, res: Results, deadline: float, finished) -> None:
    """One browser context through every page, moving each page's first slider.
    ``who`` names it, e.g. "class3" (session 3 of the concurrent phase)."""
    index = int(who.lstrip("abcdefghijklmnopqrstuvwxyz"))
    rng = random.Random(1000 + index)
    lang = ("ja", "en")[index % 2]
    timeout = args.step_timeout * 1000
    context = await browser.new_context(viewport={"width": 1280, "height": 900})
    await context.add_cookies([{"name": "load_session", "value": who, "url": base}])
    await context.add_init_script(script=OBSERVER_JS)
    page = await context.new_page()
    wire = Wire()
    await wire.attach(context, page)
    where = ["start"]
    page.on("console", lambda m: m.type == "error" and res.error("console", index, where[0], m.text))
    page.on("pageerror", lambda e: res.error("pageerror", index, where[0], str(e)))

    async def think() -> None:
        if args.think > 0:
            await asyncio.sleep(args.think * rng.uniform(0.5, 1.5))  # a learner reading, not measured

    async def check(name: str) -> None:
        boxes = page.locator(EXCEPTION)
        if await boxes.count():
            res.error("exception", index, name, await boxes.first.inner_text())

    async def settle(name: str) -> tuple[float, float, float] | None:
        """Wait until the armed observer has seen running → notRunning."""
        try:
            await asyncio.wait_for(page.evaluate(WAIT_JS), args.step_timeout)
        except TimeoutError:
            res.error("timeout", index, name, f"no running → idle within {args.step_timeout:.0f} s")
            return None
        return tuple(await page.evaluate(TIMES_JS))

    try:
        for round_ in range(args.rounds):
            for name, path in pages():
                if time.monotonic() > deadline:
                    res.stopped_early += 1
                    return
                where[0] = name
                if round_ == 0 and path == "/":  # first page: load it by URL
                    start = time.perf_counter()
                    await page.goto(f"{base}{path}?lang={lang}", timeout=timeout)
                    times = await settle(name)
                    await page.wait_for_selector(MENU_READY, timeout=timeout)
                    if times:
                        res.loads.append((time.perf_counter() - start) * 1000)
                    res.arrived.add(index)
                else:  # then through the sidebar menu, in the same session
                    link = await page.evaluate(LINK_JS, path)
                    if link < 0:  # the menu is drawn by the script: after idle, it should be there
                        res.menu_late += 1
                        try:
                            await page.wait_for_function(
                                f"(path) => ({LINK_JS})(path) >= 0", arg=path, timeout=timeout
                            )
                        except Exception:
                            res.error("navigation", index, name, f"no menu link to {path}")
                            continue
                        link = await page.evaluate(LINK_JS, path)
                    await page.evaluate("window.__lt.arm()")
                    mark = wire.mark()
                    await page.locator('[data-testid="stSidebar"] a').nth(link).click(timeout=timeout)
                    times = await settle(name)
                    await page.wait_for_selector(MENU_READY, timeout=timeout)
                    if times:
                        res.switches.append((name, times[2] - times[0], await wire.round_trip(mark)))
                await check(name)
                await think()
                sliders = page.locator(MAIN).get_by_role("slider")  # st.slider, st.select_slider
                slider = sliders.first
                if name in SLIDER_PAGES and not await sliders.count():
                    try:
                        await slider.wait_for(timeout=timeout)
                    except Exception:
                        res.error("no slider", index, name, "the page's slider did not show up")
                if await sliders.count():
                    SLIDER_PAGES.add(name)
                for move in range(args.moves if await sliders.count() else 0):
                    at_max = await slider.evaluate(AT_MAX_JS)
                    key = "ArrowLeft" if move % 2 or at_max else "ArrowRight"
                    before = await page.evaluate(MAIN_TEXT_JS)
                    await page.evaluate("window.__lt.arm()")
                    mark = wire.mark()
                    await slider.press(key, timeout=timeout)
                    times = await settle(name)
                    if times:
                        t0, reply, done, via = times
                        reply = done if reply is None else reply
                        trip = await wire.round_trip(mark)
                        res.moves.append((name, done - t0, reply - t0, done - reply, trip))
                        res.via_wire += via == "wire"
                        res.unchanged += before == await page.evaluate(MAIN_TEXT_JS)
                    await check(name)
                    await think()
    except Exception as e:
        res.error("crash", index, where[0], f"{type(e).__name__}: {str(e).splitlines()[0]}")
    finally:
        res.arrived.add(index)
        await finished()  # stay connected until every session is through (memory reading)
        await context.close()


async def drive(
    base: str,
    sessions: int,
    args,
    pids: list[int],
    exclude: set[int],
    label: str = "class",
    on_connected=None,
    on_end=None,
) -> Results:
    """``sessions`` learners at once in one Chromium. ``on_connected`` is called
    once every session has loaded its first page, ``on_end`` once every
    session is through every page (before they disconnect): memory readings."""
    res = Results()
    deadline = time.monotonic() + args.time_limit
    through, all_through = 0, asyncio.Event()
    cpu_before = cpu_seconds(pids)
    sampler = CpuSampler(pids)
    sampler.start()

    async def finished() -> None:
        nonlocal through
        through += 1
        if through == sessions:
            if on_end:
                on_end()
            all_through.set()
        await all_through.wait()

    async with async_playwright() as p:
        browser = await p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        tasks = [
            asyncio.create_task(learner(browser, base, f"{label}{i}", args, res, deadline, finished))
            for i in range(sessions)
        ]

        async def watch() -> None:
            while len(res.arrived) < sessions:
                await asyncio.sleep(0.2)
            if on_connected:
                on_connected()

        await asyncio.wait_for(asyncio.gather(watch(), *tasks), args.time_limit + 2 * args.step_timeout)
        # CPU of the playwright driver and Chromium (with their reaped children)
        res.browser_cpu = cpu_seconds(descendants(os.getpid(), exclude), children=True)
        await browser.close()
    sampler.stop.set()
    sampler.join()
    res.server_busy = sampler.shares
    if pids:
        res.server_cpu = cpu_seconds(pids) - cpu_before
    return res


# --------------------------------------------------------------------------- servers


class CpuSampler(threading.Thread):
    """Every second, the share of one core that each server process used
    (a process runs Python code on one core at a time: 100% is its limit)."""

    def __init__(self, pids: list[int]) -> None:
        super().__init__(daemon=True)
        self.pids, self.stop = pids, threading.Event()
        self.shares: dict[int, list[float]] = {pid: [] for pid in pids}

    def run(self) -> None:
        last, then = {pid: cpu_seconds([pid]) for pid in self.pids}, time.monotonic()
        while not self.stop.wait(1.0):
            now = time.monotonic()
            for pid in self.pids:
                used = cpu_seconds([pid])
                self.shares[pid].append((used - last[pid]) / (now - then))
                last[pid] = used
            then = now


def keep_nice() -> bool:
    """Chromium run as root sets its own processes' priority (nice 0, some
    threads -8), which would undo our nice. Without CAP_SYS_NICE in this
    process's capability bounding set, the programs it starts from now on
    (playwright, Chromium) cannot lower their niceness. True if they can't."""
    if os.geteuid() != 0:
        return True  # an unprivileged process can't lower its niceness anyway
    import ctypes

    pr_capbset_drop, cap_sys_nice = 24, 23  # <linux/prctl.h>, <linux/capability.h>
    return ctypes.CDLL(None, use_errno=True).prctl(pr_capbset_drop, cap_sys_nice, 0, 0, 0) == 0


def loadavg() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def rss_mb(pid: int, field_name: str = "VmRSS") -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(field_name + ":"):
            return int(line.split()[1]) / 1024
    return float("nan")


def cpu_seconds(pids: list[int], children: bool = False) -> float:
    """utime + stime of ``pids`` from /proc (with ``children``: + their reaped children's)."""
    tick = os.sysconf("SC_CLK_TCK")
    total = 0.0
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += sum(int(f) for f in fields[11 : 15 if children else 13]) / tick
    return total


def descendants(root: int, exclude: set[int]) -> list[int]:
    """Every live process under ``root`` (the browser, the playwright driver), minus ``exclude``."""
    children = collections.defaultdict(list)
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                ppid = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except OSError:
                continue
            children[ppid].append(int(entry.name))
    found, todo = [], [root]
    while todo:
        for child in children[todo.pop()]:
            if child not in exclude:
                found.append(child)
                todo.append(child)
    return found


def wait_healthy(url: str, procs: list[subprocess.Popen], logs: list[Path], timeout: float = 90) -> None:
    deadline = time.monotonic() + timeout
    while True:
        try:
            with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as r:
                if r.status == 200:
                    return
        except OSError:
            if any(p.poll() is not None for p in procs) or time.monotonic() > deadline:
                codes = [p.returncode for p in procs]
                tails = "\n".join(log.read_text()[-2000:] for log in logs)
                raise RuntimeError(f"{url} did not start (exit codes {codes}):\n{tails}") from None
            time.sleep(0.2)


def start_streamlit(port: int, log: Path, times: Path, cookie_secret: str) -> subprocess.Popen:
    """The same command as apprun.running_app, run through stopwatch_server.py
    (it writes the server's own time for every rerun to ``times``); we keep the
    process (for /proc) and its log (for tracebacks); a shared cookie secret
    for nginx mode."""
    cmd = [sys.executable, str(HERE / "stopwatch_server.py"), "run", str(ROOT / "streamlit_app.py")]
    cmd += ["--server.headless", "true", "--server.address", "127.0.0.1", "--server.port", str(port)]
    env = os.environ | {"STREAMLIT_SERVER_COOKIE_SECRET": cookie_secret, "LOAD_STOPWATCH": str(times)}
    with log.open("wb") as out:
        return subprocess.Popen(cmd, cwd=ROOT, stdout=out, stderr=subprocess.STDOUT, env=env)


def nginx_conf(front: int, backends: list[int], run_dir: Path) -> Path:
    """deploy/nginx.conf with our ports, plus a log of (backend, browser) per
    request to check that every browser stayed on one backend (each browser
    context of this script carries a load_session cookie naming it)."""
    text = NGINX_TEMPLATE.read_text()
    for old, new in [(TEMPLATE_FRONT, front), *zip(TEMPLATE_BACKENDS, backends, strict=True)]:
        assert old in text, f"{old} not in {NGINX_TEMPLATE}"
        text = text.replace(old, f"127.0.0.1:{new}")
    extra = (
        "    log_format loadtest '$upstream_addr|$cookie_load_session|$status|$request';\n"
        "    access_log loadtest.log loadtest;\n"
    )
    text, n = re.subn(r"^http \{\n", lambda m: m.group(0) + extra, text, count=1, flags=re.M)
    assert n == 1, "no 'http {' line in the nginx template"
    conf = run_dir / "nginx.conf"
    conf.write_text(text)
    return conf


class Servers:
    """One app process, or two behind nginx, in a temporary run directory."""

    def __init__(self, behind_nginx: bool) -> None:
        self.run_dir = Path(tempfile.mkdtemp(prefix="load-"))
        self.run_dir.chmod(0o755)  # nginx workers may run as another user
        self.procs: list[subprocess.Popen] = []
        self.logs: list[Path] = []
        self.times: list[Path] = []  # stopwatch_server.py's log, one per app process
        self.backends: list[str] = []
        self.nginx: subprocess.Popen | None = None
        secret = secrets.token_hex(32)
        ports = [free_port() for _ in range(2 if behind_nginx else 1)]
        for port in ports:
            self.logs.append(self.run_dir / f"streamlit-{port}.log")
            self.times.append(self.run_dir / f"stopwatch-{port}.log")
            self.procs.append(start_streamlit(port, self.logs[-1], self.times[-1], secret))
            self.backends.append(f"127.0.0.1:{port}")
        try:
            for addr in self.backends:
                wait_healthy(f"http://{addr}", self.procs, self.logs)
            self.url = f"http://{self.backends[0]}"
            if behind_nginx:
                front = free_port()
                conf = nginx_conf(front, ports, self.run_dir)
                nginx = shutil.which("nginx") or "/usr/sbin/nginx"
                cmd = [nginx, "-p", str(self.run_dir), "-c", str(conf), "-e", "stderr", "-g", "daemon off;"]
                self.logs.append(self.run_dir / "nginx.out")
                with self.logs[-1].open("wb") as out:
                    self.nginx = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT)
                self.url = f"http://127.0.0.1:{front}"
                wait_healthy(self.url, [self.nginx], self.logs[-1:], timeout=20)
        except BaseException:
            self.stop()
            raise

    @property
    def pids(self) -> list[int]:
        return [p.pid for p in self.procs]

    def server_times(self, start: float, end: float) -> dict[str, list[float]]:
        """ms from a rerun request reaching an app process to its script_finished
        leaving it, by kind ("fragment" / "full"), for requests that arrived
        between the monotonic times start and end (see stopwatch_server.py)."""
        found: dict[str, list[float]] = {"fragment": [], "full": []}
        for path in self.times:
            for line in path.read_text().splitlines() if path.exists() else []:
                arrived, ms, kind = line.split()
                if start <= float(arrived) <= end:
                    found[kind].append(float(ms))
        return found

    def tracebacks(self) -> list[str]:
        found = []
        for log in self.logs[: len(self.procs)]:
            text = log.read_text(errors="replace")
            found += [m.group(0)[-300:] for m in re.finditer(r"Traceback[\s\S]*?\n(?=\S)[^\n]*", text)]
        return found

    def per_backend(self) -> tuple[collections.Counter, int, int]:
        """Websocket sessions per backend, and (browsers seen, browsers that
        were sent to more than one backend), from the load-test access log."""
        streams, routes = collections.Counter(), collections.defaultdict(set)
        log = self.run_dir / "loadtest.log"
        for line in log.read_text().splitlines() if log.exists() else []:
            upstream, cookie, status, request = line.split("|", 3)
            if "/_stcore/stream" in request and status == "101":
                streams[upstream] += 1
            if cookie != "-" and upstream != "-":
                routes[cookie].add(upstream)
        return streams, len(routes), sum(len(v) > 1 for v in routes.values())

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


# --------------------------------------------------------------------------- main


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=20, help="concurrent browser sessions (default 20)")
    parser.add_argument("--rounds", type=int, default=1, help="passes through every page per session")
    parser.add_argument("--moves", type=int, default=4, help="slider moves per page visit (default 4)")
    parser.add_argument(
        "--think", type=float, default=1.0, help="mean seconds a learner reads between actions"
    )
    parser.add_argument("--url", help="drive an app already running there instead of starting one")
    parser.add_argument("--pid", type=int, action="append", default=[], help="with --url: server pid(s)")
    parser.add_argument("--behind-nginx", action="store_true", help="two app processes behind nginx")
    parser.add_argument("--step-timeout", type=float, default=120, help="seconds for one page or move")
    parser.add_argument("--time-limit", type=float, default=1200, help="seconds for each of the two phases")
    parser.add_argument(
        "--browser-nice",
        type=int,
        default=19,
        help="niceness of this script, playwright and Chromium (the servers keep 0), default 19",
    )
    parser.add_argument("--skip-single", action="store_true", help="no single-session baseline")
    args = parser.parse_args()

    print(f"load average at start (1/5/15 min): {loadavg()}; cpus: {os.cpu_count()}")
    servers = None if args.url else Servers(args.behind_nginx)
    try:
        url = args.url or servers.url
        pids = args.pid if args.url else servers.pids
        what = "two app processes behind nginx" if args.behind_nginx else "one app process"
        print(f"app: {url} ({'given' if args.url else what}; server pids {pids or '?'})")
        names = [n for n, _ in pages()]
        print(f"pages ({len(names)}): {', '.join(names)}")
        print(
            f"each session: {args.rounds} round(s), {args.moves} slider moves per page, think {args.think} s"
        )

        exclude = set(pids) | ({servers.nginx.pid} if servers and servers.nginx else set())
        if args.browser_nice:  # the class's browsers would run on their own machines
            os.nice(args.browser_nice)
            caveat = "" if keep_nice() else " (but Chromium, run as root, may raise its own)"
            print(
                f"client (this script, playwright, Chromium) at nice +{args.browser_nice}{caveat};"
                " servers at 0"
            )
        if servers:  # imports, caches: every process runs every page once before we measure
            warm = argparse.Namespace(**vars(args) | {"rounds": 1, "moves": 1, "think": 0})
            for addr in servers.backends:
                res = asyncio.run(drive(f"http://{addr}", 1, warm, [], exclude, "warm"))
                print(f"warm-up of {addr} (direct, not measured): {len(res.errors)} errors")
                for kind, detail in res.errors[:5]:
                    print(f"  [{kind}] {detail}")
        single, single_times = None, {"fragment": [], "full": []}
        if not args.skip_single:
            print("\n== 1 session (baseline) ==")
            start = time.monotonic()
            single = asyncio.run(drive(url, 1, args, pids, exclude, "single"))
            print_results(single, per_page=False)
            if servers:
                single_times = servers.server_times(start, time.monotonic())
                print_server_times(single_times)

        rss = {"before": [rss_mb(pid) for pid in pids]}
        cpu_before = [cpu_seconds([pid]) for pid in pids]

        def reading(name: str):
            return lambda: rss.setdefault(name, [rss_mb(pid) for pid in pids])

        print(f"\n== {args.sessions} sessions at once ==")
        started = time.monotonic()
        res = asyncio.run(
            drive(
                url,
                args.sessions,
                args,
                pids,
                exclude,
                on_connected=reading("connected"),
                on_end=reading("end"),
            )
        )
        wall = time.monotonic() - started
        print_results(res, per_page=True)
        if servers:
            many_times = servers.server_times(started, started + wall)
            print_server_times(many_times)

        cpu = [cpu_seconds([pid]) - before for pid, before in zip(pids, cpu_before, strict=True)]
        print(f"\nwall time {wall:.0f} s for {args.sessions} sessions")
        nan = [float("nan")] * len(pids)
        rss.setdefault("connected", nan)
        rss.setdefault("end", nan)
        if pids:
            peak = [rss_mb(pid, "VmHWM") for pid in pids]
            for i, pid in enumerate(pids):
                before, conn = rss["before"][i], rss["connected"][i]
                print(
                    f"server {pid}: RSS before {before:.0f} MB, all sessions connected {conn:.0f} MB,"
                    f" after every page {rss['end'][i]:.0f} MB, peak {peak[i]:.0f} MB"
                )
            grow = sum(rss["end"]) - sum(rss["before"])
            conn_grow = sum(rss["connected"]) - sum(rss["before"])
            print(
                f"memory per session: {grow / args.sessions:.1f} MB after every page"
                f" ({conn_grow / args.sessions:.1f} MB with the first page loaded)"
            )
        if servers and args.behind_nginx:
            streams, browsers, moved = servers.per_backend()
            for addr, before, end, used in zip(servers.backends, rss["before"], rss["end"], cpu, strict=True):
                print(
                    f"backend {addr}: {streams[addr]} websocket sessions (incl. the baseline's),"
                    f" CPU {used:.0f} s, memory growth {end - before:.0f} MB"
                )
            print(f"browsers seen by nginx: {browsers}; sent to more than one backend: {moved}")
        if servers:
            tbs = servers.tracebacks()
            print(f"tracebacks in the server log(s): {len(tbs)}")
            for tb in tbs[:5]:
                print("  " + tb.replace("\n", "\n  "))
        if single and single.moves:
            base = pct([m[1] for m in single.moves], 50)
            p95 = pct([m[1] for m in res.moves], 95)
            print(
                f"\nslider move: single-session median {base:.0f} ms,"
                f" {args.sessions}-session p95 {p95:.0f} ms, ratio {p95 / base:.2f} (goal ≤ 3);"
                f" errors {len(res.errors)} (goal 0)"
            )
            trips = [[m[4] for m in r.moves if m[4] is not None] for r in (single, res)]
            if all(trips):
                base, p95 = pct(trips[0], 50), pct(trips[1], 95)
                print(
                    f"server round trip of a slider move: single-session median {base:.0f} ms,"
                    f" {args.sessions}-session p95 {p95:.0f} ms, ratio {p95 / base:.2f}"
                )
        if servers and single and single_times["fragment"] and many_times["fragment"]:
            base, p95 = pct(single_times["fragment"], 50), pct(many_times["fragment"], 95)
            print(
                f"server time of a slider move (in the app process): single-session median {base:.0f} ms,"
                f" {args.sessions}-session p95 {p95:.0f} ms, ratio {p95 / base:.2f} (goal ≤ 3)"
            )
        print(f"load average at the end (1/5/15 min): {loadavg()}")
    finally:
        if servers:
            servers.stop()
            shutil.rmtree(servers.run_dir, ignore_errors=True)


if __name__ == "__main__":
    main()
