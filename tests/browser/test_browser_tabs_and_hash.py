"""Two tabs of one learner, and a malformed address, in headless Chromium.

- Two tabs share the browser's local storage: progress made in one tab must
  survive the other tab's next save (the stored progress only grows).
- A hash that is not valid percent-encoding (``#%E0%A4%A``) must not stop the
  page's browser script (course_app/browser.py)."""

from __future__ import annotations

import re

import pytest
from helpers.apprun import open_app, settle, step_slider

pytestmark = pytest.mark.browser

STORED = "() => window.localStorage.getItem('attention-lessons.progress') || ''"


def _stored_matches(page, pattern: str, timeout_ms: int = 30_000) -> str:
    """Wait until local storage holds progress matching ``pattern``; returns it."""
    page.wait_for_function(
        "p => new RegExp(p).test(window.localStorage.getItem('attention-lessons.progress') || '')",
        arg=pattern,
        timeout=timeout_ms,
    )
    return page.evaluate(STORED)


def test_a_second_tab_keeps_what_the_first_tab_stored(page, app_url):
    from playwright.sync_api import expect

    url = app_url
    tab_b = page.context.new_page()  # both tabs open, both sessions merged, before any progress
    open_app(tab_b, f"{url}/scaling?lang=en")
    open_app(page, f"{url}/attention?lang=en")
    # tab A: T 1.0 -> 1.6 makes 魚 fall below 50 %, which ticks attention's third task
    step_slider(page.get_by_role("slider").nth(0), "ArrowRight", 6)
    _stored_matches(page, r"(^|_)at\.001")
    # tab B, which never saw that task, saves after a full run of its own
    tab_b.locator('[data-testid="stSidebar"]').get_by_text(re.compile(r"^4\. ")).click()
    expect(tab_b).to_have_url(re.compile(r"/causal_mask"), timeout=30_000)
    settle(tab_b)
    stored = _stored_matches(tab_b, r"(^|_)cm\.")  # B's new visit is stored...
    assert re.search(r"(^|_)at\.001", stored), stored  # ...and A's task is still there
    assert re.search(r"(^|_)sc\.", stored), stored
    tab_b.close()


def test_a_malformed_hash_does_not_stop_the_page_script(page, app_url):
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    open_app(page, f"{app_url}/glossary?lang=en#%E0%A4%A")
    settle(page)
    page.wait_for_function("() => document.documentElement.lang === 'en'", timeout=20_000)
    page.evaluate("() => { location.hash = '%E0%A4%A'; }")  # and again after a hash change
    settle(page)
    assert not [e for e in errors if "URI" in e], errors
