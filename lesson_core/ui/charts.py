"""Altair chart specs, built once per shape and fed new data on every rerun.

Each ``*_spec`` function builds an Altair chart with no data, turns it into a
Vega-Lite dict with ``freeze`` and caches it by its arguments (titles, height
and the keyword options: label angle, legend, ...). A page pairs it with a
long-form DataFrame from the matching ``*_frame`` function and calls
``show``. Moving a slider then costs a DataFrame, not a new chart.

The cached dicts are shared: never modify one. A chart that needs something
the options do not offer gets a new option here (a hashable keyword argument,
so that it is part of the cache key), or its own Altair chart passed through
``freeze``.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any

import altair as alt
import numpy as np
import pandas as pd
import streamlit as st

# Colour-blind-safe: a single-hue sequential scale for weights, a diverging
# one for signed values, and a neutral grey for cells the mask blocks.
SEQUENTIAL = "blues"
DIVERGING = "blueorange"
MASKED_GREY = "#9e9e9e"  # darker than the lightest blue, so it differs in lightness too
SERIES_COLOURS = ["#1f77b4", "#ff7f0e", "#7f7f7f"]  # blue / orange / grey


def show(frame: pd.DataFrame, spec: dict[str, Any], alt_text: str, **kwargs: Any) -> Any:
    """Draw a cached spec with this rerun's data, full width, with alt text."""
    return st.vega_lite_chart(frame, spec, width="stretch", alt=alt_text, **kwargs)


def freeze(chart: alt.TopLevelMixin) -> dict[str, Any]:
    """The chart, built without data, as a Vega-Lite dict without data, ready to
    be cached and passed to ``show`` with each rerun's frame.

    Altair gives a data-less chart a placeholder dataset, which would show up as
    an "undefined" category; this drops it (``datasets``, and ``data`` at the
    top level and in every layer). Use it for any chart a lesson builds itself
    and cache the result (``functools.lru_cache`` on the builder): treat the
    dict as read-only, since every caller gets the same object."""
    spec = chart.to_dict()
    spec.pop("datasets", None)
    for part in [spec, *spec.get("layer", [])]:
        part.pop("data", None)
    return spec


# A series legend below the plot, one entry per line: a phone's chart is about
# 358 px wide, too narrow for three long series names side by side on top,
# and a laptop's chart loses nothing by it. Labels and title longer than the
# limit end in "…" (the full name is in the tooltip).
LEGEND_LIMIT = 300


def series_legend(**options: Any) -> alt.Legend:
    """The legend of a chart's series (lines or grouped bars): below the plot,
    one entry per line, labels and title cut at ``LEGEND_LIMIT`` pixels so that
    it fits a phone's width."""
    return alt.Legend(
        orient="bottom",
        direction="vertical",
        labelLimit=LEGEND_LIMIT,
        titleLimit=LEGEND_LIMIT,
        **options,
    )


def _given(value: Any) -> Any:
    """An optional Altair property: ``None`` leaves it out of the spec."""
    return alt.Undefined if value is None else value


def _headroom(x: alt.X, y_title: str) -> alt.Chart:
    """An invisible layer 15 % above the tallest bar, so the value printed on top
    of it is never cut off by the edge of the chart. It shares the y axis (same
    title, so the layered axis keeps one title)."""
    return (
        alt.Chart()
        .mark_point(opacity=0)
        .encode(x=x, y=alt.Y("room:Q", title=y_title))
        .transform_calculate(room="datum.value * 1.15")
    )


@functools.lru_cache(maxsize=64)
def bar_spec(
    x_title: str, y_title: str, height: int = 240, percent: bool = True, slanted: bool = False
) -> dict:
    """Bars of ``value`` per ``label`` (in ``order``), the value printed above
    each bar, ``highlight`` rows in orange; ``slanted`` tilts long labels so
    none is dropped. Frame: ``bar_frame``."""
    axis = alt.Axis(labelAngle=-35 if slanted else 0, labelOverlap=False, labelLimit=160)
    x = alt.X("label:N", title=x_title, sort=alt.EncodingSortField("order", op="min"), axis=axis)
    y = alt.Y("value:Q", title=y_title, axis=alt.Axis(format=".0%" if percent else ".2f"))
    tooltip = [alt.Tooltip("label:N", title=x_title), alt.Tooltip("text:N", title=y_title)]
    base = alt.Chart().encode(x=x, y=y, tooltip=tooltip)
    bars = base.mark_bar().encode(
        color=alt.Color(
            "kind:N",
            scale=alt.Scale(
                domain=["top", "other", "masked"], range=[SERIES_COLOURS[1], SERIES_COLOURS[0], MASKED_GREY]
            ),
            legend=None,
        )
    )
    text = base.mark_text(dy=-7, fontSize=12).encode(text="text:N")
    return freeze(alt.layer(bars, text, _headroom(x, y_title)).properties(height=height))


