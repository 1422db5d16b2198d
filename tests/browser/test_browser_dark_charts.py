"""Layer 4: in the dark theme (a device set to dark, 1280 × 800) every text a
chart writes on the page's own background (a value over its bar, the names in
the path's boxes, a note beside an arrow, a map's note above it, the axes) is readable: at least 4.5 : 1
against the page's background, as Chromium computes its colour. Text on a
heatmap's cell is measured by the cell tests instead (tests/pages/test_charts.py:
white on dark cells, black on light ones), and is left out here.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools"))
from page_heights import train_the_default_model
from screenshots import every_page_unfolded

pytestmark = pytest.mark.browser

MIN_CONTRAST = 4.5

# Every shown text of every chart (marks, titles and their second lines, axes,
# legends) but a heatmap cell's number (written in one of the two cell inks,
# course_app/charts/heatmaps.py), with its contrast against the app's background.
DIM_TEXT = r"""(least) => {
  const CELL_INK = ['#000000', 'white'];
  const rgb = s => (s.match(/[\d.]+/g) || []).slice(0, 3).map(Number);
  const lum = ([r, g, b]) => {
    const f = c => { c /= 255; return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4; };
    return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b);
  };
  const contrast = (a, b) => {
    const [hi, lo] = [lum(a), lum(b)].sort((x, y) => y - x);
    return (hi + 0.05) / (lo + 0.05);
  };
  const page = rgb(getComputedStyle(document.querySelector('.stApp')).backgroundColor);
  const dim = [];
  let seen = 0;
  for (const chart of document.querySelectorAll('[data-testid="stVegaLiteChart"]')) {
    for (const text of chart.querySelectorAll('svg.marks text')) {
      const box = text.getBoundingClientRect();
      if (!text.textContent.trim() || text.getAttribute('opacity') === '0' || box.width === 0) continue;
      if (CELL_INK.includes(text.getAttribute('fill'))) continue;  // a heatmap cell's number
      seen += 1;
      const c = contrast(rgb(getComputedStyle(text).fill), page);
      if (c < least) dim.push(`${text.textContent.trim().slice(0, 20)} ${c.toFixed(2)}:1`);
    }
  }
  return {seen, dim};
}"""


def test_chart_text_on_the_page_is_readable_in_the_dark_theme(browser, app_url):
    context = browser.new_context(viewport={"width": 1280, "height": 800}, color_scheme="dark")
    page = context.new_page()
    dim, seen = [], 0
    try:
        train_the_default_model(page, app_url)  # the capstone's charts are drawn once it is trained
        for name in every_page_unfolded(page, app_url, "en"):
            found = page.evaluate(DIM_TEXT, MIN_CONTRAST)
            seen += found["seen"]
            dim += [f"{name}: {d}" for d in found["dim"]]
    finally:
        context.close()
    assert seen >= 50, f"only {seen} chart texts found: the pages did not draw"
    assert not dim, f"{len(dim)} of {seen} chart texts under {MIN_CONTRAST}:1:\n" + "\n".join(dim[:40])
