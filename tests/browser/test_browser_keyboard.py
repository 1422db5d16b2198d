"""Layer 4: the attention lesson by keyboard alone (1280 × 900, English), as a
learner without a mouse goes through it: Tab reaches every control in the
page's own order and shows where the focus is; the central demo's slider moves
by arrow keys and keeps the focus through its reruns, until its task ticks; a
fold opens with Enter; a quiz is answered with the arrow keys.

Nothing here clicks or calls ``focus()``: every step is a key press.
"""

from __future__ import annotations

import itertools

import pytest
from helpers.apprun import open_app, rerun, settle

pytestmark = pytest.mark.browser

MOST_STOPS = 200  # Tab presses to go round the whole page and back to its first stop

# The focused element: a description, and a marker on it (data-stop: its
# number in the round, the first time it has the focus) so that the test can
# find it again after the focus has moved on.
FOCUSED = """(next) => {
  const el = document.activeElement;
  if (!el || el === document.body) return null;
  if (!el.hasAttribute('data-stop')) el.setAttribute('data-stop', String(next));
  const n = Number(el.getAttribute('data-stop'));
  const label = el.getAttribute('aria-label') || el.innerText || el.getAttribute('data-testid') || '';
  const role = el.getAttribute('role') || (el.type === 'range' ? 'slider' : '');
  return {n, tag: el.tagName, role, label: label.trim().slice(0, 60),
          visible: el.matches(':focus-visible')};
}"""

# Whether stop ``a`` comes before stop ``b`` in the document.
BEFORE = """([a, b]) => {
  const [x, y] = [a, b].map((n) => document.querySelector(`[data-stop="${n}"]`));
  if (!x || !y) return `stop ${x ? b : a} is no longer in the page`;
  return !!(x.compareDocumentPosition(y) & Node.DOCUMENT_POSITION_FOLLOWING);
}"""

SLIDER = 'input[type="range"], [role="slider"]'

# Whether the focused element matches a CSS selector and holds a text.
ACTIVE_IS = """([selector, text]) => {
  const el = document.activeElement;
  return !!el && el.matches(selector) && el.textContent.includes(text);
}"""


def tab_round(page) -> list[dict]:
    """Every stop of one round of Tab presses from the top of the page, in order."""
    stops: list[dict] = []
    for n in range(MOST_STOPS):
        page.keyboard.press("Tab")
        stop = page.evaluate(FOCUSED, n)
        if stop is None:  # past the last stop the focus leaves the page for a moment
            continue
        if stops and stop["n"] == stops[0]["n"]:  # round again at the first stop
            return stops
        assert stop["n"] == n, f"{stop} had the focus twice in one round"
        stops.append(stop)
    raise AssertionError(f"Tab went on past {MOST_STOPS} stops without coming round")


def ring_seen(page, n: int) -> bool:
    """Whether the focus on stop ``n`` shows on screen: the stop's box (and a
    few pixels around it, where a ring is drawn) looks different while it
    has the focus than once the focus has left it."""
    stop = page.locator(f'[data-stop="{n}"]')
    stop.scroll_into_view_if_needed()
    box = stop.bounding_box()
    clip = {
        "x": max(box["x"] - 4, 0),
        "y": max(box["y"] - 4, 0),
        "width": box["width"] + 8,
        "height": box["height"] + 8,
    }
    focused = page.screenshot(clip=clip, animations="disabled")
    page.evaluate("() => document.activeElement.blur()")
    left = page.screenshot(clip=clip, animations="disabled")
    return focused != left


def is_focused(page, selector: str, text: str = "") -> bool:
    return page.evaluate(ACTIVE_IS, [selector, text])


def tab_to(page, selector: str, text: str = "") -> None:
    """Press Tab until the focus is on an element matching ``selector`` (and holding ``text``)."""
    for _ in range(MOST_STOPS):
        page.keyboard.press("Tab")
        if is_focused(page, selector, text):
            return
    raise AssertionError(f"Tab never reached {selector}")


def test_every_stop_is_in_the_page_order_and_shows_its_focus(page, app_url):
    open_app(page, f"{app_url}/attention?lang=en")
    stops = tab_round(page)
    kinds = {(s["tag"], s["role"]) for s in stops}
    assert {
        ("A", ""),
        ("SUMMARY", ""),
        ("BUTTON", ""),
        ("INPUT", "combobox"),
        ("INPUT", "switch"),
    } <= kinds, kinds
    assert any(s["role"] == "slider" for s in stops), "no slider is reached by Tab"
    assert all(s["visible"] for s in stops), [s for s in stops if not s["visible"]]
    out_of_order = [
        (a["label"], b["label"], order)
        for a, b in itertools.pairwise(stops)
        if (order := page.evaluate(BEFORE, [a["n"], b["n"]])) is not True
    ]
    assert not out_of_order, out_of_order
    unseen = []
    for stop in stops:  # each, given the focus again by keyboard, then measured
        page.evaluate('(n) => document.querySelector(`[data-stop="${n}"]`).focus()', stop["n"])
        page.keyboard.press("Shift+Tab")
        page.keyboard.press("Tab")
        if is_focused(page, f'[data-stop="{stop["n"]}"]') and not ring_seen(page, stop["n"]):
            unseen.append(f"{stop['tag']} {stop['role']} {stop['label']!r}")
    assert not unseen, unseen


def test_the_demo_its_task_a_fold_and_a_quiz_by_keyboard_alone(page, app_url):
    from playwright.sync_api import expect

    from course_app import course
    from course_app.i18n import catalog

    en = catalog("en")
    open_app(page, f"{app_url}/attention?lang=en")
    temperature = page.get_by_role("slider").first

    # The central demo: the temperature slider, 1.0 -> 1.5 in five presses of →.
    tab_to(page, SLIDER)
    expect(temperature).to_be_focused()
    expect(temperature).to_have_value("1")
    for _ in range(5):
        rerun(page, lambda: page.keyboard.press("ArrowRight"))
        assert is_focused(page, SLIDER), "a rerun took the focus off the slider"
    expect(temperature).to_have_value("1.5")
    task = page.locator('[data-testid="stMarkdown"] p', has_text="raise the temperature")
    expect(task.get_by_role("img", name="check_box icon", exact=True)).to_be_visible(timeout=20_000)

    # A fold opens with Enter (the takeaways, further down the page).
    takeaways = page.locator('[data-testid="stExpander"] details', has_text=en["ui.takeaway"])
    expect(takeaways).not_to_have_attribute("open", "")
    tab_to(page, "summary", en["ui.takeaway"])
    rerun(page, lambda: page.keyboard.press("Enter"))
    expect(takeaways).to_have_attribute("open", "")
    expect(takeaways).to_contain_text(en["attention.end.takeaway"].strip().splitlines()[0][2:40])

    # The first question, answered with the arrow keys: Tab enters the group
    # on its first option, Space chooses it, ↓ moves to the next and chooses it.
    question = course.BY_ID["attention"].quizzes[0]
    base = f"attention.quiz.{question.id}"
    group = page.get_by_role("radiogroup", name=en[f"{base}.question"])
    tab_to(page, '[data-testid="stRadio"] input')
    rerun(page, lambda: page.keyboard.press("Space"))
    for _ in range(question.answer):
        rerun(page, lambda: page.keyboard.press("ArrowDown"))
    settle(page)
    expect(group.get_by_role("radio", checked=True)).to_have_accessible_name(
        en[f"{base}.options"][question.answer]
    )
    expect(page.get_by_text(en[f"{base}.feedback"][question.answer][:20]).first).to_be_visible(timeout=20_000)
