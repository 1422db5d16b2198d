"""Layer 4: a chart of shares (attention weights, probabilities) keeps one
y axis, 0 to 100 %, as Chromium draws it: the same ticks before and after a
control moves, so that a learner compares bars by their height; and on every
page, in both languages, every y axis in percent runs from 0 % to 100 %.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from helpers.apprun import open_app, settle, step_slider

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools"))
from screenshots import every_page_unfolded

from course_app.i18n import LANGS

pytestmark = pytest.mark.browser

# The tick labels of every y axis of every chart on the page, chart by chart
# (Vega writes an axis's role and an aria label starting "Y-axis").
Y_TICKS = r"""() => [...document.querySelectorAll('[data-testid="stVegaLiteChart"]')]
  .filter(el => el.getBoundingClientRect().width > 0)
  .map(el => ({
    label: (el.getAttribute('aria-label') || '').slice(0, 50),
    axes: [...el.querySelectorAll('g.role-axis')]
      .filter(a => (a.getAttribute('aria-label') || '').startsWith('Y-axis'))
      .map(a => [...a.querySelectorAll('.role-axis-label text')].map(t => t.textContent.trim())),
  }))"""


def y_ticks(page) -> list[dict]:
    settle(page)
    return page.evaluate(Y_TICKS)


def percent_axes(charts: list[dict]) -> list[tuple[str, list[str]]]:
    """(chart, ticks) for every y axis whose ticks are percentages."""
    return [(c["label"], ticks) for c in charts for ticks in c["axes"] if ticks and ticks[-1].endswith("%")]


def test_attention_weights_axis_stays_put_when_the_temperature_moves(page, app_url):
    open_app(page, f"{app_url}/attention?lang=en")
    before = percent_axes(y_ticks(page))
    assert before, "no weights chart with a percent axis on the attention page"
    step_slider(page.get_by_role("slider").nth(0), "ArrowLeft", 5)  # temperature 1.0 -> 0.5: sharper
    after = percent_axes(y_ticks(page))
    assert after == before  # the same charts, the same ticks
    assert all(ticks[0] == "0%" and ticks[-1] == "100%" for _, ticks in after), after


@pytest.mark.parametrize("lang", LANGS)
def test_every_percent_axis_on_every_page_runs_from_0_to_100(browser, app_url, lang):
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    page = context.new_page()
    wrong, seen = [], 0
    try:
        for name in every_page_unfolded(page, app_url, lang):
            for label, ticks in percent_axes(y_ticks(page)):
                seen += 1
                if ticks[0] != "0%" or ticks[-1] != "100%":
                    wrong.append(f"{name} ({label}): {ticks[0]} … {ticks[-1]}")
    finally:
        context.close()
    assert seen >= 8, f"only {seen} percent axes found: the pages did not draw"
    assert not wrong, "\n".join(wrong)
