"""Line charts: lines over x, one per series (``line_spec``, ``count_line_spec``),
over a logarithmic x with the learner's choice as a point (``log_line_spec``),
and the waves of a wide frame folded by Vega-Lite (``wave_spec``)."""

from __future__ import annotations

import functools

import altair as alt
import numpy as np
import pyarrow as pa

from course_app.charts.base import (
    CHOSEN_COLOUR,
    SERIES_COLOURS,
    WAVE_COLOURS,
    freeze,
    given,
    series_colour,
    series_legend,
    table,
    tooltips,
)


def _xy_tooltip(
    series_title: str, x_title: str, y_title: str, x_format: str | None = ".4~g", y_format: str = ".4~g"
) -> list[alt.Tooltip]:
    """The series, x and y of a point, x and y in their formats (x as it is without one)."""
    x = ("x:Q", x_title, x_format) if x_format else ("x:Q", x_title)
    return tooltips(("series:N", series_title), x, ("y:Q", y_title, y_format))


@functools.lru_cache(maxsize=128)
def line_spec(
    x_title: str,
    y_title: str,
    series_title: str,
    log_x: bool = False,
    log_y: bool = False,
    height: int = 200,
    points: bool = True,
    *,
    x_domain: tuple[float, float] | None = None,
    x_ticks: tuple[float, ...] = (),
    y_ticks: tuple[float, ...] = (),
) -> dict:
    """Lines of ``y`` over ``x``, one per ``series`` (colour-blind-safe colours,
    legend below). Frame: ``line_frame``. ``x_domain`` (a (low, high) tuple)
    fixes the x axis' range instead of fitting it to the data; ``x_ticks`` (two
    or more) puts the ticks there, and the axis runs from the first to the last
    (a log axis is otherwise rounded out to powers of ten: 10 to 1,000 for 64 to 512);
    ``y_ticks`` (two or more) puts the y ticks there only, and the axis runs
    from the first to the last (a log axis otherwise ticks at 1, 3, 5, 20, 40,
    100 …, and may end above its last tick)."""
    if len(x_ticks) > 1 and x_domain is None:
        x_domain = (x_ticks[0], x_ticks[-1])
    x_scale = alt.Scale(type="log" if log_x else "linear", domain=given(x_domain and list(x_domain)))
    x_axis = alt.Axis(values=list(x_ticks)) if len(x_ticks) > 1 else alt.Undefined
    x = alt.X("x:Q", title=x_title, scale=x_scale, axis=x_axis)
    y_axis = alt.Axis(values=list(y_ticks)) if len(y_ticks) > 1 else alt.Undefined
    y_domain = [y_ticks[0], y_ticks[-1]] if len(y_ticks) > 1 else alt.Undefined
    y_scale = alt.Scale(type="log" if log_y else "linear", domain=y_domain)
    y = alt.Y("y:Q", title=y_title, scale=y_scale, axis=y_axis)
    line = (
        alt.Chart()
        .mark_line(point=points)
        .encode(
            x=x,
            y=y,
            color=series_colour(series_title),
            strokeDash=alt.StrokeDash("series:N", legend=None),
            tooltip=_xy_tooltip(series_title, x_title, y_title),
        )
    )
    return freeze(line.properties(height=height))


def line_frame(
    x: np.ndarray, series: dict[str, np.ndarray], point: tuple[str, float, float] | None = None
) -> pa.Table:
    """Long form of several y arrays over one x array; with ``point`` = (name, x, y),
    one marked point after them, as the last series (its colour and legend place)."""
    x = np.asarray(x, dtype=float)
    names, ys = list(series), [np.asarray(y, dtype=float) for y in series.values()]
    xs = [x] * len(ys)
    if point is not None:
        names, xs, ys = [*names, point[0]], [*xs, np.array([point[1]])], [*ys, np.array([point[2]])]
    sizes = [len(part) for part in xs]
    return table(
        {
            "x": np.concatenate(xs) if xs else x[:0],
            "y": np.concatenate(ys) if ys else x[:0],
            "series": np.repeat(names, sizes) if names else [],
            "series_order": np.repeat(np.arange(len(names)), sizes),
        }
    )


@functools.lru_cache(maxsize=32)
def count_line_spec(x_title: str, y_title: str, series_title: str, height: int = 200) -> dict:
    """``line_spec`` for an x axis that counts something (tokens, steps): ticks
    on whole numbers only, never 1.2 or 1.4. Frame: ``line_frame``."""
    base = line_spec(x_title, y_title, series_title, height=height)
    x = {**base["encoding"]["x"], "axis": {"tickMinStep": 1, "format": "d"}}
    return {**base, "encoding": {**base["encoding"], "x": x}}


def _log_y(log_y_ticks: tuple[float, ...]) -> tuple[alt.Scale, alt.Axis]:
    """A logarithmic y from the first tick to the last, or a linear one from 0 with no ticks given."""
    if log_y_ticks:
        ticks = list(log_y_ticks)
        return alt.Scale(type="log", domain=[ticks[0], ticks[-1]]), alt.Axis(values=ticks)
    return alt.Scale(zero=True), alt.Axis()


