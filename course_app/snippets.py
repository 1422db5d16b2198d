"""The code behind a figure: a fold under a lesson's central figure that shows
the ``lesson_core`` function which computed it, read from its module (never a
copy that could drift), and the call with the learner's current values, which
pasted into Python (in this project, installed) prints the figure's numbers.

A lesson describes its call as a ``Snippet`` built by a function that the
fold runs only while it is open, so a closed fold costs a run nothing but
its label:

    code_fold("attention_code", lambda: Snippet(uses=(f,), lines=(...), shows=(...)))
"""

from __future__ import annotations

import functools
import inspect
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import streamlit as st

from course_app.folds import fold
from course_app.i18n import current_lang, t

ICON = ":material/code:"


KINDS = ("bars", "lines", "heatmap")


@dataclass(frozen=True)
class Plot:
    """The central chart, in the snippet's terms.

    kind     "bars" (one bar per label, a group per series), "lines" (series over
             x) or "heatmap" (a matrix: rows × columns)
    x        an expression: the labels of the bars, the x values of the lines;
             for a heatmap, the matrix
    series   (name, expression) for each series of bars or lines
    x_title, y_title   the axes' titles, in the learner's language
    log      both axes logarithmic (lines)
    """

    kind: str
    x: str
    series: Sequence[tuple[str, str]] = ()
    x_title: str = ""
    y_title: str = ""
    log: bool = False

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"kind must be one of {KINDS}, got {self.kind!r}")

    def code(self) -> str:
        """The notebook's chart cell: a pandas frame, then the Altair chart."""
        head = ["import altair as alt", "import numpy as np", "import pandas as pd", ""]
        if self.kind == "heatmap":
            body = [
                f"matrix = np.asarray({self.x})",
                "rows, cols = np.indices(matrix.shape)",
                'frame = pd.DataFrame({"row": rows.ravel(), "col": cols.ravel(), "value": matrix.ravel()})',
                "alt.Chart(frame).mark_rect().encode(",
                f'    x=alt.X("col:O", title={literal(self.x_title)}),',
                f'    y=alt.Y("row:O", title={literal(self.y_title)}),',
                '    color=alt.Color("value:Q"),',
                ")",
            ]
            return "\n".join(head + body) + "\n"
        series = "".join(f"    {literal(name)}: np.asarray({expr}),\n" for name, expr in self.series)
        body = [
            f"series = {{\n{series}}}",
            f"x = list({self.x})",
            'frame = pd.DataFrame({"x": x, **{name: list(values) for name, values in series.items()}})',
            'frame = frame.melt("x", var_name="series", value_name="value")',
        ]
        if self.kind == "bars":
            body += [
                "alt.Chart(frame).mark_bar().encode(",
                f'    x=alt.X("x:N", sort=None, title={literal(self.x_title)}),',
                f'    y=alt.Y("value:Q", title={literal(self.y_title)}),',
                '    xOffset="series:N",',
                '    color="series:N",',
                ")",
            ]
        else:
            scale = ', scale=alt.Scale(type="log")' if self.log else ""
            body += [
                "alt.Chart(frame).mark_line(point=True).encode(",
                f'    x=alt.X("x:Q", title={literal(self.x_title)}{scale}),',
                f'    y=alt.Y("value:Q", title={literal(self.y_title)}{scale}),',
                '    color="series:N",',
                ")",
            ]
        return "\n".join(head + body) + "\n"


@dataclass(frozen=True)
class Snippet:
    """A call that recomputes a figure.

    uses   the lesson_core functions it calls, imported by name; their source is shown
    lines  the statements, with the learner's values written in (``literal``)
    shows  expressions printed at the end: the numbers the figure draws
    data   other names it imports, as (module, name): an example's data, whose
           source is not shown
    plot   the figure, for the lesson's notebook (course_app.notebooks)
    """

    uses: Sequence[Callable]
    lines: Sequence[str]
    shows: Sequence[str]
    data: Sequence[tuple[str, str]] = ()
    plot: Plot | None = None

    def text(self) -> str:
        """The whole snippet: its imports, its statements and its prints."""
        body = [*self.lines, *(f"print({show})" for show in self.shows)]
        imports = ["import numpy as np"] if any("np." in line for line in body) else []
        named = [*self.data, *((f.__module__, f.__name__) for f in self.uses)]
        for module in dict.fromkeys(module for module, _ in named):
            names = ", ".join(name for m, name in named if m == module)
            imports.append(f"from {module} import {names}")
        return "\n".join([*imports, "", *body]) + "\n"


def literal(value: object) -> str:
    """``value`` as Python source that evaluates to it exactly: numbers by
    ``repr`` (which round-trips a float), arrays as ``np.array([...])``."""
    if isinstance(value, np.ndarray):
        rows = value.tolist()
        dtype = ", dtype=bool" if value.dtype == bool else ""
        if value.ndim == 2 and rows:  # a matrix: one row per line
            inner = "".join(f"    {_nested(row)},\n" for row in rows)
            return f"np.array([\n{inner}]{dtype})"
        return f"np.array({_nested(rows)}{dtype})"
    if isinstance(value, np.generic):
        return literal(value.item())
    if isinstance(value, float) and not math.isfinite(value):
        raise ValueError(f"no literal for {value!r}")
    if isinstance(value, list | tuple):
        if isinstance(value, list):
            return _nested(value)
        return f"({literal(value[0])},)" if len(value) == 1 else f"({', '.join(map(literal, value))})"
    return repr(value)


def _nested(items: list) -> str:
    return "[" + ", ".join(_nested(x) if isinstance(x, list) else literal(x) for x in items) + "]"


@functools.cache
def source(function: Callable) -> str:
    """The source of ``function``, as its module has it."""
    return inspect.getsource(function)


def code_fold(name: str, snippet: Callable[[], Snippet], lesson_id: str | None = None) -> None:
    """The fold ``name`` holding the code behind a figure: the call
    (``snippet()``, built only while the fold is open), then the source of
    every function it uses; with ``lesson_id`` and a snippet that has a plot,
    a download of the lesson as a notebook, built when it is pressed."""
    if not (box := fold(t("ui.code.label"), name, icon=ICON)):
        return
    with box:
        made = snippet()
        st.markdown(t("ui.code.body"))
        # Lines wrap: a block that scrolls sideways cannot be scrolled from the keyboard.
        st.code(made.text(), language="python", wrap_lines=True)
        if lesson_id is not None and made.plot is not None:
            from course_app import notebooks

            lang = current_lang()
            st.download_button(
                t("ui.notebook.download"),
                data=lambda: notebooks.build(lesson_id, lang, made.text(), made.plot.code()),
                file_name=notebooks.file_name(lesson_id, lang),
                mime="application/x-ipynb+json",
                icon=":material/download:",
                on_click="ignore",
                key=f"{name}_notebook",
                help=t("ui.notebook.help"),
            )
        for function in made.uses:
            st.markdown(t("ui.code.source", name=function.__name__, module=function.__module__))
            st.code(source(function), language="python", line_numbers=True, wrap_lines=True)
