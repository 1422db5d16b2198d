"""Layer 4: every display formula fits a phone's column (390 × 844), as
Chromium draws it: with every fold of every page open, in both languages, no
formula is wider than the column it stands in (where it would have to be
scrolled sideways, or be cut).
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools"))
from screenshots import SIZES, every_page_unfolded

from course_app.i18n import LANGS

pytestmark = pytest.mark.browser

# Every display formula: the width KaTeX drew it (its content, scrolled part
# included) and the width of the element it stands in.
FORMULAS = r"""() => [...document.querySelectorAll('[data-testid="stMain"] .katex-display')]
  .filter(k => k.getBoundingClientRect().width > 0)
  .map(k => {
    const box = k.closest('[data-testid="stElementContainer"]') || k.parentElement;
    const drawn = k.querySelector('.katex-html') || k;
    return {
      drawn: Math.round(Math.max(drawn.scrollWidth, drawn.getBoundingClientRect().width)),
      column: Math.round(box.getBoundingClientRect().width),
      text: (k.querySelector('annotation') || k).textContent.slice(0, 60),
    };
  })"""


@pytest.mark.parametrize("lang", LANGS)
def test_every_display_formula_fits_a_phone_column(browser, app_url, lang):
    width, height = SIZES["phone"]
    context = browser.new_context(viewport={"width": width, "height": height})
    page = context.new_page()
    wide, seen = [], 0
    try:
        for name in every_page_unfolded(page, app_url, lang):
            for formula in page.evaluate(FORMULAS):
                seen += 1
                if formula["drawn"] > formula["column"] + 1:
                    wide.append(f"{name}: {formula['drawn']} px in {formula['column']} px: {formula['text']}")
    finally:
        context.close()
    assert seen >= 10, f"only {seen} formulas found: the pages did not draw"
    assert not wide, f"{len(wide)} of {seen} formulas are wider than the column:\n" + "\n".join(wide)
