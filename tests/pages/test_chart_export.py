"""A chart saved as a PNG (course_app/charts/export.py): a picture of the
chart's own spec with this run's data, at the export's width, and a file name
that any system accepts whatever the chart's alt text (the learner's tokens) holds."""

from __future__ import annotations

import io
import json

import numpy as np
import pytest
from PIL import Image

from course_app import charts
from course_app.charts import export


def weights_chart(weights: np.ndarray) -> tuple[object, dict]:
    labels = ["ねこ", "は", "魚", "が", "すき"][: len(weights)]
    frame = charts.bar_frame(labels, weights, [f"{w:.0%}" for w in weights])
    return frame, charts.bar_spec("トークン", "重み")


def test_the_png_has_the_exports_width_and_the_charts_height():
    frame, spec = weights_chart(np.array([0.1, 0.2, 0.3, 0.15, 0.25]))
    image = Image.open(io.BytesIO(export.png(frame, spec)))
    assert image.format == "PNG"
    width, height = image.size
    assert width == export.SCALE * export.WIDTH
    # The plot's own height and room for the axes below it, no more than a few lines of it.
    assert export.SCALE * spec["height"] < height < export.SCALE * (spec["height"] + 150)
    # Drawn, not blank: the bars' blue is in it.
    colours = {rgb for _, rgb in image.convert("RGB").getcolors(maxcolors=1 << 20)}
    assert (0x1F, 0x77, 0xB4) in colours


def test_a_taller_spec_gives_a_taller_picture():
    frame, _ = weights_chart(np.array([0.5, 0.5]))
    short, tall = (charts.bar_spec("x", "y", height=h) for h in (120, 300))
    heights = [Image.open(io.BytesIO(export.png(frame, spec))).size[1] for spec in (short, tall)]
    assert heights[1] - heights[0] == export.SCALE * 180


def test_the_cached_spec_is_left_as_it_was_and_nan_becomes_null():
    frame, spec = weights_chart(np.array([0.5, np.nan]))
    before = json.dumps(spec, sort_keys=True)
    full = export.full_spec(frame, spec)
    assert json.dumps(spec, sort_keys=True) == before
    assert json.dumps(full, allow_nan=False)  # JSON proper: no NaN in it
    assert [row["value"] for row in full["data"]["values"]] == [0.5, None]
    Image.open(io.BytesIO(export.png(frame, spec)))  # and it still draws


@pytest.mark.parametrize(
    "chart",
    [
        "../../etc/passwd",
        'a <script>alert("x")</script> b',
        "tab\there\nnew line\x00nul",
        "C:\\Windows\\system32 | more * ?",
        "",
        "   ",
        "." * 5,
        "ねこ" * 200,
    ],
)
def test_the_file_name_is_safe_whatever_the_alt_text_holds(chart):
    name = export.file_name("Attention: Query, Key, Value", chart)
    assert name.endswith(".png")
    assert not any(c in name for c in '\\/:*?"<>|') and name.isprintable()
    assert not name.startswith(".")
    assert len(name) <= 100 + len(".png") + len("Attention Query, Key, Value - ")
    assert name.startswith("Attention Query, Key, Value")


def test_the_file_name_keeps_the_charts_first_sentence():
    alt_text = "Bar chart of the weights ねこ gives to each token; the tallest bar is 魚. More text."
    name = export.file_name("注意の重み", alt_text)
    assert name == "注意の重み - Bar chart of the weights ねこ gives to each token; the tallest bar is 魚.png"
    assert export.file_name("スケーリング", "棒グラフ。二文目") == "スケーリング - 棒グラフ.png"
    assert export.file_name("", "") == "chart.png"
    assert export.file_name("S", "Scores at σ = 0.5 and 2.0. Then") == "S - Scores at σ = 0.5 and 2.0.png"
