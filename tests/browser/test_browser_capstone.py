"""Layer 4: the capstone in headless Chromium: training from a shared link, the
loss curve and the results appear; a slider moved with the keyboard changes
the numbers in the text; generation steps one token at a time."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools"))  # the chart measures
from chart_widths import MEASURE, MIN_PLOT, problems, unreadable
from helpers.apprun import expect_url_has, open_app, open_fold, press_train, rerun, settle
from helpers.written_out import expected_parameters
from screenshots import SIZES

from course_app.i18n import catalog

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


DRAWN = {  # the token the last stage chart marks, as the sentence under the charts names it
    "en": re.compile(r"for new token (\d+): (\S+)"),
    "ja": re.compile(r"(\d+) 個目の新しいトークンとして引いたのは (\S+) です"),
}
STAGE_ALT = {"en": "Bar chart of the probability of every token", "ja": "すべてのトークンの確率の棒グラフ"}


@pytest.mark.parametrize(("size", "lang"), [("laptop", "en"), ("phone", "ja")])
def test_generation_steps_one_token_at_a_time(browser, app_url, size, lang):
    """Train from a link, open "Let it write", and press "next token" until the
    text ends or three tokens are appended: each press appends exactly the token
    the sentence under the charts said was drawn, and the three stage charts fit
    their boxes and stay readable at this width."""
    from playwright.sync_api import expect

    context = browser.new_context(viewport=dict(zip(("width", "height"), SIZES[size], strict=True)))
    page = context.new_page()
    try:
        open_app(page, f"{app_url}/capstone?lang={lang}&gpt_steps=60&gpt_seed=5&gpt_temp=1.5&gpt_topk=5")
        press_train(page)
        open_fold(page, lang, "capstone.gen.header")
        cat = catalog(lang)
        next_button = page.locator(".st-key-gpt_next button")
        heading = cat["capstone.gen.sampling.so_far"].split("**")[1]
        so_far = page.locator('[data-testid="stMarkdownContainer"]', has_text=heading).last
        for step in range(1, 4):
            expect(next_button).to_be_enabled()
            said = page.get_by_text(DRAWN[lang]).first.inner_text()
            number, token = DRAWN[lang].search(said).groups()
            assert int(number) == step
            charts = [c for c in page.evaluate(MEASURE) if c["label"].startswith(STAGE_ALT[lang][:20])]
            assert len(charts) == 3
            for chart in charts:
                assert problems(chart) == [] and unreadable(chart, MIN_PLOT[size]) == {}, chart
            before = so_far.inner_text()
            rerun(page, next_button.click)
            now = so_far.inner_text()
            assert now != before and now.rstrip().endswith(token.strip("*")), (before, now, token)
            if next_button.is_disabled():  # the model drew the end token
                break
        assert page.locator(EXCEPTION).count() == 0
    finally:
        context.close()
