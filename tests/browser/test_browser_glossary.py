"""Layer 4: the glossary page in headless Chromium (see tests/browser/test_browser.py):
it fits a phone's width, its index links jump to their term, and a lesson's
look-up opens the glossary at the term, with that term's explanation open and
no other, in the learner's language."""

from __future__ import annotations

import pytest
from helpers.apprun import open_app

from course_app.i18n import LANGS

pytestmark = pytest.mark.browser

ERROR = '[data-testid="stException"]'
TOP_OF = "id => document.getElementById(id).getBoundingClientRect().top"
AT_TOP = "id => Math.abs(document.getElementById(id).getBoundingClientRect().top) < 150"


@pytest.mark.parametrize("width", [390, 1280])
@pytest.mark.parametrize("lang", LANGS)
def test_glossary_fits_the_width_and_its_index_jumps_to_a_term(browser, app_url, lang, width):
    context = browser.new_context(viewport={"width": width, "height": 844})
    page = context.new_page()
    try:
        open_app(page, f"{app_url}/glossary?lang={lang}")
        assert page.locator(ERROR).count() == 0
        assert page.evaluate("() => document.scrollingElement.scrollWidth") <= width
        assert page.evaluate(TOP_OF, "causal-mask") > 844  # far below the first screen
        page.locator('[data-testid="stMain"] a[href="#causal-mask"]').first.click()
        page.wait_for_function(AT_TOP, arg="causal-mask", timeout=10_000)
        assert len(context.pages) == 1, "the index opens no new tab"
    finally:
        context.close()


def test_a_lesson_look_up_opens_the_glossary_at_its_term(page, app_url):
    from playwright.sync_api import expect

    open_app(page, f"{app_url}/attention?lang=en")
    page.get_by_role("button", name="dot product").first.click()
    link = page.get_by_role("link", name="More in the glossary").first
    expect(link).to_be_visible()
    href = link.get_attribute("href")
    assert "glossary?lang=en" in href and href.endswith("#dot-product")
    open_app(page, href if href.startswith("http") else f"{app_url}/{href.lstrip('/')}")
    page.wait_for_function(AT_TOP, arg="dot-product", timeout=10_000)
    expect(page.locator("h3#dot-product, #dot-product").first).to_contain_text("dot product")


def test_a_look_up_link_opens_the_glossary_in_the_same_tab(page, app_url):
    from playwright.sync_api import expect

    open_app(page, f"{app_url}/attention?lang=en")
    page.get_by_role("button", name="dot product").first.click()
    link = page.get_by_role("link", name="More in the glossary").first
    expect(link).to_have_attribute("target", "_self")
    link.click()
    page.wait_for_url("**/glossary?*", timeout=20_000)
    page.wait_for_selector("#dot-product", state="attached", timeout=30_000)
    page.wait_for_function(AT_TOP, arg="dot-product", timeout=20_000)
    assert len(page.context.pages) == 1, "the look-up opened a new tab"
    assert "lang=en" in page.url and "p=at." in page.url, page.url  # the language and the progress
    # The term's explanation is open, and only that one.
    opened = page.locator('[data-testid="stExpander"] details[open] summary')
    expect(opened).to_have_count(1, timeout=20_000)
    expect(opened).to_contain_text("dot product")


def test_the_term_is_brought_back_if_the_first_scroll_ended_elsewhere(page, app_url):
    """On a slow first run Streamlit scrolls to the term while the rest of the
    page is still arriving, so the scroll can stop short. Once the run is over,
    the page brings the term back to the top (here the short first scroll is
    simulated by scrolling to the title from script, which no learner does)."""
    open_app(page, f"{app_url}/glossary?lang=ja#dot-product")
    page.wait_for_function(AT_TOP, arg="dot-product", timeout=10_000)
    # Scroll away and measure in one step: the page's own check runs every
    # 200 ms, and between two separate calls it may already have scrolled back.
    moved_to = page.evaluate(
        """id => {
            document.querySelector('[data-testid="stMain"] h1').scrollIntoView();
            return document.getElementById(id).getBoundingClientRect().top;
        }""",
        "dot-product",
    )
    assert moved_to > 844
    page.wait_for_function(AT_TOP, arg="dot-product", timeout=3_000)


def test_the_learner_scrolling_away_is_not_undone(page, app_url):
    open_app(page, f"{app_url}/glossary?lang=en#dot-product")
    page.wait_for_function(AT_TOP, arg="dot-product", timeout=10_000)
    page.mouse.move(900, 500)  # over the lesson, not the sidebar
    page.mouse.wheel(0, 2500)
    page.wait_for_function(f"id => !({AT_TOP})(id)", arg="dot-product", timeout=5_000)
    page.wait_for_timeout(1_000)  # a span in which nothing may happen: no state to wait for
    assert page.evaluate(TOP_OF, "dot-product") < -150, "the page scrolled back by itself"
