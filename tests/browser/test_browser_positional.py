"""Layer 4: the positional-encoding lesson in headless Chromium."""

from __future__ import annotations

import pytest
from helpers.apprun import expect_url_has, open_app, settle

pytestmark = pytest.mark.browser


def test_positional_page_loads_and_a_slider_moves_a_number(page, app_url):
    from playwright.sync_api import expect

    open_app(page, f"{app_url}/positional?lang=en")
    assert page.locator('[data-testid="stException"]').count() == 0
    expect(page.locator("h1").first).to_contain_text("Positional encoding")
    hands = page.get_by_text("turns once every").first
    expect(hands).to_contain_text("7.8 turns")  # (50 − 1) / 2π
    # the number of positions, moved with the keyboard: 50 -> 51 (one key per check:
    # the rerun redraws the slider)
    slider = page.get_by_role("slider").nth(0)
    slider.focus()
    slider.press("ArrowRight")
    expect(hands).to_contain_text("8.0 turns", timeout=20_000)  # (51 − 1) / 2π = 7.96
    settle(page)
    assert page.locator('[data-testid="stException"]').count() == 0
    expect_url_has(page, "pe_n=51")


def test_d_model_moves_in_even_steps(page, app_url):
    from playwright.sync_api import expect

    open_app(page, f"{app_url}/positional?lang=ja")
    hands = page.get_by_text("いちばん遅い針").first
    expect(hands).to_contain_text("次元 14, 15")
    slider = page.get_by_role("slider").nth(1)
    slider.focus()
    slider.press("ArrowRight")
    expect(hands).to_contain_text("次元 16, 17", timeout=20_000)  # d_model 16 -> 18
    settle(page)
    expect_url_has(page, "pe_d=18")
    assert page.locator('[data-testid="stException"]').count() == 0


def test_mask_switch_shows_which_outputs_stay(page, app_url):
    from playwright.sync_api import expect

    open_app(page, f"{app_url}/positional?lang=en")
    page.get_by_text("Causal mask (lesson 4)").first.click()
    masked = page.get_by_text("With the mask, the outputs at").first
    expect(masked).to_contain_text("を (object marker), 追う (chase)", timeout=20_000)
    settle(page)
    expect_url_has(page, "pe_mask=true")
    assert page.locator('[data-testid="stException"]').count() == 0


def test_waves_sit_right_above_their_sliders_on_a_phone(page, app_url):
    page.set_viewport_size({"width": 390, "height": 844})
    open_app(page, f"{app_url}/positional?lang=en")
    slider = page.get_by_role("slider").nth(0)
    slider.scroll_into_view_if_needed()
    waves = page.locator('[data-testid="stVegaLiteChart"]').first
    box, below = waves.bounding_box(), slider.bounding_box()
    assert box and below and box["y"] + box["height"] <= below["y"] < box["y"] + box["height"] + 250
    assert page.locator('[data-testid="stException"]').count() == 0
