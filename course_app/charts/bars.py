"""Bar charts: one bar per label (``bar_spec``) and side-by-side bars per label
and series (``grouped_bar_spec``), with the frames they are drawn from."""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence

import altair as alt
import numpy as np
import pyarrow as pa

from course_app.charts.base import (
    MASKED_GREY,
    SERIES_COLOURS,
    fitted_text,
    freeze,
    given,
    headroom,
    series_colour,
    table,
    tooltips,
)

# A value printed above its bar: VALUE_DY px above the bar's top, at VALUE_FONT
# px. Over a bar of 100 % on a fixed share axis it stands above the plot, in
# VALUE_ROOM px of padding kept for it at the top of the chart.
VALUE_DY = -7
VALUE_FONT = 11
VALUE_ROOM = 14


def value_labels(base: alt.Chart, band: str) -> alt.Chart:
    """The ``text`` of each bar printed above it, every bar's or none (see
    fitted_text: smaller where the longest does not fit at 11 px; on a phone,
    or with many bars side by side, they stay in the tooltips and on the y axis)."""
    text = base.mark_text(dy=VALUE_DY, fontSize=VALUE_FONT).encode(text="text:N")
    return fitted_text(text, band, VALUE_FONT, small=9)


def share_axis(title: str) -> alt.Y:
    """The y axis of a chart of shares (attention weights, probabilities): always
    0 to 100 %, so that a bar's height can be compared before and after a
    control moves, and from chart to chart. An axis fitted to the tallest bar
    would rescale on every move (0–80 %, then 0–50 %), and equal heights would
    mean different weights."""
    return alt.Y("value:Q", title=title, scale=alt.Scale(domain=[0, 1]), axis=alt.Axis(format=".0%"))


def _padding(steep: bool, values_above: bool) -> dict[str, int] | None:
    """The chart's padding: room above the plot for the value printed over a
    bar of 100 % (``values_above``), and at the right for the last upright
    label of a ``steep`` axis (half its height past the plot)."""
    if not (steep or values_above):
        return None
    top = VALUE_ROOM if values_above else 2
    return {"left": 2, "right": 6 if steep else 2, "top": top, "bottom": 2}


def _bar_x(x_title: str, slanted: bool | int | str, labels: bool = True) -> alt.X:
    """The labels along x: tilted (all drawn) when ``slanted`` or on a phone,
    where ten labels side by side would run together; upright on a laptop.
    ``slanted="steep"``: tilted on a laptop and turned upright on a phone (twenty
    labels and more).
    ``labels=False``: no labels and no title (a chart stacked above another
    with the same labels, which names them)."""
    if slanted == "steep":  # many labels: upright on a phone, where even tilted ones would touch
        angle, at_angle = -35, {"expr": "width < 480 ? -90 : -35"}
    else:
        angle = -35 if slanted is True else int(slanted) or 0
        at_angle = angle if angle else {"expr": "width < 480 ? -45 : 0"}
    axis = alt.Axis(
        labels=labels,
        labelAngle=at_angle,
        labelAlign="right" if angle else {"expr": "width < 480 ? 'right' : 'center'"},
        labelBaseline="middle" if angle else {"expr": "width < 480 ? 'middle' : 'top'"},
        labelOverlap=False,
        labelLimit=160,
    )
    title = x_title if labels else None
    return alt.X("label:N", title=title, sort=alt.EncodingSortField("order", op="min"), axis=axis)


@functools.lru_cache(maxsize=64)
def bar_spec(
    x_title: str,
    y_title: str,
    height: int = 180,
    percent: bool = True,
    slanted: bool | str = False,
    *,
    x_labels: bool = True,
) -> dict:
    """Bars of ``value`` per ``label`` (in ``order``), the value printed above
    each bar where it fits, ``highlight`` rows in orange; ``slanted`` tilts long
    labels so none is dropped (on a phone they are always tilted). ``height``
    is the plot's. ``percent``: the values are shares, on the fixed 0–100 %
    axis of ``share_axis``; otherwise the axis fits the values, with room above
    the tallest bar for its printed value. ``x_labels=False`` leaves out the
    labels along x (see ``_bar_x``). Frame: ``bar_frame``."""
    x = _bar_x(x_title, slanted, x_labels)
    y = share_axis(y_title) if percent else alt.Y("value:Q", title=y_title, axis=alt.Axis(format=".2f"))
    base = alt.Chart().encode(x=x, y=y, tooltip=tooltips(("label:N", x_title), ("text:N", y_title)))
    bars = base.mark_bar().encode(
        color=alt.Color(
            "kind:N",
            scale=alt.Scale(
                domain=["top", "other", "masked"], range=[SERIES_COLOURS[1], SERIES_COLOURS[0], MASKED_GREY]
            ),
            legend=None,
        )
    )
    room = () if percent else (headroom(x, y_title),)
    chart = alt.layer(bars, value_labels(base, "x"), *room).properties(height=height)
    padding = _padding(slanted == "steep", values_above=percent)
    if padding:
        chart = chart.properties(padding=padding)
    return freeze(chart)


