"""Start the app on 127.0.0.1 and launch Debian's Chromium: shared by the
browser tests, the screenshot script and the benchmarks."""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CHROMIUM = os.environ.get("CHROMIUM_PATH", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
IDLE = '[data-testid="stApp"][data-test-script-state="notRunning"]'
MENU_READY = '[data-testid="stSidebar"] [data-testid="stPageLink"]'


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def running_app(port: int | None = None, timeout: float = 60) -> Iterator[str]:
    """``streamlit run streamlit_app.py`` on 127.0.0.1; yields its base URL.
    Without a given port it takes a free one, and another if a parallel test
    worker took that one first (the server then exits at once)."""
    server, url = _start(port or free_port(), timeout)
    for _ in range(2):
        if server is not None or port:
            break
        server, url = _start(free_port(), timeout)
    if server is None:
        raise RuntimeError(f"streamlit did not start on {url}")
    try:
        yield url
    finally:
        server.terminate()
        server.wait(timeout=10)


def _start(port: int, timeout: float) -> tuple[subprocess.Popen | None, str]:
    """The server on ``port`` once it answers its health check, or None if it
    exited first (the port was taken)."""
    cmd = [sys.executable, "-m", "streamlit", "run", str(ROOT / "streamlit_app.py")]
    cmd += ["--server.headless", "true", "--server.address", "127.0.0.1", "--server.port", str(port)]
    server = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
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
                error = server.stderr.read().decode()
                if "not available" in error or "already in use" in error:
                    return None, url
                raise RuntimeError(f"streamlit did not start: {error[-2000:]}") from None
            time.sleep(0.2)


def open_app(page, url: str, timeout_ms: int = 60_000):
    """Open a page and wait until its script has run (the menu is drawn by the
    script, so it exists only after a run) and is idle again."""
    page.goto(url)
    page.wait_for_selector(MENU_READY, timeout=timeout_ms)
    page.wait_for_selector(IDLE, timeout=timeout_ms)
    return page


CLOSED_FOLD = '[data-testid="stMain"] [data-testid="stExpander"] details:not([open]) > summary'


def open_all_folds(page, timeout_ms: int = 60_000) -> None:
    """Open every fold of the page (course_app/folds.py) one by one, each
    click a rerun that draws the fold's body, until none is closed."""
    for _ in range(40):
        closed = page.locator(CLOSED_FOLD)
        if closed.count() == 0:
            return
        closed.first.scroll_into_view_if_needed()
        closed.first.click()
        page.wait_for_timeout(300)  # the rerun the click asks for
        page.wait_for_selector(IDLE, timeout=timeout_ms)
    raise AssertionError("folds kept closing or appearing")


def open_fold(page, lang: str, label_key: str, timeout_ms: int = 20_000, **values: object) -> None:
    """Open the fold (course_app/folds.py) labelled with the catalog entry
    ``label_key`` (filled with ``values``), and wait for the rerun that draws its body."""
    from course_app.i18n import catalog

    label = catalog(lang)[label_key].format(**values)
    summary = page.locator('[data-testid="stExpander"] summary', has_text=label).first
    summary.scroll_into_view_if_needed()
    summary.click()
    page.wait_for_timeout(300)  # the rerun the click asks for
    page.wait_for_selector(IDLE, timeout=timeout_ms)


def step_slider(slider, key: str, times: int = 1) -> None:
    """Press ``key`` on a slider ``times`` times, one step at a time: each press
    waits until the slider shows a new value, so a rerun that re-renders the
    slider mid-way cannot swallow a press or send it elsewhere."""
    from playwright.sync_api import expect

    for _ in range(times):
        before = slider.input_value()
        slider.focus()
        slider.press(key)
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
    page.locator(".st-key-gpt_train button").click()
    page.wait_for_timeout(500)  # the run the click starts
    page.wait_for_selector(IDLE, timeout=timeout_ms)
