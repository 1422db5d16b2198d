"""Layer 4: the real app in headless Chromium.

Finds Chromium at $CHROMIUM_PATH (default /usr/bin/chromium). Without it the
tests skip, unless REQUIRE_BROWSER=1 (set by .ci/run), where they fail.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
CHROMIUM = os.environ.get("CHROMIUM_PATH", "/usr/bin/chromium")
REQUIRED = os.environ.get("REQUIRE_BROWSER") == "1"
IDLE = '[data-testid="stApp"][data-test-script-state="notRunning"]'

pytestmark = pytest.mark.browser


def _missing(reason: str):
    if REQUIRED:
        pytest.fail(f"browser tests are required here (REQUIRE_BROWSER=1) but {reason}")
    pytest.skip(reason)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="session")
def app_url():
    port = _free_port()
    cmd = [
        sys.executable,
        "-m",
        "streamlit",
        "run",
        str(ROOT / "streamlit_app.py"),
        "--server.headless",
        "true",
        "--server.address",
        "127.0.0.1",
        "--server.port",
        str(port),
    ]
    server = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while True:
        try:
            with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as r:
                if r.status == 200:
                    break
        except OSError:
            if server.poll() is not None or time.monotonic() > deadline:
                server.kill()
                pytest.fail(f"streamlit did not start: {server.stderr.read().decode()[-2000:]}")
            time.sleep(0.2)
    yield url
    server.terminate()
    server.wait(timeout=10)


@pytest.fixture(scope="session")
def browser():
    if not Path(CHROMIUM).exists():
        _missing(f"no Chromium at {CHROMIUM}")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        _missing("playwright is not installed")
    with sync_playwright() as p:
        b = p.chromium.launch(
            executable_path=CHROMIUM,
            args=[
                "--no-sandbox",
                "--disable-gpu",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--no-first-run",
            ],
        )
        yield b
        b.close()


@pytest.fixture
def page(browser):
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    pg = context.new_page()
    yield pg
    context.close()


MENU_READY = '[data-testid="stSidebar"] [data-testid="stPageLink"]'


def open_app(page, url: str):
    """Open a page and wait until its script has run (the menu is drawn by the
    script, so it exists only after a run) and is idle again."""
    page.goto(url)
    page.wait_for_selector(MENU_READY, timeout=60_000)
    page.wait_for_selector(IDLE, timeout=60_000)
    return page


def test_home_page_loads_in_japanese_and_english(page, app_url):
    from playwright.sync_api import expect

    open_app(page, app_url)
    expect(page.locator("h1").first).to_contain_text("アテンション")
    assert page.locator('[data-testid="stException"]').count() == 0
    open_app(page, f"{app_url}/?lang=en")
    expect(page.locator("h1").first).to_contain_text("Attention")


def test_attention_page_slider_changes_a_weight(page, app_url):
    from playwright.sync_api import expect

    open_app(page, f"{app_url}/attention?lang=en")
    assert page.locator('[data-testid="stException"]').count() == 0
    summary = page.get_by_text("attends most to").first
    expect(summary).to_contain_text("65.7%")
    # Lower the scale strength (temperature) with the keyboard: weights sharpen.
    slider = page.get_by_role("slider").nth(0)
    slider.focus()
    for _ in range(5):
        slider.press("ArrowLeft")
    expect(summary).not_to_contain_text("65.7%", timeout=20_000)
    page.wait_for_selector(IDLE)
    assert page.locator('[data-testid="stException"]').count() == 0
    assert "at_temp=0.5" in page.url


def test_menu_link_keeps_the_language(page, app_url):
    from playwright.sync_api import expect

    open_app(page, f"{app_url}/?lang=en")
    page.locator('[data-testid="stSidebar"]').get_by_text("2. Attention").click()
    expect(page.locator("h1").first).to_contain_text("Query, Key, Value", timeout=30_000)
    assert "lang=en" in page.url


def test_language_switch_changes_the_page_and_the_url(page, app_url):
    from playwright.sync_api import expect

    open_app(page, f"{app_url}/attention")
    expect(page.locator("h1").first).to_contain_text("アテンション")
    page.locator('[data-testid="stSidebar"]').get_by_text("English", exact=True).click()
    expect(page.locator("h1").first).to_contain_text("Query, Key, Value", timeout=30_000)
    assert "lang=en" in page.url
    page.reload()
    page.wait_for_selector(IDLE, timeout=60_000)
    expect(page.locator("h1").first).to_contain_text("Query, Key, Value")
