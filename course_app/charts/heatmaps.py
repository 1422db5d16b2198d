"""Heatmaps: a matrix of labelled cells (``heatmap_spec`` and its shapes for the
lessons), masked cells grey, white text on dark cells by one rule
(``dark_cells``), and the numeric matrix of many cells (``matrix_spec``)."""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import altair as alt
import numpy as np
import pyarrow as pa

from course_app import session
from course_app.charts.base import (
    DIVERGING,
    MASKED_GREY,
    SEQUENTIAL,
    SERIES_COLOURS,
    expr_or,
    fitted_text,
    freeze,
    given,
    table,
    tooltips,
)
from lesson_core.rounding import fixed_array

# White text from here on: the share of the way along the colour scale, from its
# light end (0 of ``blues`` on 0 … 1; the middle, 0, of the diverging scale) to its
# dark end. Past it white contrasts more with the cell than black does (about
# 4.5 : 1 each at the point itself, on ``blues`` 0.74 and ``blueorange``'s blue
# end 0.78); short of it black does, up to 15 : 1.
DARK_TEXT_FROM = 0.75
# The text on a light cell: black, spelled so that the course stylesheet's rule
# for chart text on the page's own background (text Vega leaves "black", drawn
# in the theme's text colour: course_app/page.py) passes it by. It stands on its
# cell, which is as light in the dark theme as in the light one.
CELL_TEXT = "#000000"

# Room at the right of a wide map for its last column's tilted label: at most
# 150 px long at 40°, it reaches 150 · cos 40° ≈ 115 px right.
LAST_LABEL_ROOM = 120
# The cells stand apart by this share of a cell's width and height, a gap that
# shows the page's own background, light or dark (a white border glared on the
# dark theme).
CELL_GAP = 0.05

# The height of a row of a heatmap sized by its rows (``sized_heatmap_spec``),
# and the least height of such a map (a laptop's chart needs 120 px of plot).
ROW_HEIGHT = 36
MIN_MAP_HEIGHT = 140

# What a scrolling map (``scrolling_heatmap_spec``) draws above and below its
# cells: the colour legend and the tilted column labels on top (at most 150 px
# at 40°: 97 px high), the axis title and padding. A box that scrolls it
# sideways is its plot height plus this.
SCROLLING_MAP_ROOM = 200


@dataclass(frozen=True)
class MapTitles:
    """The words of a heatmap: the titles of the columns (``x``), the rows (``y``)
    and the colour scale, and the ``note`` above the map (e.g. "grey = masked";
    "" when nothing is masked). ``on_axes=False`` keeps the axis titles in the
    tooltip only."""

    x: str
    y: str
    colour: str
    note: str = ""
    on_axes: bool = True


@dataclass(frozen=True)
class Labels:
    """How the column labels (on top) and the row labels are drawn; None leaves
    Vega-Lite's default. ``angle`` (degrees, e.g. -45, or a Vega expression such
    as "width < 480 ? -90 : -40") tilts the column labels, ``limit`` caps their
    width in pixels, ``align`` and ``baseline`` anchor them ("left", "middle",
    ...); ``row_limit`` caps the row labels' width (pixels or an expression).
    With ``tilt_below`` upright labels (``angle`` 0) tilt by 45° where the
    columns are narrower than that many pixels (a phone, a half-width column),
    so that they never run into each other. Only for a map without a
    ``MapTitles.note``: Vega places a title by the labels' upright size."""

    angle: int | str = 0
    limit: int | None = None
    align: str | None = None
    baseline: str | None = None
    row_limit: int | str | None = None
    tilt_below: int | None = None


@dataclass(frozen=True)
class Cells:
    """How the cells are drawn: ``font_size`` of the value written in them,
    ``width`` of each column in pixels (the chart is then as wide as its
    columns, not as the page; None: as the page), and ``outline_chosen`` an
    orange frame around the rows whose ``chosen`` column is true (the query row)."""

    font_size: int = 11
    width: int | None = None
    outline_chosen: bool = False


