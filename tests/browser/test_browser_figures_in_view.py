"""Each lesson's central figure and the controls that change it fit on one
screen together, on a laptop (1280 × 800) and on a phone (390 × 844).

For every control the learner can scroll to a place where the chart (the
figure's Vega charts, not its headings) and that control are both wholly
between the top bar and the bottom of the window: either with the control
at the bottom of the window (a figure that stays put, position: sticky,
is then still in view above it) or with the pair's top just under the bar.
On a laptop a figure that does not stay put must fit with *all* its
controls at once, as the learner moves one after the other.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import NamedTuple

import pytest
from helpers.apprun import open_app, press_train, settle

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools"))
from helpers.apprun import page_paths

from course_app.i18n import LANGS
from course_app.views import MAIN_FIGURE

pytestmark = pytest.mark.browser

LAPTOP, PHONE = (1280, 800), (390, 844)


class Figure(NamedTuple):
    """A lesson's central figure: the key of its container, the keys of the
    controls that change it, and whether it stays put while they scroll."""

    key: str
    controls: tuple[str, ...]
    sticky: bool = False


FIGURES = {
    "bigram": Figure(MAIN_FIGURE, ("bg_sentence", "bg_read")),
    "attention": Figure(
        "sticky_figure",
        # the sliders are those of the default query, それ (token 6)
        ("at_query", "at_mask", "at_temp", "at_q6_animal", "at_q6_food", "at_q6_action", "at_q6_function"),
        sticky=True,
    ),
    "scaling": Figure(MAIN_FIGURE, ("sc_dk", "sc_dk_seed")),
    "causal_mask": Figure(MAIN_FIGURE, ("cm_query", "cm_mask", "cm_window", "cm_temp")),
    "positional": Figure(MAIN_FIGURE, ("pe_n", "pe_d")),
    "multi_head": Figure(MAIN_FIGURE, ("mh_query", "mh_offset")),
    # the loss curve changes when the learner presses Train (the sliders above
    # set up the next run and change nothing on the curve until then)
    "capstone": Figure(MAIN_FIGURE, ("gpt_train",)),
    "todays_llms": Figure(MAIN_FIGURE, ("llm_prompt", "llm_step")),
}

# Page coordinates (main's scroll offset added) of the figure's charts, taken
# together, and of the named controls, taken together; the top bar's bottom.
MEASURE = """([figure, controls]) => {
  const main = document.querySelector('[data-testid="stMain"]');
  const span = (elements) => {
    const boxes = elements.map((e) => e.getBoundingClientRect()).filter((b) => b.height > 0);
    if (!boxes.length) return null;
    return [Math.min(...boxes.map((b) => b.top)), Math.max(...boxes.map((b) => b.bottom))];
  };
  const charts = [...document.querySelectorAll(`.st-key-${figure} [data-testid="stVegaLiteChart"]`)];
  const widgets = controls.map((k) => document.querySelector(`.st-key-${k}`)).filter(Boolean);
  const bar = document.querySelector('header[data-testid="stHeader"]');
  return {
    chart: span(charts), controls: span(widgets), found: widgets.length,
    top: bar ? bar.getBoundingClientRect().bottom : 0, bottom: window.innerHeight,
    scroll: main.scrollTop,
  };
}"""
SCROLL_BY = """(dy) => { document.querySelector('[data-testid="stMain"]').scrollTop += dy; }"""


def both_in_view(page, figure: Figure, controls: tuple[str, ...]) -> tuple[bool, dict]:
    """Whether some scroll position shows the figure's chart and ``controls``
    wholly; tries the two places a learner would stop. Returns the verdict and
    the last measurement (for the failure message)."""
    seen = page.evaluate(MEASURE, [figure.key, list(controls)])
    assert seen["chart"] and seen["found"] == len(controls), seen
    for place in ("controls at the bottom", "pair at the top"):
        if place == "controls at the bottom":
            dy = seen["controls"][1] - seen["bottom"] + 4
        else:
            dy = min(seen["chart"][0], seen["controls"][0]) - seen["top"] - 4
        page.evaluate(SCROLL_BY, dy)
        settle(page)  # a sticky figure settles
        seen = page.evaluate(MEASURE, [figure.key, list(controls)])
        boxes = (seen["chart"], seen["controls"])
        if all(top >= seen["top"] - 1 and bottom <= seen["bottom"] + 1 for top, bottom in boxes):
            return True, seen
    return False, seen | {"place": place}


def open_lesson(page, url: str, name: str) -> None:
    open_app(page, url)
    if name == "capstone":  # the curve exists once a run has been trained
        press_train(page)
    page.wait_for_selector(f".st-key-{FIGURES[name].key} [data-testid='stVegaLiteChart']", timeout=60_000)
    settle(page)


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("size", [LAPTOP, PHONE], ids=["laptop", "phone"])
def test_each_lesson_figure_is_on_screen_with_its_controls(browser, app_url, lang, size):
    width, height = size
    context = browser.new_context(viewport={"width": width, "height": height})
    page = context.new_page()
    paths, apart = page_paths(), {}
    for name, figure in FIGURES.items():
        open_lesson(page, f"{app_url}/{paths[name]}?lang={lang}", name)
        groups = [(c,) for c in figure.controls]
        if size == LAPTOP and not figure.sticky:
            groups.append(figure.controls)  # all of them, one after another, without scrolling away
        for controls in groups:
            fits, seen = both_in_view(page, figure, controls)
            if not fits:
                apart[f"{name}: {' '.join(controls)}"] = seen
    context.close()
    assert not apart, apart


def test_the_figure_check_sees_a_figure_that_scrolled_away(browser, app_url):
    """The check itself: on a phone, the causal-mask map of the lesson's first
    section and the query control of its fourth are a screen apart."""
    context = browser.new_context(viewport={"width": PHONE[0], "height": PHONE[1]})
    page = context.new_page()
    open_app(page, f"{app_url}/{page_paths()['causal_mask']}?lang=en")
    far = Figure(MAIN_FIGURE, ("cm_query",))
    assert both_in_view(page, far, far.controls)[0]
    # the first chart of the page, keyed by hand as if it were the figure
    page.evaluate(
        """() => {
        const first = document.querySelector('[data-testid="stMain"] [data-testid="stVegaLiteChart"]');
        document.querySelector('.st-key-main_figure').classList.remove('st-key-main_figure');
        first.parentElement.classList.add('st-key-main_figure');
    }"""
    )
    assert not both_in_view(page, far, far.controls)[0]
    context.close()