def bar_frame(
    labels: Sequence[str],
    values: np.ndarray,
    texts: Sequence[str],
    highlight: Sequence[int] | int | None = None,
    masked: np.ndarray | None = None,
) -> pa.Table:
    """One bar per label; ``highlight`` bars orange (the top ones), ``masked``
    bars grey (positions the mask hides)."""
    n = len(labels)
    top = np.isin(np.arange(n), np.atleast_1d(highlight if highlight is not None else []))
    hidden = np.zeros(n, dtype=bool) if masked is None else np.asarray(masked, dtype=bool)
    return table(
        {
            "label": list(labels),
            "order": np.arange(n),
            "value": np.asarray(values, dtype=float),
            "text": list(texts),
            "highlight": top,
            "kind": np.where(hidden, "masked", np.where(top, "top", "other")),
        }
    )


def _grouped_x(x_title: str, label_angle: int, label_limit: int | None) -> alt.X:
    """The labels along x; tilted ones are all drawn (no overlap thinning), and
    upright ones are tilted on a phone."""
    if not label_angle:
        return _bar_x(x_title, False)
    axis = alt.Axis(labelAngle=label_angle, labelOverlap=False, labelLimit=given(label_limit))
    return alt.X("label:N", title=x_title, sort=alt.EncodingSortField("order", op="min"), axis=axis)


@functools.lru_cache(maxsize=64)
def grouped_bar_spec(
    x_title: str,
    y_title: str,
    series_title: str,
    height: int = 180,
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
    no value printed above them, and no room kept for it; otherwise a value is
    printed where its bar leaves room for it. ``height`` is the plot's. The
    values are shares, on the fixed 0–100 % axis of ``share_axis``."""
    x = _grouped_x(x_title, label_angle, label_limit)
    base = alt.Chart().encode(
        x=x,
        xOffset=alt.XOffset("series:N", sort=alt.EncodingSortField("series_order", op="min")),
        y=share_axis(y_title),
        tooltip=tooltips(("label:N", x_title), ("series:N", series_title), ("text:N", y_title)),
    )
    bars = base.mark_bar().encode(color=series_colour(series_title, "square"))
    if not values:
        return freeze(alt.layer(bars).properties(height=height))
    text = value_labels(base, "xOffset")
    chart = alt.layer(bars, text).properties(height=height, padding=_padding(False, values_above=True))
    return freeze(chart)


def dense_grouped_bar_spec(x_title: str, y_title: str, series_title: str, slanted: bool) -> dict:
    """Grouped bars only, for three or more bars per label: they leave no room for
    printed values (a lesson puts them in the tooltips and in the text), so the
    y axis shows the percentages; ``slanted`` tilts the labels (many or long
    ones), below the plot. Frame:
    ``grouped_bar_frame``."""
    return grouped_bar_spec(
        x_title,
        y_title,
        series_title,
        height=220,
        label_angle=-40 if slanted else 0,
        label_limit=160 if slanted else None,
        values=False,
    )


def grouped_bar_frame(
    labels: Sequence[str],
    series: dict[str, np.ndarray],
    fmt: Callable[[float], str],
    blocked: np.ndarray | None = None,
) -> pa.Table:
    """Long form of several value arrays over the same labels: one row per label
    and series, in order, with the value written by ``fmt``, or "—" for a label
    that ``blocked`` (one flag per label) marks as hidden by a mask, as the
    lessons' maps and tables write it."""
    n, k = len(labels), len(series)
    values = np.concatenate([np.asarray(v, dtype=float) for v in series.values()]) if k else np.zeros(0)
    hidden = np.tile(np.zeros(n, dtype=bool) if blocked is None else np.asarray(blocked, dtype=bool), k)
    return table(
        {
            "label": list(labels) * k,
            "order": np.tile(np.arange(n), k),
            "series": np.repeat(list(series), n),
            "series_order": np.repeat(np.arange(k), n),
            "value": values,
            "text": ["—" if h else fmt(v) for v, h in zip(values, hidden, strict=True)],
        }
    )
