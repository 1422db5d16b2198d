"""The language in headless Chromium: a choice is kept by the browser, and the
browser's own language decides when nothing else does."""

from __future__ import annotations

import pytest
from apprun import IDLE, open_app

pytestmark = pytest.mark.browser

KEPT = "() => window.localStorage.getItem('attention-lessons.lang')"


def test_a_chosen_language_comes_back_from_the_plain_address(page, app_url):
    from playwright.sync_api import expect

    open_app(page, app_url)  # a Japanese browser (conftest.JapaneseBrowser)
    expect(page.locator("h1").first).to_contain_text("アテンション", timeout=30_000)
    page.locator('[data-testid="stSidebar"]').get_by_text("English", exact=True).click()
    page.wait_for_function("() => document.documentElement.lang === 'en'", timeout=30_000)
    page.wait_for_function(f"() => ({KEPT})() === 'en'", timeout=20_000)
    other = page.context.new_page()  # the same browser, the app's plain address
    open_app(other, app_url)
    other.wait_for_function("() => document.documentElement.lang === 'en'", timeout=30_000)
    other.wait_for_selector(IDLE)
    expect(other.locator("h1").first).not_to_contain_text("アテンション", timeout=20_000)
    assert "lang=ja" not in other.url
    other.close()


def test_an_english_browser_opens_in_english_and_a_link_still_wins(browser, app_url):
    context = browser.new_context(locale="en-US")
    try:
        page = open_app(context.new_page(), app_url)
        page.wait_for_function("() => document.documentElement.lang === 'en'", timeout=30_000)
        open_app(page, f"{app_url}/?lang=ja")
        page.wait_for_function("() => document.documentElement.lang === 'ja'", timeout=30_000)
        assert page.evaluate(KEPT) is None  # a link's language is not a choice: nothing kept
    finally:
        context.close()
