"""Layer 4: a folded section of a lesson's path says so, as Chromium draws it.
A lesson folds some of its numbered sections ("2.", "5.") to stay short on a
phone; beside the folds that go further (worked examples, tables, deep dives)
they read as optional unless marked. On every lesson page, in both languages:
every fold whose label starts with a section number carries the "part of the
lesson" badge, no other fold does, and the lesson's numbered sections (open
headers and folded ones together) run 1, 2, 3, … without a gap.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest
from helpers.apprun import open_app

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools"))
from helpers.apprun import page_paths

from course_app.course import LESSONS
from course_app.i18n import LANGS, catalog

pytestmark = pytest.mark.browser

# Each section's start in page order: an open header (h2) or a fold's label,
# with the text of the badge in the label, if any.
SECTIONS = r"""() => [...document.querySelectorAll(
    '[data-testid="stMain"] h2, [data-testid="stMain"] [data-testid="stExpander"] summary')]
  .map(el => {
    const badge = el.querySelector('.stMarkdownBadge');
    const text = (el.tagName === 'H2' ? el : el.querySelector('[data-testid="stMarkdownContainer"]'))
      .textContent.trim();
    return {fold: el.tagName !== 'H2', text, badge: badge ? badge.textContent.trim() : null};
  })"""

NUMBERED = re.compile(r"^(\d+)\.\s")


@pytest.mark.parametrize("lang", LANGS)
def test_folded_sections_of_the_path_are_marked_and_numbered_in_order(browser, app_url, lang):
    badge = catalog(lang)["ui.fold.on_path"]
    paths = page_paths()
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    page = context.new_page()
    wrong, folded = [], 0
    try:
        for lesson in LESSONS:
            open_app(page, f"{app_url}/{paths[lesson.id]}?lang={lang}", timeout_ms=180_000)
            numbers = []
            for section in page.evaluate(SECTIONS):
                number = NUMBERED.match(section["text"])
                if number:
                    numbers.append(int(number.group(1)))
                if not section["fold"]:
                    continue
                if number:
                    folded += 1
                if bool(number) != (section["badge"] == badge):
                    wrong.append(f"{lesson.id}: {section['text'][:50]!r} badge {section['badge']!r}")
            if numbers != list(range(1, len(numbers) + 1)):
                wrong.append(f"{lesson.id}: sections numbered {numbers}")
    finally:
        context.close()
    assert folded >= 10, f"only {folded} folded sections found: the pages did not draw"
    assert not wrong, "\n".join(wrong)
