"""Layer 4: the causal-mask lesson in headless Chromium (see test_browser.py)."""

from __future__ import annotations

from urllib.parse import parse_qs, urlparse

import pytest
from helpers.apprun import expect_url_has, open_app, open_fold, settle

from course_app.progress import Progress, decode

pytestmark = pytest.mark.browser

NO_ERROR = '[data-testid="stException"]'


def progress_in(url: str) -> Progress:
    return decode(parse_qs(urlparse(url).query).get("p", [""])[0])[0]


def slider_labelled(page, label: str):
    """The thumb (role=slider) of the st.slider whose label contains ``label``."""
    return page.locator('[data-testid="stSlider"]').filter(has_text=label).get_by_role("slider")


def test_page_loads_and_the_temperature_slider_moves_a_weight(page, app_url):
    from playwright.sync_api import expect

    open_app(page, f"{app_url}/causal_mask?lang=en")
    assert page.locator(NO_ERROR).count() == 0
    expect(page.locator("h1").first).to_contain_text("causal mask")
    summary = page.get_by_text("attends most to").first
    expect(summary).to_contain_text("65.7%")
    # lower the temperature of example C with the keyboard
    slider = slider_labelled(page, "Temperature T")
    slider.scroll_into_view_if_needed()
    slider.focus()
    for _ in range(5):
        slider.press("ArrowLeft")
    expect(summary).not_to_contain_text("65.7%", timeout=20_000)
    settle(page)
    assert page.locator(NO_ERROR).count() == 0
    expect_url_has(page, "cm_temp=0.5")


def test_fill_values_show_the_leak_and_tick_the_task(page, app_url):
    from playwright.sync_api import expect

    open_app(page, f"{app_url}/causal_mask")
    expect(page.locator("h1").first).to_contain_text("因果マスク")
    open_fold(page, "ja", "causal_mask.fill.header")  # section 3 is a fold
    leak = page.get_by_text("82.0%")  # わたし's leak at fill 0; the task text quotes it already
    expect(leak).to_have_count(1)
    fill = page.locator('[data-testid="stRadio"]').first
    fill.get_by_text("0", exact=True).click()
    expect(leak).to_have_count(2, timeout=20_000)  # ...and now the note under the map
    settle(page)
    assert page.locator(NO_ERROR).count() == 0
    expect_url_has(page, "cm_fill=0")
    assert "causal_mask.tightest_fill" not in progress_in(page.url).tasks  # 0 lets weight through
    fill.get_by_text("−1e9", exact=True).click()
    expect(leak).to_have_count(1, timeout=20_000)
    settle(page)
    # the value closest to 0 that leaks nothing: the task is ticked and saved in the URL
    assert "causal_mask.tightest_fill" in progress_in(page.url).tasks


def test_sliding_window_hides_the_far_left(page, app_url):
    from playwright.sync_api import expect

    open_app(page, f"{app_url}/causal_mask?lang=en&cm_window=2")
    note = page.get_by_text("The mask hides").first
    expect(note).to_contain_text("は (topic marker)")  # the causal mask hides the right only
    page.get_by_role("radiogroup", name="Mask", exact=True).get_by_text("sliding window").click()
    # a window of 2: それ sees 。 and itself; 猫 far to the left is hidden now
    expect(note).to_contain_text("hides 猫 (cat)", timeout=20_000)
    settle(page)
    assert page.locator(NO_ERROR).count() == 0
    expect_url_has(page, "cm_window=2")
