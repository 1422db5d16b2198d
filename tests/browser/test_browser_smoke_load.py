"""End-to-end smoke under load: a few real browsers go through every lesson
while protocol learners keep the server busy.

Three Chromium contexts (three learners, three Streamlit sessions) follow the
sidebar menu through every page at the same time and move the first slider
of each page; meanwhile learners that speak Streamlit's websocket protocol
(tests/benchmarks/streamlit_protocol.py, the client of the Locust load
tests) act on random lessons several times a second. Every page must draw
its title with no exception box in any browser, every slider must take
its new value and the page be idle again with no exception box, and the
protocol learners must see no error (which also checks that the load-test client still speaks the app's
protocol). Latency is not asserted: the figures are the load tests' job
(python tests/benchmarks/classroom.py).
"""

from __future__ import annotations

import random
import sys
import threading
import time
from pathlib import Path

import pytest
from helpers.apprun import MENU_READY, open_app, settle

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
from streamlit_protocol import StreamlitSession, lesson_pages

from course_app.i18n import LANGS

pytestmark = pytest.mark.browser

BROWSERS = 3
PROTOCOL_LEARNERS = 4
EXCEPTION = '[data-testid="stException"]'
MAIN = '[data-testid="stMain"]'
EXTRA_PAGES = ("playground", "glossary")


class Background:
    """Protocol learners acting on random lessons until stopped."""

    def __init__(self, url: str, pages: list[str]) -> None:
        self.url, self.pages = url, pages
        self.stop = threading.Event()
        self.actions = 0
        self.errors: list[str] = []
        self.lock = threading.Lock()
        self.threads = [
            threading.Thread(target=self.learner, args=(i,), daemon=True) for i in range(PROTOCOL_LEARNERS)
        ]

    def learner(self, seed: int) -> None:
        rng = random.Random(seed)
        while not self.stop.is_set():
            session = StreamlitSession(self.url, timeout=60, rng=rng)
            try:
                session.open(rng.choice(self.pages), f"lang={rng.choice(LANGS)}")
                for _ in range(10):
                    if self.stop.wait(rng.uniform(0.1, 0.5)):
                        break
                    controls = session.controls(("slider", "select_slider", "selectbox", "radio", "checkbox"))
                    session.act(rng.choice(controls))
                    with self.lock:
                        self.actions += 1
            except Exception as exc:  # collected; the test fails on any
                with self.lock:
                    self.errors.append(f"{type(exc).__name__}: {exc}")
            finally:
                session.close()

    def __enter__(self) -> Background:
        for thread in self.threads:
            thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.stop.set()
        for thread in self.threads:
            thread.join(timeout=90)


def wait_idle(page, timeout_ms: int = 90_000) -> None:
    settle(page, timeout_ms=timeout_ms)


def test_browsers_go_through_every_lesson_while_the_server_is_busy(browser, app_url):
    from playwright.sync_api import expect

    lessons = lesson_pages()
    assert len(lessons) >= 7, lessons
    contexts = [browser.new_context(viewport={"width": 1280, "height": 900}) for _ in range(BROWSERS)]
    try:
        pages = [context.new_page() for context in contexts]
        with Background(app_url, lessons) as background:
            for i, page in enumerate(pages):
                open_app(page, f"{app_url}/?lang={LANGS[i % len(LANGS)]}", timeout_ms=90_000)
            moved = 0
            for name in [*lessons, *EXTRA_PAGES]:
                # all browsers follow the menu at once, then each waits for its page:
                # the menu and the idle state are the previous page's until the new
                # run starts, so each waits for a title other than the last one
                titles = [page.locator("h1").first.inner_text() for page in pages]
                for page in pages:
                    page.locator(f'[data-testid="stSidebar"] a[href^="{name}?"]').first.click()
                for page, title in zip(pages, titles, strict=True):
                    page.wait_for_url(f"**/{name}?**", timeout=90_000)
                    expect(page.locator("h1").first).not_to_have_text(title, timeout=90_000)
                    page.wait_for_selector(MENU_READY, timeout=90_000)
                    wait_idle(page)
                    assert page.locator(EXCEPTION).count() == 0, (
                        name,
                        page.locator(EXCEPTION).first.inner_text(),
                    )
                # all browsers move the page's first slider at once
                if name in EXTRA_PAGES:
                    continue
                sliders = [page.locator(MAIN).get_by_role("slider").first for page in pages]
                for slider in sliders:
                    expect(slider).to_be_attached(timeout=30_000)  # every lesson has one
                before = []
                for slider in sliders:
                    slider.scroll_into_view_if_needed()
                    value, top = slider.get_attribute("aria-valuenow"), slider.get_attribute("aria-valuemax")
                    before.append(value)
                    slider.focus()
                    slider.press("ArrowLeft" if value == top else "ArrowRight")
                for page, slider, value in zip(pages, sliders, before, strict=True):
                    expect(slider).not_to_have_attribute("aria-valuenow", value, timeout=30_000)
                    time.sleep(0.3)  # the slider sends its value after a short debounce
                    wait_idle(page)
                    assert page.locator(EXCEPTION).count() == 0, (
                        name,
                        page.locator(EXCEPTION).first.inner_text(),
                    )
                    moved += 1
        assert moved == BROWSERS * len(lessons), moved
        assert not background.errors, background.errors[:5]
        assert background.actions > 0
    finally:
        for context in contexts:
            context.close()
