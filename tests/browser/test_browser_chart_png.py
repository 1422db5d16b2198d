"""Layer 4: a learner takes a lesson's central chart away as a PNG, from the
chart's own toolbar (Streamlit's "Download as PNG", reached by keyboard too):
the file is a PNG image of the chart as drawn, at twice its size on screen;
and from the "Save the chart as PNG" button beside it (drawn on the server
by vl-convert; above the chart, or under it when its controls are above): a
PNG of the chart at the export's width and the chart's height, named after
the lesson and the chart.

The mini GPT's central chart is drawn only once the model is trained, so it is
left out here (its charts are Vega-Lite charts like the others).
"""

from __future__ import annotations

import contextlib
import re
import struct

import pytest
from helpers.apprun import lesson_page

from course_app.charts import export
from course_app.course import BY_ID
from course_app.i18n import LANGS, catalog
from course_app.views import MAIN_FIGURE

pytestmark = pytest.mark.browser

LESSONS = [lesson for lesson in BY_ID if lesson != "capstone" and BY_ID[lesson].page]
FIGURES = f".st-key-{MAIN_FIGURE}, .st-key-sticky_figure"  # the attention explorer's is sticky
CHART = f':is({FIGURES}) [data-testid="stVegaLiteChart"]'
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
SCALE = 2  # Vega's image export draws at twice the size on screen


def png_size(data: bytes) -> tuple[int, int]:
    """Width and height from a PNG's header (its IHDR chunk)."""
    assert data[:8] == PNG_SIGNATURE, data[:8]
    return struct.unpack(">II", data[16:24])


@contextlib.contextmanager
def lesson_chart(browser, app_url: str, lesson: str, lang: str):
    """``lesson`` open in ``lang`` (apprun.lesson_page), its first chart
    scrolled into view: yields (page, chart)."""
    with lesson_page(browser, app_url, lesson, lang) as page:
        chart = page.locator(CHART).first
        chart.scroll_into_view_if_needed()
        yield page, chart


@pytest.mark.parametrize("lesson", LESSONS)
def test_the_central_chart_downloads_as_a_png_of_its_size(browser, app_url, lesson):
    with lesson_chart(browser, app_url, lesson, "ja") as (page, chart):
        # The chart's own button (its label ends with the chart's alternative
        # text), pressed from the keyboard: the toolbar shows while it has the focus.
        name = f"Download as PNG: {chart.get_attribute('aria-label')}"
        button = page.get_by_role("button", name=name, exact=True).first
        with page.expect_download(timeout=30_000) as download:
            button.press("Enter")
        data = download.value.path().read_bytes()
        box = chart.locator("canvas, svg.marks").first.bounding_box()
        width, height = png_size(data)
        assert abs(width - SCALE * box["width"]) <= 2 * SCALE, (width, box)
        assert abs(height - SCALE * box["height"]) <= 2 * SCALE, (height, box)
        assert download.value.suggested_filename.endswith(".png")


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("lesson", LESSONS)
def test_the_save_button_gives_a_png_of_the_chart_named_after_it(browser, app_url, lesson, lang):
    text = catalog(lang)
    with lesson_chart(browser, app_url, lesson, lang) as (page, chart):
        alt_text = chart.get_attribute("aria-label")
        # The chart's own button: the element right above it in its column, or
        # right under it for a chart whose controls are above it.
        around = "xpath=ancestor::div[@data-testid='stElementContainer'][1]/{}-sibling::div[1]//button"
        buttons = [chart.locator(around.format(side)) for side in ("preceding", "following")]
        button = next(b.first for b in buttons if b.count() and text["ui.chart.save"] in b.first.inner_text())
        assert button.inner_text().strip().endswith(text["ui.chart.save"])
        with page.expect_download(timeout=60_000) as download:
            button.press("Enter")  # by keyboard, as a learner without a mouse would
        data = download.value.path().read_bytes()
        width, height = png_size(data)
        on_screen = chart.locator("canvas, svg.marks").first.bounding_box()
        assert width == export.SCALE * export.WIDTH, width
        # The chart's own height (plot, axes, legend), as on screen, or less:
        # the export is wider than the column, so labels that slant or wrap
        # there may lie flat on one line (up to a quarter of the height on the
        # phone-friendly charts); never taller, but for the face's few pixels.
        drawn = on_screen["height"]
        assert 0.75 * drawn <= height / export.SCALE <= 1.05 * drawn, (height, on_screen)
        name = download.value.suggested_filename
        assert name == export.file_name(text[f"{lesson}.title"], alt_text), name
        first_word = re.match(r"\w+", text[f"{lesson}.title"]).group()
        assert name.startswith(first_word) and name.endswith(".png"), name
