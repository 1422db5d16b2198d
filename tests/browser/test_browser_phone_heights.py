"""On a phone (390 × 844) every lesson's main path, its folds closed, is at
most PHONE_MAX px tall, in both languages, the capstone with its model
trained (tests/tools/page_heights.py prints them all); and a fold opened in
the browser draws its body."""

from __future__ import annotations

import contextlib
import sys
from pathlib import Path

import pytest
from helpers.apprun import open_app, rerun, settle

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools"))
from helpers.apprun import page_paths
from page_heights import MEASURE, train_the_default_model

from course_app.i18n import LANGS

pytestmark = pytest.mark.browser

PHONE_MAX = 6000
# The glossary is a reference read by its anchors, not a lesson's path.
NOT_A_PATH = {"glossary"}


@pytest.mark.parametrize("lang", LANGS)
def test_every_lesson_fits_a_phone_with_its_folds_closed(phone, app_url, lang):
    train_the_default_model(phone, app_url)
    heights = {}
    for name, path in page_paths().items():
        if name in NOT_A_PATH:
            continue
        open_app(phone, f"{app_url}/{path}?lang={lang}")
        settle(phone)
        heights[name] = phone.evaluate(MEASURE)[0]
    assert len(heights) >= 9, heights
    assert min(heights.values()) > 800, heights  # the pages drew
    too_tall = {name: h for name, h in heights.items() if h > PHONE_MAX}
    assert not too_tall, too_tall


def test_a_fold_opened_in_the_browser_draws_its_body_and_keeps_it(phone, app_url):
    open_app(phone, f"{app_url}/{page_paths()['attention']}?lang=en")
    main = phone.locator('[data-testid="stMain"]')
    hand = main.get_by_text("Dot products", exact=False)
    assert hand.count() == 0
    phone.locator('[data-testid="stExpander"] summary', has_text="Compute it by hand").click()
    hand.first.wait_for(timeout=20_000)
    # a rerun from another control leaves the fold open and its body drawn
    rerun(phone, phone.get_by_text("Causal mask", exact=True).first.click)
    assert hand.first.is_visible()


STICKY = """() => getComputedStyle(
  document.querySelector('.st-key-sticky_figure').closest('[data-testid="stColumn"]')).position"""


def test_the_explorer_chart_stays_in_view_while_its_controls_scroll(browser, app_url):
    """The explorer's chart column is sticky: at 1280 × 800 it stays in view
    beside the sliders; on a phone, where the columns stack, it stays pinned
    above them (tests/browser/test_browser_figures_in_view.py checks what is seen)."""
    for (width, height), wanted in (((1280, 800), "sticky"), ((390, 844), "sticky")):
        context = browser.new_context(viewport={"width": width, "height": height})
        page = context.new_page()
        open_app(page, f"{app_url}/{page_paths()['attention']}?lang=en")
        # the stylesheet may land a moment after the column is drawn; if it never
        # does, the assertion below says what the column is instead
        with contextlib.suppress(Exception):
            page.wait_for_function(f"() => ({STICKY})() === {wanted!r}", timeout=10_000)
        assert page.evaluate(STICKY) == wanted, (width, height)
        context.close()
