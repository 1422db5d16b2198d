"""Altair chart specs, built once per shape and fed new data on every rerun.

Each ``*_spec`` function builds an Altair chart with no data, turns it into a
Vega-Lite dict with ``freeze`` and caches it by its arguments (titles, height
and the options: label angle, legend, ...; a heatmap's travel in the small
frozen values ``MapTitles``, ``Labels`` and ``Cells``). A page pairs it with a
long-form Arrow table from the matching ``*_frame`` function (``table``
builds one from NumPy arrays, no pandas) and calls ``show``. Moving a slider
then costs a small table, not a new chart.

The cached dicts are shared: never modify one. A chart that needs something
the options do not offer gets a new option here (a hashable argument, so that
it is part of the cache key) or a new builder in this package: this package is
the only place that imports Altair.

- ``base``: colours, chart data (``table``), ``show``, ``freeze``, the series legend;
- ``bars``: bars and grouped bars;
- ``heatmaps``: labelled heatmaps, the dark-text rule, the numeric matrix;
- ``lines``: line charts, logarithmic lines, waves sampled between positions;
- ``boxes``: boxes joined by arrows (the path to the next token).
"""

from course_app.charts.bars import (
    bar_frame,
    bar_spec,
    dense_grouped_bar_spec,
    grouped_bar_frame,
    grouped_bar_spec,
)
from course_app.charts.base import (
    CHOSEN_COLOUR,
    DIVERGING,
    LEGEND_LIMIT,
    MASKED_GREY,
    SEQUENTIAL,
    SERIES_COLOURS,
    WAVE_COLOURS,
    freeze,
    save_button,
    series_legend,
    show,
    start_exports,
    table,
)
from course_app.charts.boxes import pipeline_frame, pipeline_spec
from course_app.charts.heatmaps import (
    DARK_TEXT_FROM,
    LAST_LABEL_ROOM,
    SCROLLING_MAP_ROOM,
    Cells,
    Labels,
    MapTitles,
    dark_cells,
    heatmap_frame,
    heatmap_spec,
    matrix_frame,
    matrix_spec,
    row_picker,
    scrolling_heatmap_spec,
    sized_heatmap_spec,
    small_heatmap_spec,
    weights_frame,
)
from course_app.charts.lines import (
    count_line_spec,
    line_frame,
    line_spec,
    log_line_spec,
    wave_frame,
    wave_spec,
)

__all__ = [
    "CHOSEN_COLOUR",
    "DARK_TEXT_FROM",
    "DIVERGING",
    "LAST_LABEL_ROOM",
    "LEGEND_LIMIT",
    "MASKED_GREY",
    "SCROLLING_MAP_ROOM",
    "SEQUENTIAL",
    "SERIES_COLOURS",
    "WAVE_COLOURS",
    "Cells",
    "Labels",
    "MapTitles",
    "bar_frame",
    "bar_spec",
    "count_line_spec",
    "dark_cells",
    "dense_grouped_bar_spec",
    "freeze",
    "grouped_bar_frame",
    "grouped_bar_spec",
    "heatmap_frame",
    "heatmap_spec",
    "line_frame",
    "line_spec",
    "log_line_spec",
    "matrix_frame",
    "matrix_spec",
    "pipeline_frame",
    "pipeline_spec",
    "row_picker",
    "save_button",
    "scrolling_heatmap_spec",
    "series_legend",
    "show",
    "sized_heatmap_spec",
    "small_heatmap_spec",
    "start_exports",
    "table",
    "wave_frame",
    "wave_spec",
    "weights_frame",
]
