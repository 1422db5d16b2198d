"""A chart as a picture a learner can take away: the spec ``show`` drew, with
this rerun's data written into it, rendered to PNG by vl-convert (offline,
no browser), and a file name made of the lesson's and the chart's names.

Nothing here runs while a page is drawn: ``show`` hands ``png`` to a download
button as its deferred data, so the picture is made only when it is asked for.
"""

from __future__ import annotations

import math
import re
from typing import Any

import pyarrow as pa

# The exported picture's width in CSS pixels: a laptop column's, about what
# the chart has on a laptop screen. Its height is the spec's plot height plus
# axes, titles and legends, as on screen.
WIDTH = 720
SCALE = 2  # pixels per CSS pixel: sharp when printed or zoomed
NAME_LIMIT = 80  # characters of the chart's name kept in the file name
# Japanese in a sans-serif face where the system has one (fonts-noto-cjk), as
# the browser draws it; without one a fallback face still draws every glyph.
FONT = "Noto Sans CJK JP, Noto Sans JP, sans-serif"

# Characters no file name may hold on one system or another, and runs of space.
_UNSAFE = re.compile(r'[\\/:*?"<>|\x00-\x1f\x7f]+')
_SPACES = re.compile(r"\s+")


def full_spec(data: pa.Table, spec: dict[str, Any]) -> dict[str, Any]:
    """``spec`` (shared and cached: left untouched) as a self-contained
    Vega-Lite spec: the data written in, a fixed width where the page's spec
    fits its column, and a white background, as on paper. NaN, which JSON
    cannot carry, becomes null (Vega-Lite draws nothing for it)."""
    rows = [{key: _json_value(value) for key, value in row.items()} for row in data.to_pylist()]
    config = {**spec.get("config", {}), "font": FONT}
    full = {**spec, "data": {"values": rows}, "background": "white", "config": config}
    full.setdefault("width", WIDTH)
    return full


def _json_value(value: Any) -> Any:
    return None if isinstance(value, float) and not math.isfinite(value) else value


def png(data: pa.Table, spec: dict[str, Any]) -> bytes:
    """The chart as the bytes of a PNG file, ``SCALE`` pixels per CSS pixel."""
    import vl_convert  # a few megabytes of engine: loaded on the first export only

    return vl_convert.vegalite_to_png(full_spec(data, spec), scale=SCALE, vl_version=_vl_version(spec))


def _vl_version(spec: dict[str, Any]) -> str | None:
    """The Vega-Lite version the spec was written for ("6.4"), from its $schema."""
    found = re.search(r"/v(\d+\.\d+)", spec.get("$schema", ""))
    return found.group(1) if found else None


def file_name(lesson: str, chart: str, extension: str = "png") -> str:
    """'<lesson> - <chart>.png', safe on every system: characters a file name
    cannot hold become spaces; the chart's name (its alt text) is cut at its
    first sentence and at ``NAME_LIMIT`` characters."""
    first = re.split(r"(?<=\.)\s+|(?<=。)", chart.strip(), maxsplit=1)[0].rstrip(".。")  # not "0.5"
    if len(first) > NAME_LIMIT:
        first = first[: NAME_LIMIT - 1].rstrip() + "…"
    parts = [_SPACES.sub(" ", _UNSAFE.sub(" ", part)).strip() for part in (lesson, first)]
    stem = " - ".join(part for part in parts if part) or "chart"
    return f"{stem.lstrip('.')}.{extension}"