def bar_frame(
    labels: Sequence[str],
    values: np.ndarray,
    texts: Sequence[str],
    highlight: Sequence[int] | int | None = None,
    masked: np.ndarray | None = None,
) -> pd.DataFrame:
    """One bar per label; ``highlight`` bars orange (the top ones), ``masked``
    bars grey (positions the mask hides)."""
    n = len(labels)
    top = np.isin(np.arange(n), np.atleast_1d(highlight if highlight is not None else []))
    hidden = np.zeros(n, dtype=bool) if masked is None else np.asarray(masked, dtype=bool)
    return pd.DataFrame(
        {
            "label": list(labels),
            "order": np.arange(n),
            "value": np.asarray(values, dtype=float),
            "text": list(texts),
            "highlight": top,
            "kind": np.where(hidden, "masked", np.where(top, "top", "other")),
        }
    )


@functools.lru_cache(maxsize=64)
def grouped_bar_spec(
    x_title: str,
    y_title: str,
    series_title: str,
    height: int = 240,
    *,
    label_angle: int = 0,
    label_limit: int | None = None,
    values: bool = True,
) -> dict:
    """Side-by-side bars of ``value`` per ``label`` and ``series``, values printed.
    Frame: ``grouped_bar_frame``.

    ``label_angle`` (degrees, e.g. -40) tilts the x labels and then draws every
    one of them (no overlap thinning); ``label_limit`` caps a label's width in
    pixels (Vega-Lite's default otherwise). ``values=False`` draws the bars only:
    no value printed above them, and no room kept for it."""
    axis = alt.Axis(
        labelAngle=label_angle,
        labelOverlap=False if label_angle else alt.Undefined,
        labelLimit=_given(label_limit),
    )
    x = alt.X("label:N", title=x_title, sort=alt.EncodingSortField("order", op="min"), axis=axis)
    colour = alt.Color(
        "series:N",
        title=series_title,
        sort=alt.EncodingSortField("series_order", op="min"),
        scale=alt.Scale(range=SERIES_COLOURS),
        legend=series_legend(),
    )
    base = alt.Chart().encode(
        x=x,
        xOffset=alt.XOffset("series:N", sort=alt.EncodingSortField("series_order", op="min")),
        y=alt.Y("value:Q", title=y_title, axis=alt.Axis(format=".0%")),
        tooltip=[
            alt.Tooltip("label:N", title=x_title),
            alt.Tooltip("series:N", title=series_title),
            alt.Tooltip("text:N", title=y_title),
        ],
    )
    bars = base.mark_bar().encode(color=colour)
    if not values:
        return freeze(alt.layer(bars).properties(height=height))
    # On a phone two values side by side would overlap at 11 px: smaller there.
    text = base.mark_text(dy=-7, fontSize={"expr": "width < 480 ? 8 : 11"}).encode(text="text:N")
    return freeze(alt.layer(bars, text, _headroom(x, y_title)).properties(height=height))


def grouped_bar_frame(labels: Sequence[str], series: dict[str, np.ndarray], fmt) -> pd.DataFrame:
    parts = [
        pd.DataFrame(
            {
                "label": list(labels),
                "order": np.arange(len(labels)),
                "series": name,
                "series_order": k,
                "value": np.asarray(values, dtype=float),
                "text": [fmt(v) for v in values],
            }
        )
        for k, (name, values) in enumerate(series.items())
    ]
    return pd.concat(parts, ignore_index=True)


