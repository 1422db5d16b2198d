"""Shared helpers for the page tests (AppTest) and the browser tests."""

from __future__ import annotations

import functools
import os
import re
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from apprun import CHROMIUM, CHROMIUM_ARGS, running_app
from classroom_db import db_url, engine, pg_server  # noqa: F401  (the class database fixtures)
from hypothesis import settings
from required import missing
from streamlit import dataframe_util
from streamlit.testing.v1 import AppTest

from course_app.i18n import LANGS
from course_app.session import fold as fold_key

ROOT = Path(__file__).resolve().parent.parent
HOME = ROOT / "streamlit_app.py"
# Every Python file of the app itself (what the catalog and layout checks read).
APP_SOURCES = sorted(
    [
        HOME,
        *(
            path
            for floor in ("pages", "lessons", "course_app", "lesson_core")
            for path in ROOT.glob(f"{floor}/**/*.py")
        ),
    ]
)
PAGE_TIMEOUT = 60

# Hypothesis: no deadline per example. Its default (200 ms) fails a property
# on a busy machine or a slow CI runner for being slow, not wrong (one took
# 320 ms). Speed is measured by the benchmark scripts, never by a test.
# HYPOTHESIS_PROFILE=deadlines brings the default deadline back, to look for
# examples that became slow.
settings.register_profile("no_deadlines", deadline=None)
settings.register_profile("deadlines")
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "no_deadlines"))


def _scan_components_once() -> None:
    """Each new AppTest scans every installed distribution's metadata for
    Streamlit components (``manifest_scanner.scan_component_manifests``): about
    0.5 s, nine tenths of opening a page in a test, and the same answer every
    time within one test process. Scan once per process instead."""
    try:
        from streamlit.components.v2 import manifest_scanner
    except ImportError:  # a Streamlit without it has nothing to scan
        return
    scan = manifest_scanner.scan_component_manifests
    if not hasattr(scan, "cache_info"):
        manifest_scanner.scan_component_manifests = functools.cache(scan)


_scan_components_once()


def open_page(
    page: str | None, lang: str = "ja", params: dict[str, str] | None = None, folds: bool = False
) -> AppTest:
    """Run the home page, then switch to ``page`` (e.g. "pages/2_attention.py"),
    with ?lang= and any other query parameters set, as a learner's link would;
    with ``folds``, every fold is then opened (see ``open_folds``)."""
    at = AppTest.from_file(str(HOME), default_timeout=PAGE_TIMEOUT)
    at.query_params.update({"lang": lang, **(params or {})})
    at.run()
    if page:
        at.query_params.update({"lang": lang, **(params or {})})
        at.switch_page(page).run()
    return open_folds(at) if folds else at


def open_folds(at: AppTest, each_run: Callable[[AppTest], object] | None = None) -> AppTest:
    """Open every fold of the page (course_app/folds.py), and any fold an open
    one reveals, as a learner's clicks would; a closed fold's body is never
    drawn, so a test that reads it opens it first. ``each_run`` sees the page
    after each of the reruns (what a rerun shows once, like a toast)."""
    for _ in range(4):
        closed = [k for k in at.session_state if k.startswith(fold_key("")) and not at.session_state[k]]
        if not closed:
            break
        for key in closed:
            at.session_state[key] = True
        at.run()
        if each_run is not None:
            each_run(at)
    return at


def chart_frames(at: AppTest) -> list[pd.DataFrame]:
    """The data of every Vega-Lite chart on the page, read from its proto."""
    frames = []
    for chart in at.get("vega_lite_chart"):
        frames.append(dataframe_util.convert_arrow_bytes_to_pandas_df(chart.proto.data.data))
        frames += [dataframe_util.convert_arrow_bytes_to_pandas_df(d.data.data) for d in chart.proto.datasets]
    return frames


def without_maths(text: str) -> str:
    """``text`` with its inline maths ($…$) taken out: a formula's braces
    ($d_{model}$) are not placeholders left unfilled."""
    return re.sub(r"\$[^$]*\$", "", text)


def all_text(at: AppTest) -> str:
    """Every piece of visible text the page rendered (markdown, headers, captions...)."""
    kinds = ("title", "header", "subheader", "markdown", "caption", "info", "success", "error", "warning")
    return "\n".join(str(e.value) for kind in kinds for e in at.get(kind))


def assert_clean(at: AppTest) -> None:
    """No exception, no NaN or infinity in any table or chart data, no raw key."""
    assert not at.exception, [e.value for e in at.exception]
    for frame in [df.value for df in at.dataframe] + chart_frames(at):
        numeric = frame.select_dtypes(include="number").to_numpy(dtype=float)
        assert np.all(np.isfinite(numeric)), frame
        text = frame.select_dtypes(exclude="number").astype(str).to_numpy()
        assert not np.isin(text, ["nan", "NaN", "inf", "-inf"]).any(), frame


@pytest.fixture(params=LANGS)
def lang(request) -> str:
    return request.param


# --- browser fixtures (tests/test_browser*.py) ---------------------------------


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
