"""Boxes joined by arrows, one under the other, with a repeated stretch in a
dashed frame: the course's pipeline figure (tokens → ... → the next token).

One layout for every width: a column of boxes (a bold name, a line under it),
an arrow between each two with its note beside it (an array's shape), and the
frame's notes to the right of the frame. On a wide chart the column moves in
from the left edge; its boxes never grow past ``MAX_BOX`` pixels, so the
labels are as long at 1280 px as at 390 px, and what fits on a phone fits
everywhere."""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any

import altair as alt
import pyarrow as pa

from course_app.charts.base import SERIES_COLOURS, freeze, table

ROW = 56  # one box's row, in pixels: the chart is ROW × boxes high
BOX = 32  # a box's height; the arrow and its note sit in the gap of ROW - BOX
MAX_BOX = 300  # the widest a box gets
NARROW = 560  # below this chart width, the column starts at the left edge
LINE_BREAK = "\n"  # where a frame note may break

# Vega expressions shared by the layers: the column follows the chart's width.
_BW = f"min(width * 0.62, {MAX_BOX})"
_X0 = f"width < {NARROW} ? 8 : width * 0.18"


def pipeline_frame(
    boxes: Sequence[tuple[str, str]], arrows: Sequence[str], block: tuple[int, int], repeat: tuple[str, str]
) -> pa.Table:
    """The figure's data: one row per box (``boxes``: its name and the line
    under it, "" for none), the note on the arrow after each box (``arrows``,
    one fewer than the boxes, "" for none), and one row for the frame around
    the boxes ``block`` (first and last index) with its two notes ``repeat``
    (e.g. "× N" and what the block is, which may break at ``LINE_BREAK``)."""
    if len(arrows) != len(boxes) - 1:
        raise ValueError(f"{len(boxes)} boxes need {len(boxes) - 1} arrows, got {len(arrows)}")
    first, last = block
    if not 0 <= first <= last < len(boxes):
        raise ValueError(f"the frame {block} is not within the {len(boxes)} boxes")
    n = len(boxes)
    return table(
        {
            "kind": ["box"] * n + ["frame"],
            "i": [*range(n), first],
            "last": [*range(n), last],
            "n": [n] * (n + 1),
            "label": [label for label, _ in boxes] + [repeat[0]],
            "sub": [sub for _, sub in boxes] + [repeat[1]],
            "arrow": [*arrows, "", ""],
            "in_block": [first <= i <= last for i in range(n)] + [True],
        }
    )


def _pixels(field: str) -> alt.X:
    return alt.X(f"{field}:Q", scale=None, axis=None)


def _pixels_y(field: str) -> alt.Y:
    return alt.Y(f"{field}:Q", scale=None, axis=None)


@functools.lru_cache(maxsize=8)
def pipeline_spec(n_boxes: int, colour: str = SERIES_COLOURS[0]) -> dict[str, Any]:
    """Boxes from top to bottom, an arrow between each two with its note to
    the right, the dashed frame around the repeated ones with its notes to its
    right; data from ``pipeline_frame``. Boxes inside the frame are tinted
    ``colour``, the others grey. The chart is ``ROW`` × ``n_boxes`` pixels high."""
    base = (
        alt.Chart()
        .transform_calculate(bw=_BW, x0=_X0, cy=f"(datum.i + 0.5) * {ROW}")
        .transform_calculate(cx="datum.x0 + datum.bw / 2")
    )
    boxes = base.transform_filter("datum.kind == 'box'").transform_calculate(
        x1="datum.x0", x2="datum.x0 + datum.bw", y1=f"datum.cy - {BOX / 2}", y2=f"datum.cy + {BOX / 2}"
    )
    fill = alt.condition("datum.in_block", alt.value(colour), alt.value("#7f7f7f"))
    rects = boxes.mark_rect(cornerRadius=6, fillOpacity=0.14, strokeWidth=1.5).encode(
        x=_pixels("x1"), x2="x2:Q", y=_pixels_y("y1"), y2="y2:Q", fill=fill, stroke=fill
    )
    # The name just above the box's middle, the line under it just below (the name centred without one).
    labels = (
        boxes.transform_calculate(ly="datum.sub ? datum.cy - 1 : datum.cy + 6")
        .mark_text(fontWeight="bold", fontSize=13, baseline="bottom")
        .encode(x=_pixels("cx"), y=_pixels_y("ly"), text="label:N")
    )
    subs = (
        boxes.transform_calculate(sy="datum.cy + 2")
        .mark_text(fontSize=11, baseline="top")
        .encode(x=_pixels("cx"), y=_pixels_y("sy"), text="sub:N")
    )
    arrow_at = boxes.transform_filter("datum.i < datum.n - 1").transform_calculate(
        ay=f"(datum.i + 1) * {ROW}", note_x="datum.cx + 12"
    )
    arrows = arrow_at.mark_text(fontSize=13, baseline="middle").encode(
        x=_pixels("cx"), y=_pixels_y("ay"), text=alt.value("↓")
    )
    notes = arrow_at.mark_text(fontSize=11, baseline="middle", align="left").encode(
        x=_pixels("note_x"), y=_pixels_y("ay"), text="arrow:N"
    )
    frame_at = base.transform_filter("datum.kind == 'frame'").transform_calculate(
        fx1="datum.x0 - 6",
        fx2="datum.x0 + datum.bw + 6",
        fy1=f"datum.i * {ROW} + {(ROW - BOX) / 2 - 4}",  # clear of the arrows above and below
        fy2=f"(datum.last + 1) * {ROW} - {(ROW - BOX) / 2 - 4}",
    )
    frame = frame_at.mark_rect(fillOpacity=0, strokeDash=[5, 3], strokeWidth=1.5, cornerRadius=8).encode(
        x=_pixels("fx1"), x2="fx2:Q", y=_pixels_y("fy1"), y2="fy2:Q", stroke=alt.value(colour)
    )
    note_x = frame_at.transform_calculate(tx="datum.fx2 + 8")
    repeat = (
        note_x.transform_calculate(ty="datum.fy1 + 2")
        .mark_text(fontSize=14, fontWeight="bold", baseline="top", align="left")  # the theme's text colour
        .encode(x=_pixels("tx"), y=_pixels_y("ty"), text="label:N")
    )
    around = (
        note_x.transform_calculate(ty="datum.fy1 + 24")
        .mark_text(fontSize=11, baseline="top", align="left", lineBreak=LINE_BREAK)
        .encode(x=_pixels("tx"), y=_pixels_y("ty"), text="sub:N")
    )
    chart = alt.layer(frame, rects, labels, subs, arrows, notes, repeat, around).properties(
        height=ROW * n_boxes
    )
    return freeze(chart.configure_view(stroke=None))
