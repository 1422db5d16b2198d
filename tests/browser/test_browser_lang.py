"""The language in headless Chromium: a choice is kept by the browser, and the
browser's own language decides when nothing else does."""

from __future__ import annotations

import re

import pytest
from helpers.apprun import open_app, settle

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
    settle(other)
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


TOP_SWITCH = '[data-testid="stMain"] .st-key-lang_choice_top'


def test_a_phone_switches_language_without_opening_the_menu(browser, app_url):
    from playwright.sync_api import expect

    context = browser.new_context(viewport={"width": 390, "height": 844})
    try:
        phone = open_app(context.new_page(), f"{app_url}/attention")
        sidebar = phone.locator('[data-testid="stSidebar"]')
        expect(sidebar).to_have_attribute("data-collapsed", "true")
        switch = phone.locator(TOP_SWITCH)
        expect(switch).to_be_visible()
        box = switch.bounding_box()
        assert box and box["y"] < 844 and box["x"] + box["width"] <= 390  # on the first screen, not cut
        switch.get_by_text("English", exact=True).click()
        expect(phone.locator("h1").first).to_contain_text("Query, Key, Value", timeout=30_000)
        phone.wait_for_function("() => document.documentElement.lang === 'en'", timeout=20_000)
        expect(phone).to_have_url(re.compile(r"lang=en"))
        expect(sidebar).to_have_attribute("data-collapsed", "true")
        switch.get_by_text("日本語", exact=True).click()
        expect(phone.locator("h1").first).to_contain_text("アテンション", timeout=30_000)
    finally:
        context.close()


def test_a_laptop_has_only_the_menus_switch(page, app_url):
    from playwright.sync_api import expect

    open_app(page, f"{app_url}/attention")
    expect(page.locator(TOP_SWITCH)).to_have_count(1)  # drawn, and hidden by the stylesheet
    expect(page.locator(TOP_SWITCH)).to_be_hidden(timeout=10_000)
    expect(page.locator('[data-testid="stSidebar"]').get_by_text("English", exact=True)).to_be_visible()