@functools.lru_cache(maxsize=128)  # the lessons' own heatmaps share this cache
def heatmap_spec(
    x_title: str,
    y_title: str,
    colour_title: str,
    masked_label: str,
    height: int = 380,
    diverging: bool = False,
    selectable: bool = False,
    *,
    label_angle: int | str = 0,
    label_limit: int | None = None,
    label_align: str | None = None,
    label_baseline: str | None = None,
    row_label_limit: int | str | None = None,
    axis_titles: bool = True,
    legend: bool | str = True,
    font_size: int = 11,
    cell_width: int | None = None,
    outline_rows: bool = False,
    pad_right: int | None = None,
) -> dict:
    """A heatmap with the value written in every cell; masked cells grey and
    labelled (``masked_label``, e.g. "grey = masked", is shown above the
    map; pass "" when nothing is masked). Frame: ``heatmap_frame``. With
    ``selectable`` a click on a cell selects its row (selection "pick", field
    ``row_i``).

    Options for narrow or crowded maps (Vega-Lite's defaults when left out):
    ``label_angle`` (degrees, e.g. -45, or a Vega expression such as
    "width < 480 ? -90 : -40") tilts the column labels (on top),
    ``label_limit`` caps their width in pixels, ``label_align`` and
    ``label_baseline`` anchor them ("left", "middle", ...); ``row_label_limit``
    caps the row labels' width (pixels or an expression); ``axis_titles=False`` drops both axis titles;
    ``legend`` is True (the colour scale at the right), False (none) or "top"
    (above the map, horizontal); ``font_size`` is that of the cell values;
    ``cell_width`` fixes each column's width in pixels (the chart is then as wide
    as its columns, not as the page); ``outline_rows`` draws an orange frame
    around the rows whose ``chosen`` column is true (e.g. the query row);
    ``pad_right`` keeps that many pixels free at the right, for the last tilted
    column label."""
    if legend not in (True, False, "top"):
        raise ValueError(f'legend must be True, False or "top", not {legend!r}')
    x = alt.X(
        "col:N",
        title=x_title if axis_titles else None,
        sort=alt.EncodingSortField("col_i"),
        axis=alt.Axis(
            orient="top",
            labelAngle={"expr": label_angle} if isinstance(label_angle, str) else label_angle,
            labelOverlap=False,
            labelLimit=_given(label_limit),
            labelAlign=_given(label_align),
            labelBaseline=_given(label_baseline),
        ),
    )
    y = alt.Y(
        "row:N",
        title=y_title if axis_titles else None,
        sort=alt.EncodingSortField("row_i"),
        axis=alt.Undefined
        if row_label_limit is None
        else alt.Axis(
            labelLimit={"expr": row_label_limit} if isinstance(row_label_limit, str) else row_label_limit
        ),
    )
    scale = (
        alt.Scale(scheme=DIVERGING, domainMid=0) if diverging else alt.Scale(scheme=SEQUENTIAL, domain=[0, 1])
    )
    if legend is True:
        key = alt.Undefined
    elif legend is False:
        key = None
    else:
        key = alt.Legend(orient="top", direction="horizontal")
    tooltip = [
        alt.Tooltip("row:N", title=y_title),
        alt.Tooltip("col:N", title=x_title),
        alt.Tooltip("text:N", title=colour_title),
    ]
    cells = (
        alt.Chart()
        .mark_rect(stroke="white", strokeWidth=1)
        .encode(
            x=x,
            y=y,
            color=alt.condition(
                "datum.masked",
                alt.value(MASKED_GREY),
                alt.Color("value:Q", title=colour_title, scale=scale, legend=key),
            ),
            tooltip=tooltip,
        )
    )
    if selectable:
        cells = cells.add_params(alt.selection_point(name="pick", fields=["row_i"], on="click"))
    labels = (
        alt.Chart()
        .mark_text(fontSize=font_size)
        .encode(
            x=x,
            y=y,
            text="text:N",
            color=alt.condition("datum.dark", alt.value("white"), alt.value("black")),
            tooltip=tooltip,
        )
    )
    layers = [cells, labels]
    if outline_rows:  # one frame across the whole row: a rect with no x spans the width
        layers.append(
            alt.Chart()
            .mark_rect(filled=False, stroke=SERIES_COLOURS[1], strokeWidth=3)
            .encode(y=y)
            .transform_filter("datum.chosen")
        )
    chart = alt.layer(*layers).properties(height=height)
    if masked_label:  # an empty title draws nothing, so leave it out
        chart = chart.properties(
            title=alt.TitleParams(masked_label, anchor="end", fontSize=11, fontWeight="normal", color="#555")
        )
    if cell_width is not None:
        chart = chart.properties(width=alt.Step(cell_width))
    if pad_right is not None:
        chart = chart.properties(padding={"left": 5, "top": 5, "bottom": 5, "right": pad_right})
    return freeze(chart)


