"""What every chart shares: the colours, drawing a cached spec with new data,
``freeze`` (a data-less chart as a Vega-Lite dict), the series legend and the
small Altair pieces the spec builders of this package are made of."""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from typing import Any, Literal

import altair as alt
import numpy as np
import pyarrow as pa
import streamlit as st

from course_app import session
from course_app.charts import export
from course_app.i18n import t

# Colour-blind-safe: a single-hue sequential scale for weights, a diverging
# one for signed values, and a neutral grey for cells the mask blocks.
SEQUENTIAL = "blues"
DIVERGING = "blueorange"
MASKED_GREY = "#9e9e9e"  # darker than the lightest blue, so it differs in lightness too
SERIES_COLOURS = ["#1f77b4", "#ff7f0e", "#7f7f7f"]  # blue / orange / grey
# Series past the third (e.g. four query heads) continue with Okabe–Ito colours
# unlike these three, so that no two series of a chart share a colour.
MORE_SERIES_COLOURS = ["#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442"]
CHOSEN_COLOUR = "#9467bd"  # the learner's choice on a line chart: purple, 3 : 1 or more in both themes
WAVE_COLOURS = ["#0072B2", "#E69F00", "#009E73", "#CC79A7"]  # Okabe–Ito: colour-blind safe

# A series legend below the plot, one entry per line: a phone's chart is about
# 358 px wide, too narrow for three long series names side by side on top,
# and a laptop's chart loses nothing by it. Labels and title longer than the
# limit end in "…" (the full name is in the tooltip).
LEGEND_LIMIT = 300

# Vega-Lite's autosize for every spec: the width fits the page's column, and
# the spec's ``height`` is the plot area's own, with the axes, titles and
# legends added to it (Streamlit's default, "fit", would squeeze the plot into
# that height, legend and all).
AUTOSIZE = {"type": "fit-x", "contains": "padding"}


def table(columns: Mapping[str, Sequence[Any] | np.ndarray]) -> pa.Table:
    """A chart's data: columns (name -> NumPy array, or a list of text) as an
    Arrow table, the form in which Streamlit sends chart data to the browser.
    Built straight from the arrays it costs about a fifth of a pandas
    DataFrame and its conversion, on every slider move (docs/serving.md)."""
    return pa.table({name: _column(values) for name, values in columns.items()})


def _column(values: Sequence[Any] | np.ndarray) -> pa.Array:
    if isinstance(values, list | tuple) and all(type(v) is str for v in values):
        return pa.array(values, type=pa.string())  # the common case, without a NumPy detour
    array = np.asarray(values).ravel()
    if array.dtype.kind in "OSU":  # text: Arrow strings, as pandas' text columns become
        return pa.array(array.astype(str).tolist(), type=pa.string())
    return pa.array(array)


# Session key: the page's title and how many charts this run has drawn (each
# chart's PNG download needs a key of its own; see ``show``).


def start_exports(lesson: str) -> None:
    """Name this run's charts' PNG files after ``lesson`` (the page's title)
    and count its charts from zero. ``setup_page`` calls it on every run."""
    session.put(session.CHART_EXPORTS, {"lesson": lesson, "drawn": 0})


def show(
    data: pa.Table,
    spec: dict[str, Any],
    alt_text: str,
    width: str = "stretch",
    save: Literal["above", "below"] | None = "above",
    **kwargs: Any,
) -> Any:
    """Draw a cached spec with this rerun's data, full width (or ``width``),
    with alt text, and the chart's PNG download (``save_button``) on the side
    of the chart away from the controls that change it, so that nothing comes
    between the two: above a chart whose controls are under it (the usual
    layout), ``save="below"`` for one whose controls come first, ``None`` for a
    chart redrawn while it changes (a live training curve)."""
    if save == "above":
        save_button(data, spec, alt_text)
    drawn = st.vega_lite_chart(data, spec, width=width, alt=alt_text, **kwargs)
    if save == "below":
        save_button(data, spec, alt_text)
    return drawn


def save_button(data: pa.Table, spec: dict[str, Any], alt_text: str) -> None:
    """A download of the chart as a PNG image, rendered only when it is
    pressed (``export.png``), named after the page and the chart's alt text."""
    exports = session.setdefault(session.CHART_EXPORTS, {"lesson": "", "drawn": 0})
    exports["drawn"] += 1  # a key per chart: two charts may share an alt text
    st.container(horizontal=True, horizontal_alignment="right").download_button(
        t("ui.chart.save"),
        data=functools.partial(export.png, data, spec),
        file_name=export.file_name(exports["lesson"], alt_text),
        mime="image/png",
        icon=":material/image:",
        type="tertiary",
        on_click="ignore",
        key=f"chart_png_{exports['drawn']}",
        help=t("ui.chart.save_help"),
    )


