"""Layer 4: every chart on every page is readable, in both languages, on a
laptop (1280 × 800) and a phone (390 × 844), as Chromium draws it (Streamlit
draws Vega-Lite charts as SVG; tests/tools/chart_widths.py reads it):

- the plot area (the marks' frame, axes and legends excluded) is at least
  120 px tall on the laptop and 100 px on the phone;
- no two labels (axis ticks, values printed on bars or cells) overlap, tilted
  ones compared by their turned outline;
- no axis or legend title, chart title or legend label reaches outside the
  chart's box (where it would be cut);
- no two entries of a legend share a colour.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools"))
from chart_widths import MIN_PLOT, measure, unreadable
from helpers.apprun import page_paths
from screenshots import SIZES

from course_app.i18n import LANGS

pytestmark = pytest.mark.browser


@pytest.mark.parametrize("size", list(SIZES))
@pytest.mark.parametrize("lang", LANGS)
def test_every_chart_has_room_clear_labels_whole_titles_and_own_colours(browser, app_url, size, lang):
    width, height = SIZES[size]
    context = browser.new_context(viewport={"width": width, "height": height})
    page = context.new_page()
    failing, seen = [], 0
    try:
        for name, path in page_paths().items():
            for k, chart in enumerate(measure(page, f"{app_url}/{path}?lang={lang}")):
                seen += 1
                found = unreadable(chart, MIN_PLOT[size])
                if found:
                    failing.append(f"{name} #{k} ({chart['label'][:40]}): {'; '.join(found.values())}")
    finally:
        context.close()
    assert seen >= 25, f"only {seen} charts measured: the pages did not draw"
    assert not failing, f"{len(failing)} of {seen} charts:\n" + "\n".join(failing)
