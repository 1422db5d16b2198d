"""Layer 4: the course by touch on a phone (390 × 844, a touch screen that
cannot hover). Every kind of control the lessons use answers a finger: a
slider tapped along its track, a select box and its option, a look-up
popover, and the capstone's Train button. Nothing here clicks with a mouse:
every step is a tap.
"""

from __future__ import annotations

import re

import pytest
from helpers.apprun import open_app, rerun, settle

from course_app.i18n import catalog

pytestmark = pytest.mark.browser

PHONE = {"width": 390, "height": 844}
EN = catalog("en")
SEED = 613  # the capstone's seed here, used by no other test (grep gpt_seed=)

# Scroll the element's centre into the part of the screen a finger reaches:
# below the figure a lesson pins at the top of a phone's screen (when there is
# one), halfway to the screen's foot, clear of a toast there. Streamlit's main
# column scrolls, not the window.
SCROLL_INTO_REACH = """(el) => {
  const scrolls = (b) => b.scrollHeight > b.clientHeight
    && /(auto|scroll)/.test(getComputedStyle(b).overflowY);
  let box = el.parentElement;
  while (box && !scrolls(box)) box = box.parentElement;
  const pin = document.querySelector('[data-testid="stColumn"]:has(.st-key-sticky_figure)');
  const pinned = pin && getComputedStyle(pin).position === "sticky";
  const top = pinned ? parseFloat(getComputedStyle(pin).top) + pin.offsetHeight : 0;
  const r = el.getBoundingClientRect();
  (box || document.scrollingElement).scrollBy(0, r.top + r.height / 2 - (top + window.innerHeight) / 2);
  return top;
}"""


@pytest.fixture
def touch(browser):
    """A page on a touch phone, closed after the test."""
    context = browser.new_context(viewport=PHONE, has_touch=True, is_mobile=True, device_scale_factor=2)
    yield context.new_page()
    context.close()


# Resolves once the point (x, y) hits the element, rejects after ``ms``.
RECEIVES = """(el, [x, y, ms]) => new Promise((done, fail) => {
  const end = performance.now() + ms;
  const poll = () => el.contains(document.elementFromPoint(x, y)) ? done(true)
    : performance.now() > end ? fail(new Error("covered")) : requestAnimationFrame(poll);
  poll();
})"""


def tap(page, locator, fraction: float = 0.5, scroll: bool = True) -> None:
    """Tap ``locator`` at ``fraction`` of its width, halfway down, once it is
    scrolled within a finger's reach (SCROLL_INTO_REACH): the point must be
    the control's own, not a pinned figure's or a toast's over it. An option
    of an open list is tapped where it is (``scroll`` False)."""
    from playwright.sync_api import Error as PlaywrightError

    if scroll:
        locator.evaluate(SCROLL_INTO_REACH)
        settle(page)
    box = locator.bounding_box()
    x, y = box["x"] + fraction * box["width"], box["y"] + box["height"] / 2
    # A list that has just opened takes a moment before it receives touches:
    # wait (a few seconds at most) until the point is the control's own.
    try:
        locator.evaluate(RECEIVES, [x, y, 5_000])
    except PlaywrightError as error:
        covered = page.evaluate(
            "([x, y]) => document.elementFromPoint(x, y)?.outerHTML.slice(0, 200)", [x, y]
        )
        raise AssertionError(f"the control at ({x:.0f}, {y:.0f}) is covered by {covered}") from error
    page.touchscreen.tap(x, y)


def test_a_slider_a_select_box_and_a_look_up_answer_a_finger(touch, app_url):
    from playwright.sync_api import expect

    page = touch
    open_app(page, f"{app_url}/attention?lang=en")

    # The temperature slider (0.1 to 5): a tap three quarters along its track moves it there.
    slider = page.get_by_role("slider", name=re.compile(re.escape(EN["ui.explorer.temp_label"][:12]))).first
    expect(slider).to_have_value("1")
    track = page.locator('[data-testid="stSlider"]', has=slider).locator(
        '[role="group"] > [data-orientation]'
    )
    rerun(page, lambda: tap(page, track.first, 0.75))
    value = float(slider.input_value())
    assert 3.0 <= value <= 4.5, value

    # The query: tap the select box, then tap 猫 in its list.
    select = page.locator('[data-testid="stSelectbox"]', has_text=EN["ui.explorer.query_label"]).first
    tap(page, select.get_by_role("button", name="Open"))
    option = page.get_by_role("option", name=re.compile("^猫"))
    expect(option).to_be_visible()
    rerun(page, lambda: tap(page, option, scroll=False))
    expect(page.get_by_role("heading", name=re.compile("Weights of 猫"))).to_be_visible()

    # A glossary look-up: a tap opens its definitions, with the link into the glossary.
    look_up = page.get_by_role("button", name=re.compile(re.escape(EN["glossary.terms_button"][:18]))).first
    rerun(page, lambda: tap(page, look_up))
    expect(page.get_by_role("link", name=EN["glossary.more"]).first).to_be_visible()
    settle(page)
    assert page.locator('[data-testid="stException"]').count() == 0


def test_the_mini_gpt_trains_from_a_tap(touch, app_url):
    from playwright.sync_api import expect

    page = touch
    # A seed no other test trains: the app's server is shared by the tests of a
    # worker, and a configuration another test trained shows its cached result.
    open_app(page, f"{app_url}/capstone?lang=en&gpt_seed={SEED}")
    train = page.locator(".st-key-gpt_train button")
    expect(page.get_by_text(re.sub(r"\*\*", "", EN["capstone.train.not_yet"])[:40])).to_be_visible()
    rerun(page, lambda: tap(page, train), timeout_ms=180_000)
    done = EN["capstone.train.reached"].split("{")[0].strip()  # "Done: the loss fell below the target of"
    expect(page.get_by_text(done).first).to_be_visible(timeout=60_000)
    assert page.locator('[data-testid="stException"]').count() == 0
