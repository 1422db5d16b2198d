"""Layer 4: the multi-head lesson in headless Chromium."""

from __future__ import annotations

import pytest
from helpers.apprun import expect_url_has, open_app, open_fold, settle

pytestmark = pytest.mark.browser


def test_multi_head_page_loads_and_the_head_count_moves_d_head(page, app_url):
    from playwright.sync_api import expect

    open_app(page, f"{app_url}/multi_head?lang=en")
    assert page.locator('[data-testid="stException"]').count() == 0
    expect(page.locator("h1").first).to_contain_text("Multi-head attention")
    # the GPT-2 shapes are a deep dive, folded away until opened
    page.get_by_text("The shape of every step").first.click()
    result = page.get_by_text("Each head is a thin attention").first
    expect(result).to_contain_text("width 64")
    # the GPT-2 head count (divisors of 768 only), moved with the keyboard: 12 -> 16
    slider = page.get_by_role("slider", name="Number of heads h")
    slider.focus()
    slider.press("ArrowRight")
    expect(result).to_contain_text("width 48", timeout=20_000)
    settle(page)
    assert page.locator('[data-testid="stException"]').count() == 0
    expect_url_has(page, "mh_heads=16")


def test_seed_slider_changes_the_random_heads(page, app_url):
    from playwright.sync_api import expect

    open_app(page, f"{app_url}/multi_head?lang=ja")
    open_fold(page, "ja", "multi_head.run.header")  # section 4 is a fold
    flat = page.get_by_text("重みの最大は").first
    expect(flat).to_contain_text("21.3%")
    seed = page.get_by_role("slider", name="乱数のシード（W_Q、W_K、W_V、W_O を引き直す）")
    seed.focus()
    seed.press("ArrowRight")  # one step: a rerun replaces the slider, so one key per check
    expect(flat).not_to_contain_text("21.3%", timeout=20_000)
    settle(page)
    expect_url_has(page, "mh_seed=1")
    assert page.locator('[data-testid="stException"]').count() == 0


def test_look_back_control_sits_under_its_chart_on_a_phone(page, app_url):
    from playwright.sync_api import expect

    page.set_viewport_size({"width": 390, "height": 844})
    open_app(page, f"{app_url}/multi_head?lang=en")
    summary = page.get_by_text("the look-back head looks most at").first
    expect(summary).to_contain_text("。")  # k = 1: the token right before それ
    chart = page.locator('[data-testid="stVegaLiteChart"]').first
    control = page.get_by_role("slider", name="How far back the look-back head looks (k)")
    control.scroll_into_view_if_needed()
    box, below = chart.bounding_box(), control.bounding_box()
    assert box and below and box["y"] + box["height"] <= below["y"] < box["y"] + box["height"] + 250
    control.focus()
    control.press("ArrowRight")  # k = 2
    expect(summary).to_contain_text("食べた", timeout=20_000)
    settle(page)
    expect_url_has(page, "mh_offset=2")
    assert page.locator('[data-testid="stException"]').count() == 0