def _columns(titles: MapTitles, labels: Labels) -> alt.X:
    """The columns, labelled on top, every label drawn."""
    angle, align, baseline = expr_or(labels.angle), given(labels.align), given(labels.baseline)
    if isinstance(labels.angle, str) and labels.align is None and labels.baseline is None:
        # an angle that changes with the width: centred over its column when upright,
        # starting at it when tilted (Vega-Lite's default then starts even an upright one there)
        flat = f"({labels.angle}) == 0"
        align = {"expr": f"{flat} ? 'center' : 'left'"}
        baseline = {"expr": f"{flat} ? 'bottom' : 'middle'"}
    if labels.angle == 0 and labels.tilt_below is not None:
        narrow = f"bandwidth('x') < {labels.tilt_below}"
        angle = {"expr": f"{narrow} ? -45 : 0"}
        align = {"expr": f"{narrow} ? 'left' : 'center'"}
        baseline = {"expr": f"{narrow} ? 'middle' : 'bottom'"}
    return alt.X(
        "col:N",
        title=titles.x if titles.on_axes else None,
        sort=alt.EncodingSortField("col_i"),
        scale=alt.Scale(paddingInner=CELL_GAP),
        axis=alt.Axis(
            orient="top",
            labelAngle=angle,
            labelOverlap=False,
            labelLimit=given(labels.limit),
            labelAlign=align,
            labelBaseline=baseline,
        ),
    )


def _rows(titles: MapTitles, labels: Labels) -> alt.Y:
    """The rows, the first on top."""
    axis = alt.Undefined if labels.row_limit is None else alt.Axis(labelLimit=expr_or(labels.row_limit))
    return alt.Y(
        "row:N",
        title=titles.y if titles.on_axes else None,
        sort=alt.EncodingSortField("row_i"),
        scale=alt.Scale(paddingInner=CELL_GAP),
        axis=axis,
    )


def _colour(titles: MapTitles, diverging: bool, legend: bool | str) -> alt.Color:
    """Masked cells grey, the others by value: ``blues`` on 0 … 1 (a share: its
    legend in %), or the diverging scale centred on 0; the colour legend at the
    right, on top or none."""
    if legend not in (True, False, "top"):
        raise ValueError(f'legend must be True, False or "top", not {legend!r}')
    scale = (
        alt.Scale(scheme=DIVERGING, domainMid=0) if diverging else alt.Scale(scheme=SEQUENTIAL, domain=[0, 1])
    )
    fmt = alt.Undefined if diverging else ".0%"
    if legend == "top":
        key = alt.Legend(orient="top", direction="horizontal", format=fmt)
    else:  # True: at the right, a little shorter than the map, so its end labels stay inside
        key = alt.Legend(format=fmt, gradientLength={"expr": "max(60, height - 50)"}) if legend else None
    return alt.condition(
        "datum.masked",
        alt.value(MASKED_GREY),
        alt.Color("value:Q", title=titles.colour, scale=scale, legend=key),
    )


def _layers(x: alt.X, y: alt.Y, colour: alt.Color, titles: MapTitles, cells: Cells, selectable: bool) -> list:
    """The cells, their text (white on dark cells) and the chosen row's frame."""
    tooltip = tooltips(("row:N", titles.y), ("col:N", titles.x), ("tip:N", titles.colour))
    rects = alt.Chart().mark_rect().encode(x=x, y=y, color=colour, tooltip=tooltip)
    if selectable:
        rects = rects.add_params(alt.selection_point(name="pick", fields=["row_i"], on="click"))
    text = (
        alt.Chart()
        .mark_text(fontSize=cells.font_size)
        .encode(
            x=x,
            y=y,
            text="text:N",
            color=alt.condition("datum.dark", alt.value("white"), alt.value(CELL_TEXT)),
            tooltip=tooltip,
        )
    )
    text = fitted_text(text, "x", cells.font_size, small=cells.font_size - 2)  # every cell's number, or none
    if not cells.outline_chosen:
        return [rects, text]
    outline = (  # one frame across the whole row: a rect with no x spans the width
        alt.Chart()
        .mark_rect(filled=False, stroke=SERIES_COLOURS[1], strokeWidth=3)
        .encode(y=y)
        .transform_filter("datum.chosen")
    )
    return [rects, text, outline]


