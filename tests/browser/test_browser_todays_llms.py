"""Layer 4: the lesson on today's LLMs in headless Chromium: the page loads in
both languages, stepping the generation with the keyboard moves the cost
numbers and the URL, and a RoPE position slider changes the score."""

from __future__ import annotations

import pytest
from helpers.apprun import expect_url_has, open_app, open_fold, settle, step_slider

pytestmark = pytest.mark.browser
EXCEPTION = '[data-testid="stException"]'


def test_stepping_the_generation_updates_the_costs(page, app_url):
    from playwright.sync_api import expect

    open_app(page, f"{app_url}/todays_llms?lang=en")
    assert page.locator(EXCEPTION).count() == 0
    expect(page.locator("h1").first).to_contain_text("today's LLMs")
    costs = page.get_by_text("without a cache the blocks cost").first
    expect(costs).to_contain_text("(3 tokens)")
    expect(costs).to_contain_text("74,496")  # 2 · (12 · 32² · 3 + 32 · 3 · 4), worked out by hand
    step = page.get_by_role("slider", name="Tokens read so far")
    step_slider(step, "ArrowRight")
    expect(costs).to_contain_text("(4 tokens)", timeout=20_000)
    expect(costs).to_contain_text(f"{2 * (12 * 32 * 32 * 4 + 32 * 4 * 5):,}")
    settle(page)
    expect_url_has(page, "llm_step=4")
    assert page.locator(EXCEPTION).count() == 0


def test_japanese_page_and_the_rope_slider(page, app_url):
    from playwright.sync_api import expect

    open_app(page, f"{app_url}/todays_llms?lang=ja&llm_m=5&llm_n=2")
    assert page.locator(EXCEPTION).count() == 0
    expect(page.locator("h1").first).to_contain_text("いまの LLM")
    open_fold(page, "ja", "todays_llms.rope.header")  # section 2 is a fold
    result = page.get_by_text("m − n =").first
    expect(result).to_contain_text("+3")
    m = page.get_by_role("slider", name="クエリの位置 m")
    step_slider(m, "ArrowRight")
    expect(result).to_contain_text("+4", timeout=20_000)
    settle(page)
    expect_url_has(page, "llm_m=6")
    assert page.locator(EXCEPTION).count() == 0


def test_a_fold_inside_a_folded_demo_stays_inline_when_the_demo_reruns_alone(page, app_url):
    """The block-by-block demo is a fragment inside its fold; the fold it holds
    ("Why rescaling …") is drawn inline, in bold, on the page's run and on the
    fragment's own reruns alike: never as an expander inside an expander."""
    from playwright.sync_api import expect

    from course_app.i18n import catalog

    cat = catalog("en")
    open_app(page, f"{app_url}/todays_llms?lang=en")
    open_fold(page, "en", "todays_llms.long.block_header")
    inner = cat["todays_llms.long.online_expander"]
    expanders = page.locator('[data-testid="stExpander"] summary', has_text=inner)
    expect(page.locator("strong", has_text=inner)).to_be_visible()
    assert expanders.count() == 0
    block = page.get_by_role("slider", name=cat["todays_llms.long.block"])
    step_slider(block, "ArrowLeft")  # a rerun of the demo's fragment alone
    settle(page)
    expect_url_has(page, "llm_block=9")
    expect(page.locator("strong", has_text=inner)).to_be_visible()
    assert expanders.count() == 0
    assert page.locator(EXCEPTION).count() == 0
