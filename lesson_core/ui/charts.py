"""Altair chart specs, built once per shape and fed new data on every rerun.

Each ``*_spec`` function builds an Altair chart with no data, turns it into a
Vega-Lite dict and caches it by its arguments (titles, height). A page pairs
it with a long-form DataFrame from the matching ``*_frame`` function and
calls ``show``. Moving a slider then costs a DataFrame, not a new chart.
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


def _freeze(chart: alt.TopLevelMixin) -> dict[str, Any]:
    """The chart as a Vega-Lite dict without data: Altair gives a data-less chart
    a placeholder dataset, which would show up as an "undefined" category."""
    spec = chart.to_dict()
    spec.pop("datasets", None)
    for part in [spec, *spec.get("layer", [])]:
        part.pop("data", None)
    return spec


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
    return _freeze(alt.layer(bars, text, _headroom(x, y_title)).properties(height=height))


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
def grouped_bar_spec(x_title: str, y_title: str, series_title: str, height: int = 240) -> dict:
    """Side-by-side bars of ``value`` per ``label`` and ``series``, values printed.
    Frame: ``grouped_bar_frame``."""
    x = alt.X(
        "label:N", title=x_title, sort=alt.EncodingSortField("order", op="min"), axis=alt.Axis(labelAngle=0)
    )
    colour = alt.Color(
        "series:N",
        title=series_title,
        sort=alt.EncodingSortField("series_order", op="min"),
        scale=alt.Scale(range=SERIES_COLOURS),
        legend=alt.Legend(orient="top"),
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
    text = base.mark_text(dy=-7, fontSize=11).encode(text="text:N")
    return _freeze(alt.layer(bars, text, _headroom(x, y_title)).properties(height=height))


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


@functools.lru_cache(maxsize=64)
def heatmap_spec(
    x_title: str,
    y_title: str,
    colour_title: str,
    masked_label: str,
    height: int = 380,
    diverging: bool = False,
    selectable: bool = False,
) -> dict:
    """A heatmap with the value written in every cell; masked cells grey and
    labelled (``masked_label``, e.g. "grey = masked", is shown above the
    map; pass "" when nothing is masked). Frame: ``heatmap_frame``. With
    ``selectable`` a click on a cell selects its row (selection "pick", field
    ``row_i``)."""
    x = alt.X(
        "col:N",
        title=x_title,
        sort=alt.EncodingSortField("col_i"),
        axis=alt.Axis(orient="top", labelAngle=0, labelOverlap=False),
    )
    y = alt.Y("row:N", title=y_title, sort=alt.EncodingSortField("row_i"))
    scale = (
        alt.Scale(scheme=DIVERGING, domainMid=0) if diverging else alt.Scale(scheme=SEQUENTIAL, domain=[0, 1])
    )
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
                alt.Color("value:Q", title=colour_title, scale=scale),
            ),
            tooltip=tooltip,
        )
    )
    if selectable:
        cells = cells.add_params(alt.selection_point(name="pick", fields=["row_i"], on="click"))
    labels = (
        alt.Chart()
        .mark_text(fontSize=11)
        .encode(
            x=x,
            y=y,
            text="text:N",
            color=alt.condition("datum.dark", alt.value("white"), alt.value("black")),
            tooltip=tooltip,
        )
    )
    legend = alt.TitleParams(masked_label, anchor="end", fontSize=11, fontWeight="normal", color="#555")
    return _freeze(alt.layer(cells, labels).properties(height=height, title=legend))


def heatmap_frame(
    rows: Sequence[str],
    cols: Sequence[str],
    values: np.ndarray,
    texts: np.ndarray,
    masked: np.ndarray | None = None,
    dark: np.ndarray | None = None,
) -> pd.DataFrame:
    """Long form of an [n_rows, n_cols] matrix: one line per cell.

    ``texts`` holds the label of every cell; ``masked`` cells are drawn grey
    (give them any finite ``value``); ``dark`` cells get white text."""
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
        }
    )


def weights_frame(
    rows: Sequence[str], cols: Sequence[str], weights: np.ndarray, allowed: np.ndarray | None
) -> pd.DataFrame:
    """A heatmap frame for attention weights: each cell labelled with its weight
    in percent (the number only, so that it fits a phone-width cell), cells the
    mask blocks labelled "—" and drawn grey."""
    weights = np.asarray(weights, dtype=float)
    blocked = np.zeros_like(weights, dtype=bool) if allowed is None else ~np.asarray(allowed)
    texts = np.where(blocked, "—", np.vectorize(lambda w: f"{100 * w:.0f}")(weights))
    return heatmap_frame(rows, cols, weights, texts, masked=blocked, dark=weights > 0.5)


def row_picker(chart_key: str, target_key: str):
    """A callback for a ``selectable`` heatmap: a click on a cell writes the
    cell's row index into the widget ``target_key`` (e.g. the query selectbox)."""

    def pick() -> None:
        points = st.session_state[chart_key].selection.get("pick", [])
        if points and "row_i" in points[0]:
            st.session_state[target_key] = int(points[0]["row_i"])

    return pick


@functools.lru_cache(maxsize=64)
def line_spec(
    x_title: str,
    y_title: str,
    series_title: str,
    log_x: bool = False,
    log_y: bool = False,
    height: int = 280,
    points: bool = True,
) -> dict:
    """Lines of ``y`` over ``x``, one per ``series`` (colour-blind-safe colours,
    legend on top). Frame: ``line_frame``."""
    x = alt.X("x:Q", title=x_title, scale=alt.Scale(type="log" if log_x else "linear"))
    y = alt.Y("y:Q", title=y_title, scale=alt.Scale(type="log" if log_y else "linear"))
    colour = alt.Color(
        "series:N",
        title=series_title,
        sort=alt.EncodingSortField("series_order", op="min"),
        scale=alt.Scale(range=SERIES_COLOURS),
        legend=alt.Legend(orient="top"),
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
    return _freeze(line.properties(height=height))


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
