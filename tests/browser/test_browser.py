"""Layer 4: the real app in headless Chromium.

Finds Chromium at $CHROMIUM_PATH (default /usr/bin/chromium). Without it the
tests skip, unless REQUIRE_BROWSER=1 (set by .ci/run), where they fail.
"""

from __future__ import annotations

import re

import pytest
from helpers.apprun import expect_url_has, open_app, open_fold, settle, step_slider

pytestmark = pytest.mark.browser


def test_home_page_loads_in_japanese_and_english(page, app_url):
    from playwright.sync_api import expect

    open_app(page, app_url)
    expect(page.locator("h1").first).to_contain_text("アテンション")
    assert page.locator('[data-testid="stException"]').count() == 0
    open_app(page, f"{app_url}/?lang=en")
    expect(page.locator("h1").first).to_contain_text("Attention")


def test_attention_page_slider_changes_a_weight(page, app_url):
    from playwright.sync_api import expect

    open_app(page, f"{app_url}/attention?lang=en")
    assert page.locator('[data-testid="stException"]').count() == 0
    summary = page.get_by_text("attends most to").first
    expect(summary).to_contain_text("65.7%")
    # Lower the temperature with the keyboard: weights sharpen.
    step_slider(page.get_by_role("slider").nth(0), "ArrowLeft", 5)
    expect(summary).not_to_contain_text("65.7%", timeout=20_000)
    settle(page)
    assert page.locator('[data-testid="stException"]').count() == 0
    expect(page).to_have_url(re.compile(r"at_temp=0\.5"))


def test_menu_link_keeps_the_language(page, app_url):
    from playwright.sync_api import expect

    open_app(page, f"{app_url}/?lang=en")
    page.locator('[data-testid="stSidebar"]').get_by_text("2. Attention").click()
    expect(page.locator("h1").first).to_contain_text("Query, Key, Value", timeout=30_000)
    expect_url_has(page, "lang=en")


def test_language_switch_changes_the_page_and_the_url(page, app_url):
    from playwright.sync_api import expect

    open_app(page, f"{app_url}/attention")
    expect(page.locator("h1").first).to_contain_text("アテンション")
    page.locator('[data-testid="stSidebar"]').get_by_text("English", exact=True).click()
    expect(page.locator("h1").first).to_contain_text("Query, Key, Value", timeout=30_000)
    expect_url_has(page, "lang=en")
    page.reload()
    settle(page, timeout_ms=60_000)
    expect(page.locator("h1").first).to_contain_text("Query, Key, Value")


def test_clicking_a_heatmap_row_chooses_the_query(page, app_url):
    from urllib.parse import quote

    from playwright.sync_api import expect

    open_app(page, f"{app_url}/attention?lang=en")
    open_fold(page, "en", "ui.explorer.map_header", n=10)  # the map is folded
    heatmap = page.locator('[data-testid="stVegaLiteChart"]').nth(1)
    heatmap.scroll_into_view_if_needed()
    cells = heatmap.locator("g.mark-rect path")  # one per cell, row by row
    chosen = page.get_by_text("Weights of 食べた (ate)")
    # A rerun right after the fold opens may redraw the chart under the
    # pointer and drop the click, as a learner's first click can be dropped;
    # the learner clicks again, and so does the test, at most four times.
    for _ in range(4):
        settle(page, timeout_ms=20_000)
        cells.nth(4 * 10).click(position={"x": 3, "y": 3})  # a cell of row 4: 食べた
        try:
            expect(chosen).to_be_visible(timeout=5_000)
            break
        except AssertionError:
            continue
    expect(chosen).to_be_visible(timeout=20_000)
    expect_url_has(page, f"at_query={quote('食べた')}")


def test_query_sliders_edit_the_chosen_token(page, app_url):
    from urllib.parse import quote

    from playwright.sync_api import expect

    open_app(page, f"{app_url}/attention?lang=en&at_mask=false&at_query={quote('猫')}")
    expect(page.get_by_text("The query q of 猫 (cat)")).to_be_visible()
    summary = page.get_by_text("attends most to").first
    expect(summary).to_contain_text("食べた (ate)")
    step_slider(page.get_by_role("slider").nth(3), "ArrowLeft", 10)  # 猫's action 1.0 -> 0.0
    expect(summary).to_contain_text("魚 (fish)", timeout=20_000)
    settle(page)
    expect_url_has(page, "at_q0=0%2C1%2C0%2C0", "at_q0=0,1,0,0")
    assert page.locator('[data-testid="stException"]').count() == 0


def test_share_link_restores_the_controls_in_a_new_tab(page, app_url):
    from playwright.sync_api import expect

    open_app(page, f"{app_url}/attention?lang=en")
    step_slider(page.get_by_role("slider").nth(0), "ArrowRight", 3)  # temperature
    expect(page.get_by_text("attends most to").first).not_to_contain_text("65.7%", timeout=20_000)
    settle(page)
    page.get_by_role("button", name="Share this view").click()
    code = page.locator('[data-testid="stCode"] code').last
    expect(code).to_be_visible(timeout=20_000)  # drawn once the popover is open
    link = code.inner_text()
    assert "at_temp=1.3" in link and "lang=en" in link
    other = page.context.new_page()
    open_app(other, link)
    expect(other.get_by_role("slider").nth(0)).to_have_value("1.3")
    other.close()


def test_a_completed_task_survives_a_reload(page, app_url):
    from playwright.sync_api import expect

    open_app(page, f"{app_url}/attention?lang=en")
    step_slider(page.get_by_role("slider").nth(0), "ArrowRight", 5)  # temperature 1.0 -> 1.5: 魚 48.4 %
    task = page.locator('[data-testid="stMarkdown"] p', has_text="raise the temperature")
    ticked = task.get_by_role("img", name="check_box icon", exact=True)
    expect(ticked).to_be_visible(timeout=20_000)
    settle(page)
    expect(page).to_have_url(re.compile(r"p=at\.001"))
    page.reload()
    settle(page, timeout_ms=60_000)
    expect(ticked).to_be_visible(timeout=30_000)


def test_two_sessions_never_see_each_others_state(browser, app_url):
    from playwright.sync_api import expect

    first, second = browser.new_context(), browser.new_context()
    try:
        a, b = first.new_page(), second.new_page()
        open_app(a, f"{app_url}/playground?lang=en")
        open_app(b, f"{app_url}/playground?lang=en")
        box = a.get_by_label("Sentence (tokens separated by spaces)")
        box.fill("いぬ が ほね を かじる")
        box.press("Enter")
        expect(a.get_by_text("Weights of かじる")).to_be_visible(timeout=20_000)
        b.reload()
        settle(b, timeout_ms=60_000)
        expect(b.get_by_text("Weights of だった (was)")).to_be_visible(timeout=20_000)
        expect(b.get_by_label("Sentence (tokens separated by spaces)")).to_have_value(re.compile("^猫"))
    finally:
        first.close()
        second.close()


def test_hostile_text_runs_no_script_and_shows_as_typed(page, app_url):
    from playwright.sync_api import expect

    dialogs = []
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    open_app(page, f"{app_url}/playground?lang=en")
    box = page.get_by_label("Sentence (tokens separated by spaces)")
    hostile = "<img src=x onerror=alert(1)> <script>alert(2)</script> **b**"
    box.fill(hostile)
    box.press("Enter")
    expect(page.get_by_text("Weights of **b**")).to_be_visible(timeout=20_000)
    settle(page)
    assert dialogs == []
    assert page.locator("main img[src='x']").count() == 0
