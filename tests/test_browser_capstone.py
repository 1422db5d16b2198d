"""Layer 4: the capstone in headless Chromium: training from a shared link, the
loss curve and the results appear; a slider moved with the keyboard changes
the numbers in the text."""

from __future__ import annotations

import pytest
from apprun import expect_url_has, open_app, settle
from test_pages_capstone import expected_parameters

pytestmark = pytest.mark.browser
EXCEPTION = '[data-testid="stException"]'


def test_training_from_a_link_shows_the_curve_and_the_results(page, app_url):
    from playwright.sync_api import expect

    open_app(page, f"{app_url}/capstone?lang=en&gpt_steps=40&gpt_seed=31")
    assert page.locator(EXCEPTION).count() == 0
    expect(page.locator("h1").first).to_contain_text("mini GPT")
    expect(page.get_by_role("slider", name="Training steps")).to_have_value("40")  # from the link
    expect(page.get_by_text("has not been trained yet")).to_be_visible()
    page.get_by_role("button", name="Train", exact=True).click()
    expect(page.get_by_text("All 40 steps done").or_(page.get_by_text("Done: the loss fell"))).to_be_visible(
        timeout=60_000
    )
    settle(page, timeout_ms=60_000)
    # the comparison opens once the learner has predicted
    expect(page.get_by_text("How different are the two sides?")).to_have_count(0)
    page.get_by_role("radiogroup").get_by_text("No: like the bigram", exact=False).click()
    expect(page.get_by_text("How different are the two sides?")).to_be_visible(timeout=30_000)
    settle(page, timeout_ms=60_000)
    curve = page.locator('[data-testid="stVegaLiteChart"]').first
    expect(curve.locator("path.mark-line, g.mark-line path").first).to_be_attached()
    assert page.locator(EXCEPTION).count() == 0
    expect_url_has(page, "gpt_steps=40")


def test_width_slider_changes_the_parameter_count(page, app_url):
    from playwright.sync_api import expect

    open_app(page, f"{app_url}/capstone?lang=en&gpt_seed=997")
    note = page.get_by_text("dimensions for each head").first
    expect(note).to_contain_text(" 32 ÷ h 4 = 8 dimensions")  # after the typeset d_model
    total = page.get_by_text("Training adjusts").first
    expect(total).to_contain_text(f"{expected_parameters(32, 2):,} numbers")
    slider = page.get_by_role("slider").nth(0)  # the width, in steps of 8
    slider.focus()
    slider.press("ArrowRight")
    expect(note).to_contain_text(" 40 ÷ h 4 = 10 dimensions", timeout=20_000)
    expect(total).to_contain_text(f"{expected_parameters(40, 2):,} numbers")
    settle(page)
    assert page.locator(EXCEPTION).count() == 0
    expect_url_has(page, "gpt_width=40")
