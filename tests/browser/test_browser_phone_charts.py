"""Layer 4: on a phone (390 × 844) every chart of every page fits its box, in
both languages: nothing Vega draws (legends, axis labels and titles) reaches
outside the chart's box, where it would be cut off."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools"))
from chart_widths import measure, problems
from helpers.apprun import page_paths

from course_app.i18n import LANGS

pytestmark = pytest.mark.browser


@pytest.mark.parametrize("lang", LANGS)
def test_no_chart_is_wider_than_its_box_on_a_phone(phone, app_url, lang):
    wide, seen = [], 0
    for name, path in page_paths().items():
        charts = measure(phone, f"{app_url}/{path}?lang={lang}")
        seen += len(charts)
        for k, chart in enumerate(charts):
            if chart["drawn"] > chart["box"] + 3 or chart["outside"] > 3:
                wide.append((name, k, chart["label"], problems(chart)))
    assert seen >= 30, f"only {seen} charts measured: the pages did not draw"
    assert not wide, wide
