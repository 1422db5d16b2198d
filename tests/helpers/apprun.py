"""Start the app on 127.0.0.1 and launch Debian's Chromium: shared by the
browser tests, the screenshot script and the benchmarks."""

from __future__ import annotations

import contextlib
import functools
import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
APP = ROOT / "streamlit_app.py"
CHROMIUM = os.environ.get("CHROMIUM_PATH", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
LOG_DIR = Path(tempfile.gettempdir()) / "course-test-servers"  # each test server's output
MENU_READY = '[data-testid="stSidebar"] [data-testid="stPageLink"]'
QUIET_MS = 250  # how long the page must stay unchanged to count as at rest

# Counts the script runs the page has shown (each change of stApp's
# data-test-script-state to "running", full runs and fragment runs alike) and
# notes when anything last changed: the script's state, an element added or
# removed, a style or size. Installed once per document, before the action a
# test waits on, so a run that starts and ends between two polls still counts.
_WATCH = """() => {
  if (!window.__courseWatch) {
    const watch = { runs: 0, changed: performance.now(), layout: "" };
    window.__courseWatch = watch;
    new MutationObserver((records) => {
      watch.changed = performance.now();
      for (const r of records) {
        if (r.attributeName === "data-test-script-state"
            && r.target.getAttribute("data-test-script-state") === "running") watch.runs += 1;
      }
    }).observe(document.documentElement, { subtree: true, childList: true, attributes: true,
                                           characterData: true });
  }
  return window.__courseWatch.runs;
}"""

# The page is at rest when: the script is not running and has run more often
# than ``since`` (the count before the action); on a course page (one that
# mounts the browser bridge, course_app/browser.py, as a test's probe app does
# not) the bridge has nothing left to report, so no rerun of its own is on its
# way, and the course's stylesheet is applied (page.NARROW_SCREEN_CSS sets
# --course-style); the fonts are loaded; every chart on display has drawn its
# canvas or SVG (one in a tab not shown, display: none, is drawn only when its
# tab is opened: st.tabs); and nothing in the page (elements, text, sizes) has changed for
# QUIET_MS. A change of runs without a visible "running" (two status messages
# handled in one render) is caught by ``settled_ms``: a page that has stood
# still that long, with the script idle, has finished the run too.
_AT_REST = """([since, quietMs, settledMs]) => {
  const watch = window.__courseWatch;
  const root = document.documentElement;
  const app = document.querySelector('[data-testid="stApp"]');
  if (!watch || !app || app.getAttribute("data-test-script-state") !== "notRunning") return false;
  if (document.querySelector(".st-key-browser_bridge")) {  // a course page, not a probe app
    if (root.dataset.courseBridge !== "idle") return false;
    if (getComputedStyle(root).getPropertyValue("--course-style").trim() !== "1") return false;
  }
  if (document.fonts.status !== "loaded") return false;
  for (const chart of document.querySelectorAll('[data-testid="stVegaLiteChart"]')) {
    if (chart.getClientRects().length && !chart.querySelector("canvas, svg.marks")) return false;
  }
  const main = document.querySelector('[data-testid="stMain"]') || document.body;
  const layout = `${main.scrollHeight}x${main.scrollWidth}:${window.innerWidth}`;
  const now = performance.now();
  if (layout !== watch.layout) { watch.layout = layout; watch.changed = now; }
  const still = now - watch.changed;
  return (watch.runs > since && still >= quietMs) || still >= settledMs;
}"""


# What _AT_REST is waiting for, for the message of a settle that timed out.
_WAITING_FOR = """() => {
  const watch = window.__courseWatch || {};
  const root = document.documentElement;
  const app = document.querySelector('[data-testid="stApp"]');
  const charts = [...document.querySelectorAll('[data-testid="stVegaLiteChart"]')];
  return {
    script: app ? app.getAttribute("data-test-script-state") : "no stApp",
    runs: watch.runs,
    bridge: document.querySelector(".st-key-browser_bridge")
      ? root.dataset.courseBridge || "unset" : "absent",
    style: getComputedStyle(root).getPropertyValue("--course-style").trim(),
    fonts: document.fonts.status,
    charts_not_drawn: charts.filter((c) => c.getClientRects().length && !c.querySelector("canvas, svg.marks"))
      .map((c) => `${c.getBoundingClientRect().width}x${c.getBoundingClientRect().height}`),
    still_ms: Math.round(performance.now() - (watch.changed || 0)),
    url: location.href,
  };
}"""


def runs(page) -> int:
    """The script runs this page has shown since the watch was installed
    (installing it if need be)."""
    return page.evaluate(_WATCH)


def settle(page, since: int = -1, timeout_ms: int = 60_000, settled_ms: int = 3_000) -> None:
    """Wait until the page is at rest (see _AT_REST): after more than ``since``
    runs (the count ``runs()`` gave before an action), or, without ``since``,
    once the script is idle and nothing has moved for QUIET_MS. Every browser
    test waits through this (or ``rerun``), never on a bare timer."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    runs(page)
    try:
        page.wait_for_function(_AT_REST, arg=[since, QUIET_MS, settled_ms], polling=50, timeout=timeout_ms)
    except PlaywrightTimeout as error:
        waiting = page.evaluate(_WAITING_FOR)
        raise AssertionError(f"not at rest after {timeout_ms} ms (since={since}): {waiting}") from error


def rerun(page, action, timeout_ms: int = 60_000) -> None:
    """Do ``action`` (a click, a key press, a fill: anything that asks the
    script to run) and wait until that run has ended and the page is at rest.
    The count is taken before the action, so a page still idle from the run
    before it is never mistaken for the new run's end."""
    before = runs(page)
    action()
    settle(page, since=before, timeout_ms=timeout_ms)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def running_app(
    port: int | None = None, timeout: float = 60, script: Path = APP, env: dict[str, str] | None = None
) -> Iterator[str]:
    """``streamlit run streamlit_app.py`` (or another ``script``, with ``env``
    added to the environment) on 127.0.0.1; yields its base URL. Without a
    given port it takes a free one, and another if a parallel test worker took
    that one first (the server then exits at once)."""
    start = functools.partial(_start, timeout=timeout, script=script, env=env)
    server, url = start(port or free_port())
    for _ in range(2):
        if server is not None or port:
            break
        server, url = start(free_port())
    if server is None:
        raise RuntimeError(f"streamlit did not start on {url}")
    try:
        yield url
    finally:
        server.terminate()
        server.wait(timeout=10)


def _start(
    port: int, timeout: float, script: Path, env: dict[str, str] | None
) -> tuple[subprocess.Popen | None, str]:
    """The server on ``port`` once it answers its health check, or None if it
    exited first (the port was taken).

    The server's output goes to a file (LOG_DIR/streamlit-<port>.log), not to
    a pipe: nobody reads a pipe while the tests run, and a full one would block
    the server at its next log line. A page that does not open quotes the
    file's end in its failure (``server_log``)."""
    LOG_DIR.mkdir(parents=True, exist_ok=True)
    log_path = LOG_DIR / f"streamlit-{port}.log"
    cmd = [sys.executable, "-m", "streamlit", "run", str(script)]
    cmd += ["--server.headless", "true", "--server.address", "127.0.0.1", "--server.port", str(port)]
    with log_path.open("wb") as log:
        environ = os.environ | (env or {})
        server = subprocess.Popen(cmd, cwd=ROOT, env=environ, stdout=log, stderr=subprocess.STDOUT)
    url, deadline = f"http://127.0.0.1:{port}", time.monotonic() + timeout
    while True:
        try:
            with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as r:
                if r.status == 200:
                    return server, url
        except OSError:
            if server.poll() is None and time.monotonic() > deadline:
                server.terminate()
                server.wait(timeout=10)
            if server.poll() is not None:
                error = log_path.read_text(errors="replace")
                if "not available" in error or "already in use" in error:
                    return None, url
                raise RuntimeError(f"streamlit did not start: {error[-2000:]}") from None
            time.sleep(0.2)


def server_log(url: str, tail: int = 3000) -> str:
    """The end of what the server at ``url`` (started by running_app) has logged."""
    port = urllib.parse.urlsplit(url).port
    path = LOG_DIR / f"streamlit-{port}.log"
    return path.read_text(errors="replace")[-tail:] if path.exists() else ""


def open_app(page, url: str, timeout_ms: int = 60_000):
    """Open a page and wait until its script has run (the menu is drawn by the
    script, so it exists only after a run) and is idle again."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    page.goto(url)
    try:
        page.wait_for_selector(MENU_READY, timeout=timeout_ms)
    except PlaywrightTimeout as error:
        waiting = page.evaluate(_WAITING_FOR)
        shown = page.evaluate("() => document.body.innerText.slice(0, 400)")
        raise AssertionError(
            f"no menu after {timeout_ms} ms: {waiting}\npage: {shown!r}\nserver: {server_log(url)}"
        ) from error
    settle(page, timeout_ms=timeout_ms)
    return page


CLOSED_FOLD = '[data-testid="stMain"] [data-testid="stExpander"] details:not([open]) > summary'


MOST_FOLDS = 80


def open_all_folds(page, timeout_ms: int = 60_000) -> None:
    """Open every fold of the page (course_app/folds.py) one by one, each
    click a rerun that draws the fold's body, until none is closed (the
    glossary has the most: one per term)."""
    for _ in range(MOST_FOLDS):
        closed = page.locator(CLOSED_FOLD)
        if closed.count() == 0:
            return
        closed.first.scroll_into_view_if_needed()
        rerun(page, closed.first.click, timeout_ms)
    raise AssertionError("folds kept closing or appearing")


def open_fold(page, lang: str, label_key: str, timeout_ms: int = 20_000, **values: object) -> None:
    """Open the fold (course_app/folds.py) labelled with the catalog entry
    ``label_key`` (filled with ``values``), and wait for the rerun that draws its body."""
    from course_app.i18n import catalog

    label = catalog(lang)[label_key].format(**values)
    summary = page.locator('[data-testid="stExpander"] summary', has_text=label).first
    summary.scroll_into_view_if_needed()
    rerun(page, summary.click, timeout_ms)


def step_slider(slider, key: str, times: int = 1) -> None:
    """Press ``key`` on a slider ``times`` times, one step at a time: each press
    waits for the rerun it asks for and for the slider to show a new value, so
    a rerun that re-renders the slider mid-way cannot swallow a press or send
    it elsewhere."""
    from playwright.sync_api import expect

    for _ in range(times):
        before = slider.input_value()
        slider.focus()
        rerun(slider.page, lambda: slider.press(key))
        expect(slider).not_to_have_value(before, timeout=20_000)


def expect_url_has(page, *fragments: str, timeout_ms: int = 20_000) -> None:
    """Wait until the page's URL holds one of ``fragments`` as whole parameters
    (``x=0.5`` does not match ``x=0.55``). The URL is written
    by a rerun, and the rerun for a slider's last step may start after an
    earlier step's rerun already showed the change a test waits for, so a test
    polls the URL rather than reading it once."""
    import re

    from playwright.sync_api import expect

    wanted = "|".join(rf"[?&]{re.escape(f)}(?=&|$)" for f in fragments)
    expect(page).to_have_url(re.compile(wanted, re.IGNORECASE), timeout=timeout_ms)


def press_train(page, timeout_ms: int = 180_000) -> None:
    """Press the capstone's Train button and wait until the training run ends
    (its result is then kept for every session of the server)."""
    rerun(page, page.locator(".st-key-gpt_train button").click, timeout_ms)


def page_paths() -> dict[str, str]:
    """Every page of the app: name -> URL path ("" for the home page)."""
    from course_app.course import PAGES, url_path

    return {name: url_path(page) for name, page in PAGES.items()}


@contextlib.contextmanager
def lesson_page(browser, app_url: str, lesson: str, lang: str) -> Iterator:
    """A laptop-sized page (1280 × 900, downloads allowed) open at ``lesson``
    in ``lang``, its script idle; its browser context is closed afterwards."""
    from course_app.course import BY_ID, url_path

    context = browser.new_context(viewport={"width": 1280, "height": 900}, accept_downloads=True)
    page = context.new_page()
    try:
        open_app(page, f"{app_url}/{url_path(BY_ID[lesson].page)}?lang={lang}")
        yield page
    finally:
        context.close()
