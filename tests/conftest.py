"""The fixtures every test may use (a language, a running app, a browser, a
phone, the class databases) and the hypothesis profile; the functions the
tests share are in tests/helpers/."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from helpers.apprun import CHROMIUM, CHROMIUM_ARGS, running_app
from helpers.classroom_db import db_url, engine, pg_server  # noqa: F401  (the class database fixtures)
from helpers.required import missing
from hypothesis import settings

from course_app.i18n import LANGS

# Hypothesis: no deadline per example. Its default (200 ms) fails a property
# on a busy machine or a slow CI runner for being slow, not wrong (one took
# 320 ms). Speed is measured by the benchmark scripts, never by a test.
# HYPOTHESIS_PROFILE=deadlines brings the default deadline back, to look for
# examples that became slow.
settings.register_profile("no_deadlines", deadline=None)
settings.register_profile("deadlines")
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "no_deadlines"))


@pytest.fixture(params=LANGS)
def lang(request) -> str:
    return request.param


# --- browser fixtures (tests/browser/) ---------------------------------


@pytest.fixture(scope="session")
def app_url():
    """One app server on 127.0.0.1 for the whole test session."""
    with running_app() as url:
        yield url


@pytest.fixture(scope="session")
def browser():
    """Debian's Chromium driven by Playwright (never Playwright's own download)."""
    if not Path(CHROMIUM).exists():
        missing("REQUIRE_BROWSER", f"no Chromium at {CHROMIUM}")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        missing("REQUIRE_BROWSER", "playwright is not installed")
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield JapaneseBrowser(b)
        b.close()


PHONE = {"width": 390, "height": 844}


@pytest.fixture
def phone(browser):
    """A page in a phone-sized window (390 × 844), closed after the test."""
    context = browser.new_context(viewport=PHONE)
    yield context.new_page()
    context.close()


class JapaneseBrowser:
    """The browser, whose new contexts say Japanese (navigator.language "ja-JP")
    unless a test asks for another locale: Playwright's default is "en-US",
    which would open the plain address in English (i18n.resolve_lang), while
    the course's learners mostly read Japanese."""

    LOCALE = "ja-JP"

    def __init__(self, browser) -> None:
        self._browser = browser

    def new_context(self, **options):
        return self._browser.new_context(**{"locale": self.LOCALE, **options})

    def __getattr__(self, name: str):
        return getattr(self._browser, name)


@pytest.fixture
def page(browser):
    """A fresh browser context (its own cookies and session) at laptop size."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    pg = context.new_page()
    yield pg
    context.close()
