"""Layer 4: a lesson printed (Chromium's Save as PDF, A4). The whole lesson is
in the PDF, from its title on the first sheet to the question it ends on, with
the fold the learner opened and without the menu, any control or a closed
fold's label; no sheet is blank.
"""

from __future__ import annotations

import io
import re

import pytest
from helpers.apprun import open_app, rerun

pytestmark = pytest.mark.browser

# Every kind of control the lessons draw, by Streamlit's test id.
CONTROLS = (
    "stSlider",
    "stSelectbox",
    "stRadio",
    "stCheckbox",
    "stNumberInput",
    "stTextInput",
    "stButton",
    "stFormSubmitButton",
    "stPageLink",
    "stSidebar",
    "stElementToolbar",
)

# The controls of the print that are shown (have a box on the page).
SHOWN = """(ids) => ids.filter((id) =>
  [...document.querySelectorAll(`[data-testid="${id}"]`)].some((el) => el.getClientRects().length))"""


def pdf_pages(pdf: bytes) -> list[str]:
    """The text of each sheet of ``pdf``, spaces and line breaks made single spaces."""
    from pypdf import PdfReader

    return [re.sub(r"\s+", " ", sheet.extract_text() or "") for sheet in PdfReader(io.BytesIO(pdf)).pages]


def squeeze(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


def test_a_lesson_prints_whole_on_a4_without_its_controls(page, app_url):
    from playwright.sync_api import expect

    from course_app.i18n import catalog

    en = catalog("en")
    open_app(page, f"{app_url}/attention?lang=en")
    takeaways = page.locator('[data-testid="stExpander"] details', has_text=en["ui.takeaway"])
    rerun(page, lambda: takeaways.locator("summary").click())
    expect(takeaways).to_have_attribute("open", "")

    page.emulate_media(media="print")
    assert page.evaluate(SHOWN, list(CONTROLS)) == []
    sheets = pdf_pages(page.pdf(format="A4", print_background=True))
    page.emulate_media(media="screen")

    assert len(sheets) >= 3, f"{len(sheets)} sheets: the print stopped at the first screen"
    assert all(sheet.strip() for sheet in sheets), [i for i, sheet in enumerate(sheets) if not sheet.strip()]
    whole = " ".join(sheets)
    assert squeeze(en["attention.title"])[:30] in sheets[0]
    assert squeeze(en["attention.end.takeaway"].splitlines()[0])[2:40] in whole  # the fold opened
    assert squeeze(en["attention.end.next"])[:40] in whole  # the lesson's last words
    for absent in (en["ui.explorer.temp_label"], en["ui.explorer.query_label"], en["ui.code.label"]):
        assert squeeze(absent) not in whole, absent  # a control's label, a closed fold's label
    assert squeeze(en["multi_head.menu"]) not in whole  # the menu (and the lesson footer's links)