@functools.lru_cache(maxsize=128)
def heatmap_spec(
    titles: MapTitles,
    height: int = 380,
    *,
    diverging: bool = False,
    selectable: bool = False,
    labels: Labels = Labels(),
    cells: Cells = Cells(),
    legend: bool | str = True,
    pad_right: int | None = None,
) -> dict:
    """A heatmap with the value written in every cell; masked cells grey, and
    ``titles.note`` above the map; ``height`` is the plot's (the cells').
    Frame: ``heatmap_frame`` (with the same ``diverging``). With
    ``selectable`` a click on a cell selects its row (selection "pick", field
    ``row_i``). ``legend`` is True (the colour scale at the right), False
    (none) or "top" (above the map, horizontal); ``pad_right`` keeps that many
    pixels free at the right, for the last tilted column label."""
    colour = _colour(titles, diverging, legend)
    x, y = _columns(titles, labels), _rows(titles, labels)
    chart = alt.layer(*_layers(x, y, colour, titles, cells, selectable)).properties(height=height)
    if titles.note:  # an empty title draws nothing, so leave it out
        first, *rest = titles.note.split(" · ")  # a line per part: a phone's map is narrow
        note = {"anchor": "end", "fontSize": 11, "fontWeight": "normal"}  # the theme's text colour
        if rest:
            note |= {"subtitle": rest, "subtitleFontSize": 11}
        chart = chart.properties(title=alt.TitleParams(first, **note))
    if cells.width is not None:
        chart = chart.properties(width=alt.Step(cells.width))
    # Room below for the colour scale's last label, which reaches half a line
    # below the cells (Vega's autosize does not count it).
    chart = chart.properties(
        padding={"left": 5, "top": 5, "bottom": 12, "right": 5 if pad_right is None else pad_right}
    )
    return freeze(chart)


def scrolling_heatmap_spec(titles: MapTitles, height: int) -> dict:
    """A map too wide for a phone: fixed 25 px cells (it scrolls sideways instead
    of squeezing), slanted column labels (long tokens never overlap), the colour
    scale on top and room at the right for the last label."""
    labels = Labels(angle=-40, limit=150, row_limit=190)
    return heatmap_spec(
        titles, height, labels=labels, cells=Cells(width=25), legend="top", pad_right=LAST_LABEL_ROOM
    )


def sized_heatmap_spec(
    titles: MapTitles, n: int, *, diverging: bool = False, legend: bool | str = True
) -> dict:
    """``heatmap_spec`` as tall as ``n`` rows need, column labels tilted (a
    phone's or a half-width column's cells are narrower than a token). ``legend``: False for none
    (e.g. a 0/1 mask, whose colours say nothing more than its numbers), "top"
    for a colour scale above the map, which keeps a half-width column's room
    for the cells."""
    labels = Labels(angle=-45, align="left", baseline="middle")  # never overlap, in any width
    height = max(MIN_MAP_HEIGHT, ROW_HEIGHT * n)
    return heatmap_spec(titles, height, diverging=diverging, legend=legend, labels=labels)


def small_heatmap_spec(titles: MapTitles, n: int) -> dict:
    """``heatmap_spec`` small enough for four ``n``-row maps side by side: no
    axis titles or colour legend (one caption explains them all), slanted
    column labels, smaller text."""
    labels = Labels(angle=-50, limit=90)
    untitled = MapTitles(titles.x, titles.y, titles.colour, titles.note, on_axes=False)
    return heatmap_spec(
        untitled, max(MIN_MAP_HEIGHT, 26 * n), labels=labels, cells=Cells(font_size=10), legend=False
    )


def dark_cells(values: np.ndarray, diverging: bool = False) -> np.ndarray:
    """The cells that get white text: those more than ``DARK_TEXT_FROM`` of the
    way along their colour scale from its light end. ``blues`` runs over 0 … 1;
    the diverging scale from its middle, 0, to the largest value and to the
    smallest, each side on its own (as ``domainMid`` draws it).

    Shapes: values [...] -> [...] (bool)"""
    values = np.asarray(values, dtype=float)
    if not diverging:
        return values > DARK_TEXT_FROM
    high, low = np.max(values, initial=0.0), np.min(values, initial=0.0)
    depth = np.zeros_like(values)
    np.divide(values, high, out=depth, where=values > 0)
    np.divide(values, low, out=depth, where=values < 0)
    return depth > DARK_TEXT_FROM


def heatmap_frame(
    rows: Sequence[str],
    cols: Sequence[str],
    values: np.ndarray,
    texts: np.ndarray,
    masked: np.ndarray | None = None,
    chosen_row: int | None = None,
    *,
    diverging: bool = False,
    tips: np.ndarray | None = None,
) -> pa.Table:
    """Long form of an [n_rows, n_cols] matrix: one line per cell.

    ``texts`` holds the label of every cell; ``masked`` cells are drawn grey
    (give them any finite ``value``; they count as 0); ``dark_cells`` get white
    text (``diverging`` as in the spec); the cells of ``chosen_row`` are marked
    ``chosen`` (outlined by ``Cells(outline_chosen=True)``). ``tips`` are the
    values as the tooltip says them; without them a share (not ``diverging``:
    its legend reads 0% … 100%) is said in percent like its legend ("66.0%",
    "—" where masked), a signed value as its cell's text."""
    values = np.asarray(values, dtype=float)
    n_r, n_c = values.shape
    masked = np.zeros_like(values, dtype=bool) if masked is None else np.asarray(masked, dtype=bool)
    shown = np.where(masked, 0.0, values)
    if tips is None:
        tips = texts if diverging else share_tips(shown, masked)
    return table(
        {
            "row": np.repeat(list(rows), n_c),
            "row_i": np.repeat(np.arange(n_r), n_c),
            "col": np.tile(list(cols), n_r),
            "col_i": np.tile(np.arange(n_c), n_r),
            "value": shown.ravel(),
            "text": np.asarray(texts, dtype=object).ravel(),
            "tip": np.asarray(tips, dtype=object).ravel(),
            "masked": masked.ravel(),
            "dark": (dark_cells(shown, diverging) & ~masked).ravel(),
            "chosen": np.repeat(np.arange(n_r) == chosen_row, n_c),
        }
    )