def heatmap_frame(
    rows: Sequence[str],
    cols: Sequence[str],
    values: np.ndarray,
    texts: np.ndarray,
    masked: np.ndarray | None = None,
    dark: np.ndarray | None = None,
    chosen_row: int | None = None,
) -> pd.DataFrame:
    """Long form of an [n_rows, n_cols] matrix: one line per cell.

    ``texts`` holds the label of every cell; ``masked`` cells are drawn grey
    (give them any finite ``value``); ``dark`` cells get white text; the cells
    of ``chosen_row`` are marked ``chosen`` (outlined by ``outline_rows``)."""
    values = np.asarray(values, dtype=float)
    n_r, n_c = values.shape
    masked = np.zeros_like(values, dtype=bool) if masked is None else np.asarray(masked, dtype=bool)
    dark = np.abs(values) > 0.55 * np.max(np.abs(values), initial=1e-12) if dark is None else dark
    return pd.DataFrame(
        {
            "row": np.repeat(list(rows), n_c),
            "row_i": np.repeat(np.arange(n_r), n_c),
            "col": np.tile(list(cols), n_r),
            "col_i": np.tile(np.arange(n_c), n_r),
            "value": np.where(masked, 0.0, values).ravel(),
            "text": np.asarray(texts, dtype=object).ravel(),
            "masked": masked.ravel(),
            "dark": (np.asarray(dark) & ~masked).ravel(),
            "chosen": np.repeat(np.arange(n_r) == chosen_row, n_c),
        }
    )


def weights_frame(
    rows: Sequence[str],
    cols: Sequence[str],
    weights: np.ndarray,
    allowed: np.ndarray | None,
    chosen_row: int | None = None,
) -> pd.DataFrame:
    """A heatmap frame for attention weights: each cell labelled with its weight
    in percent (the number only, so that it fits a phone-width cell), cells the
    mask blocks labelled "—" and drawn grey, ``chosen_row`` marked."""
    weights = np.asarray(weights, dtype=float)
    blocked = np.zeros_like(weights, dtype=bool) if allowed is None else ~np.asarray(allowed)
    texts = np.where(blocked, "—", np.vectorize(lambda w: f"{100 * w:.0f}")(weights))
    return heatmap_frame(
        rows, cols, weights, texts, masked=blocked, dark=weights > 0.5, chosen_row=chosen_row
    )


def row_picker(chart_key: str, target_key: str):
    """A callback for a ``selectable`` heatmap: a click on a cell writes the
    cell's row index into the widget ``target_key`` (e.g. the query selectbox)."""

    def pick() -> None:
        points = st.session_state[chart_key].selection.get("pick", [])
        if points and "row_i" in points[0]:
            st.session_state[target_key] = int(points[0]["row_i"])

    return pick


@functools.lru_cache(maxsize=128)
def line_spec(
    x_title: str,
    y_title: str,
    series_title: str,
    log_x: bool = False,
    log_y: bool = False,
    height: int = 280,
    points: bool = True,
    *,
    x_domain: tuple[float, float] | None = None,
) -> dict:
    """Lines of ``y`` over ``x``, one per ``series`` (colour-blind-safe colours,
    legend below). Frame: ``line_frame``. ``x_domain`` (a (low, high) tuple)
    fixes the x axis' range instead of fitting it to the data."""
    x_scale = alt.Scale(type="log" if log_x else "linear", domain=_given(x_domain and list(x_domain)))
    x = alt.X("x:Q", title=x_title, scale=x_scale)
    y = alt.Y("y:Q", title=y_title, scale=alt.Scale(type="log" if log_y else "linear"))
    colour = alt.Color(
        "series:N",
        title=series_title,
        sort=alt.EncodingSortField("series_order", op="min"),
        scale=alt.Scale(range=SERIES_COLOURS),
        legend=series_legend(),
    )
    tooltip = [
        alt.Tooltip("series:N", title=series_title),
        alt.Tooltip("x:Q", title=x_title, format=".4~g"),
        alt.Tooltip("y:Q", title=y_title, format=".4~g"),
    ]
    line = (
        alt.Chart()
        .mark_line(point=points)
        .encode(x=x, y=y, color=colour, strokeDash=alt.StrokeDash("series:N", legend=None), tooltip=tooltip)
    )
    return freeze(line.properties(height=height))


def line_frame(x: np.ndarray, series: dict[str, np.ndarray]) -> pd.DataFrame:
    """Long form of several y arrays over one x array."""
    x = np.asarray(x, dtype=float)
    return pd.concat(
        [
            pd.DataFrame({"x": x, "y": np.asarray(y, dtype=float), "series": name, "series_order": k})
            for k, (name, y) in enumerate(series.items())
        ],
        ignore_index=True,
    )


@functools.lru_cache(maxsize=32)
def count_line_spec(x_title: str, y_title: str, series_title: str, height: int = 280) -> dict:
    """``line_spec`` for an x axis that counts something (tokens, steps): ticks
    on whole numbers only, never 1.2 or 1.4. Frame: ``line_frame``."""
    base = line_spec(x_title, y_title, series_title, height=height)
    x = {**base["encoding"]["x"], "axis": {"tickMinStep": 1, "format": "d"}}
    return {**base, "encoding": {**base["encoding"], "x": x}}