def freeze(chart: alt.TopLevelMixin) -> dict[str, Any]:
    """The chart, built without data, as a Vega-Lite dict without data, ready to
    be cached and passed to ``show`` with each rerun's frame.

    Its ``height`` is the plot area's (``AUTOSIZE``). Altair gives a data-less
    chart a placeholder dataset, which would show up as an "undefined"
    category; this drops it (``datasets``, and ``data`` at the top level and in
    every layer). Every spec builder of this package ends with
    it and is cached (``functools.lru_cache``): treat the dict as read-only,
    since every caller gets the same object."""
    spec = chart.to_dict()
    spec.pop("datasets", None)
    for part in [spec, *spec.get("layer", [])]:
        part.pop("data", None)
    spec["autosize"] = AUTOSIZE
    return spec


def series_legend(symbol: str = "stroke", **options: Any) -> alt.Legend:
    """The legend of a chart's series (lines or grouped bars): below the plot,
    one entry per line, labels and title cut at ``LEGEND_LIMIT`` pixels so that
    it fits a phone's width. Each swatch is an ordinary ``symbol``: "stroke" (a
    short line, solid: a dashed circle would read as a gear), "square" (a bar)
    or "circle" (a point), filled in the series' colour."""
    filled = symbol != "stroke"
    return alt.Legend(
        orient="bottom",
        direction="vertical",
        labelLimit=LEGEND_LIMIT,
        titleLimit=LEGEND_LIMIT,
        symbolType=symbol,
        symbolDash=[1, 0],
        symbolStrokeWidth=3 if symbol == "stroke" else 0,
        symbolOpacity=1,
        symbolFillColor=alt.Undefined if filled else "transparent",
        **options,
    )


def series_colour(series_title: str, symbol: str = "stroke") -> alt.Color:
    """The colour of each ``series`` (in ``series_order``), colour-blind-safe
    and one of its own for up to eight series, with its legend below the plot
    (swatches: ``symbol``, see ``series_legend``)."""
    return alt.Color(
        "series:N",
        title=series_title,
        sort=alt.EncodingSortField("series_order", op="min"),
        scale=alt.Scale(range=[*SERIES_COLOURS, *MORE_SERIES_COLOURS]),
        legend=series_legend(symbol),
    )


def tooltips(*fields: tuple[str, str] | tuple[str, str, str]) -> list[alt.Tooltip]:
    """One tooltip line per ``(field, title)`` or ``(field, title, format)``."""
    return [
        alt.Tooltip(field, title=title) if not fmt else alt.Tooltip(field, title=title, format=fmt[0])
        for field, title, *fmt in fields
    ]


def fitted_text(text: alt.Chart, band: str, font_size: int, small: int | None = None) -> alt.Chart:
    """The ``text`` layer of values written on bars or in cells, all of them or
    none: at ``font_size`` when the longest fits the width of the band scale
    ``band`` ("x", or "xOffset" for grouped bars), else at ``small`` when it
    fits there, else none (they stay in the tooltips). So neighbours never run
    together ("3.4%1.5%3.4%"), and a tall bar's "65.7%" is never the one left
    out while its short neighbours are written. A character is taken as 0.6 of
    the font size wide (digits, "%", "." and "−" are narrower or about that)."""

    def wide(size: int) -> str:
        return f"datum.longest_text * {0.6 * size:g} + 2 <= bandwidth('{band}')"

    longest = text.transform_calculate(text_length="length(datum.text)").transform_joinaggregate(
        longest_text="max(text_length)"
    )
    shown = alt.condition(wide(small or font_size), alt.value(1), alt.value(0))
    if small is None:
        return longest.encode(opacity=shown)
    return longest.encode(
        opacity=shown, size=alt.condition(wide(font_size), alt.value(font_size), alt.value(small))
    )


def given(value: Any) -> Any:
    """An optional Altair property: ``None`` leaves it out of the spec."""
    return alt.Undefined if value is None else value


def expr_or(value: Any) -> Any:
    """A number as it is, a string as a Vega expression (e.g. "width < 480 ? -90 : 0")."""
    return {"expr": value} if isinstance(value, str) else value


def headroom(x: alt.X, y_title: str) -> alt.Chart:
    """An invisible layer 15 % above the tallest bar, so the value printed on top
    of it is never cut off by the edge of the chart. It shares the y axis (same
    title, so the layered axis keeps one title)."""
    return (
        alt.Chart()
        .mark_point(opacity=0)
        .encode(x=x, y=alt.Y("room:Q", title=y_title))
        .transform_calculate(room="datum.value * 1.15")
    )