def share_tips(shares: np.ndarray, masked: np.ndarray) -> np.ndarray:
    """Shares as a tooltip says them, in percent like the 0% … 100% legend
    beside them ("66.0%"); masked cells "—"."""
    return np.where(masked, "—", np.char.add(fixed_array(shares, 1, scale=100), "%"))


def weights_frame(
    rows: Sequence[str],
    cols: Sequence[str],
    weights: np.ndarray,
    allowed: np.ndarray | None,
    chosen_row: int | None = None,
) -> pa.Table:
    """A heatmap frame for attention weights: each cell labelled with its weight
    in percent (the number only, so that it fits a phone-width cell), cells the
    mask blocks labelled "—" and drawn grey, ``chosen_row`` marked; the
    tooltip says the weight with its % sign (e.g. "66.0%")."""
    weights = np.asarray(weights, dtype=float)
    blocked = np.zeros_like(weights, dtype=bool) if allowed is None else ~np.asarray(allowed)
    texts = np.where(blocked, "—", fixed_array(weights, 0, scale=100))
    return heatmap_frame(rows, cols, weights, texts, masked=blocked, chosen_row=chosen_row)


def row_picker(chart_key: str, target_key: str) -> Callable[[], None]:
    """A callback for a ``selectable`` heatmap: a click on a cell writes the
    cell's row index into the widget ``target_key`` (e.g. the query selectbox)."""

    def pick() -> None:
        points = session.get(chart_key).selection.get("pick", [])
        if points and "row_i" in points[0]:
            session.put(target_key, int(points[0]["row_i"]))

    return pick


def matrix_frame(values: np.ndarray) -> pa.Table:
    """Long form of an [n_rows, n_cols] matrix (up to 65 536 cells) in compact
    numeric columns (int16, float32): cheap to send to the browser, so a
    slider move stays cheap. Spec: ``matrix_spec``."""
    n_r, n_c = values.shape
    return table(
        {
            "row": np.repeat(np.arange(n_r, dtype=np.int16), n_c),
            "col": np.tile(np.arange(n_c, dtype=np.int16), n_r),
            "value": np.asarray(values, dtype=np.float32).ravel(),
        }
    )


@functools.lru_cache(maxsize=8)
def matrix_spec(
    x_title: str, y_title: str, colour_title: str, unit_range: bool = False, height: int = 360
) -> dict:
    """A matrix as coloured cells on numeric axes (row 0 at the top), so that
    the ticks stay readable for 256 rows; diverging colours centred on 0 (fixed
    to −1 … 1 with ``unit_range``), the value in the tooltip. Frame: numeric
    columns ``row``, ``col`` and ``value``, one line per cell."""
    scale = (
        alt.Scale(scheme=DIVERGING, domain=[-1, 1])
        if unit_range
        else alt.Scale(scheme=DIVERGING, domainMid=0)
    )
    x = alt.X("x0:Q", title=x_title, scale=alt.Scale(nice=False, zero=False), axis=alt.Axis(orient="top"))
    y = alt.Y("y0:Q", title=y_title, scale=alt.Scale(nice=False, zero=False, reverse=True))
    tooltip = tooltips(("row:Q", y_title), ("col:Q", x_title), ("value:Q", colour_title, ".3f"))
    cells = (
        alt.Chart()
        .transform_calculate(
            x0="datum.col - 0.5", x1="datum.col + 0.5", y0="datum.row - 0.5", y1="datum.row + 0.5"
        )
        .mark_rect()
        .encode(
            x=x,
            x2="x1:Q",
            y=y,
            y2="y1:Q",
            color=alt.Color("value:Q", title=colour_title, scale=scale),
            tooltip=tooltip,
        )
    )
    return freeze(cells.properties(height=height))