@functools.lru_cache(maxsize=32)
def log_line_spec(
    x_title: str,
    y_title: str,
    series_title: str,
    names: tuple[str, ...],
    x_ticks: tuple[float, ...],
    log_y_ticks: tuple[float, ...] = (),
    height: int = 220,
) -> dict:
    """Lines over a logarithmic x axis that spans exactly the data (ticks at ``x_ticks``), one
    per series in ``names``; the first series is the reference the others follow
    (the theory, the average), drawn over them as a line without points, so that
    it shows where they lie on it and their points show through;
    the last series is a single large point (the learner's choice), drawn on top.
    With ``log_y_ticks`` the y axis is logarithmic too.
    Frame: ``line_frame`` rows with ``series_order`` 0 … len(names) − 1."""
    last = len(names) - 1
    colours = (*SERIES_COLOURS, CHOSEN_COLOUR)
    colour = alt.Color(
        "series:N",
        title=series_title,
        scale=alt.Scale(domain=list(names), range=[*colours[:last], colours[-1]]),
        legend=series_legend("circle"),  # lines with points, and one point: a dot each
    )
    y_scale, y_axis = _log_y(log_y_ticks)
    base = alt.Chart().encode(
        x=alt.X(
            "x:Q", title=x_title, scale=alt.Scale(type="log", nice=False), axis=alt.Axis(values=list(x_ticks))
        ),
        y=alt.Y("y:Q", title=y_title, scale=y_scale, axis=y_axis),
        color=colour,
        tooltip=_xy_tooltip(series_title, x_title, y_title),
    )
    dashed = alt.StrokeDash("series:N", legend=None)
    lines = base.transform_filter(f"datum.series_order > 0 && datum.series_order < {last}")
    reference = base.transform_filter("datum.series_order == 0")
    point = base.transform_filter(f"datum.series_order == {last}").mark_point(
        size=180, filled=True, opacity=1, stroke="white", strokeWidth=1.5
    )
    layers = (
        lines.mark_line(point=True).encode(strokeDash=dashed),
        reference.mark_line(point=False).encode(strokeDash=dashed),  # the others' points show through
    )
    return freeze(alt.layer(*layers, point).properties(height=height))


@functools.lru_cache(maxsize=16)
def wave_spec(
    x_title: str, y_title: str, series_title: str, series: tuple[str, ...], points: bool, height: int = 200
) -> dict:
    """Lines of each column named in ``series`` over ``x`` (a wide frame, folded
    into long form by Vega-Lite: numeric columns only, so the data is cheap to
    send): four colour-blind-safe colours, sin dimensions solid, cos dashed.
    The frame samples the waves between whole positions too (``wave_frame``),
    so a fast wave is drawn as the curve it is; with ``points`` the whole
    positions (``whole``) are marked with a dot."""
    colour = alt.Color(
        "series:N",
        title=series_title,
        scale=alt.Scale(domain=list(series), range=WAVE_COLOURS[: len(series)]),
        legend=series_legend(columns=2),
    )
    dashes = [[1, 0] if i % 2 == 0 else [6, 3] for i in range(len(series))]
    dash = alt.StrokeDash("series:N", scale=alt.Scale(domain=list(series), range=dashes), legend=None)
    base = (
        alt.Chart()
        .transform_fold(list(series), as_=["series", "y"])
        .encode(
            x=alt.X("x:Q", title=x_title, axis=alt.Axis(tickMinStep=1)),
            y=alt.Y("y:Q", title=y_title, scale=alt.Scale(domain=[-1, 1])),
            color=colour,
            tooltip=_xy_tooltip(series_title, x_title, y_title, x_format=".3~f", y_format=".3f"),
        )
    )
    line = base.mark_line().encode(strokeDash=dash)
    if not points:
        return freeze(line.properties(height=height))
    dots = base.transform_filter("datum.whole").mark_point(filled=True, size=16, opacity=1)
    return freeze(alt.layer(line, dots).properties(height=height))


def wave_frame(n: int, wavelengths: np.ndarray, names: tuple[str, ...], per_position: int = 8) -> pa.Table:
    """The wide frame of ``wave_spec`` for waves over positions 0 … n − 1: ``x``
    sampled ``per_position`` times per position, ``whole`` where x is a whole
    position, and one column per name: wave i is sin(2π x / λ_i) for even i and
    cos(2π x / λ_i) for odd i (λ_i = ``wavelengths[i]``)."""
    x = np.arange(max(n - 1, 0) * per_position + 1) / per_position
    lam = np.asarray(wavelengths, dtype=float)[: len(names)]
    angles = 2 * np.pi * x[:, None] / lam[None, :]
    odd = np.arange(len(names)) % 2 == 1
    waves = np.where(odd, np.cos(angles), np.sin(angles)).astype(np.float32)
    columns = {"x": x.astype(np.float32), "whole": np.arange(len(x)) % per_position == 0}
    return table({**columns, **{name: waves[:, i] for i, name in enumerate(names)}})
