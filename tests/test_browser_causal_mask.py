"""Layer 4: the causal-mask lesson in headless Chromium (see test_browser.py)."""

from __future__ import annotations

from urllib.parse import parse_qs, urlparse

import pytest
from apprun import IDLE, open_app

from lesson_core.progress import Progress, decode

pytestmark = pytest.mark.browser

NO_ERROR = '[data-testid="stException"]'


def progress_in(url: str) -> Progress:
    return decode(parse_qs(urlparse(url).query).get("p", [""])[0])[0]


def test_page_loads_and_the_temperature_slider_moves_a_weight(page, app_url):
    from playwright.sync_api import expect

    open_app(page, f"{app_url}/causal_mask?lang=en")
    assert page.locator(NO_ERROR).count() == 0
    expect(page.locator("h1").first).to_contain_text("causal mask")
    summary = page.get_by_text("attends most to").first
    expect(summary).to_contain_text("65.7%")
    # The page's only slider is the scale strength of example C: lower it with the keyboard.
    slider = page.get_by_role("slider").first
    slider.focus()
    for _ in range(5):
        slider.press("ArrowLeft")
    expect(summary).not_to_contain_text("65.7%", timeout=20_000)
    page.wait_for_selector(IDLE)
    assert page.locator(NO_ERROR).count() == 0
    assert "cm_temp=0.5" in page.url


def test_fill_zero_shows_the_leak_and_ticks_the_task(page, app_url):
    from playwright.sync_api import expect

    open_app(page, f"{app_url}/causal_mask")
    expect(page.locator("h1").first).to_contain_text("因果マスク")
    leak = page.get_by_text("82.0%")  # わたし's leak at fill 0; the t2 task text quotes it already
    expect(leak).to_have_count(1)
    assert "causal_mask.t2" not in progress_in(page.url).tasks
    fill = page.locator('[data-testid="stRadio"]').first
    fill.get_by_text("0", exact=True).click()
    expect(leak).to_have_count(2, timeout=20_000)  # ...and now the note under the table
    page.wait_for_selector(IDLE)
    assert page.locator(NO_ERROR).count() == 0
    assert "cm_fill=0" in page.url
    # the "try this" task t2 was ticked and saved in the URL's progress
    assert "causal_mask.t2" in progress_in(page.url).tasks
