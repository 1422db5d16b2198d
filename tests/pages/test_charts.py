"""The chart specs and frames (course_app/charts/): the options the
lessons use change the axis or legend they name and nothing else is needed to
get them; specs are cached and carry no data; frames hold only finite numbers."""

import re
from pathlib import Path

import altair as alt
import numpy as np
import pandas as pd
import pytest
from helpers.apptest import APP_SOURCES
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from streamlit import dataframe_util

from course_app import charts

ROOT = Path(__file__).resolve().parents[2]
TITLES = ("Key", "Query", "Weight")


def layers(spec: dict) -> list[dict]:
    return spec.get("layer", [spec])


def with_channel(spec: dict, channel: str) -> list[dict]:
    """The encodings of every layer that draws ``channel`` from a field."""
    found = [
        layer["encoding"][channel] for layer in layers(spec) if "field" in layer["encoding"].get(channel, {})
    ]
    assert found, f"no layer encodes {channel}"
    return found


def colour_legends(spec: dict) -> list:
    """The legend setting of every colour encoding bound to a field ("absent" if unset)."""
    return [colour.get("legend", "absent") for colour in with_channel(spec, "color")]


def mark_types(spec: dict) -> list[str]:
    return [
        layer["mark"]["type"] if isinstance(layer["mark"], dict) else layer["mark"] for layer in layers(spec)
    ]


def heatmap(masked_label: str = "grey = masked", *, on_axes: bool = True, **options) -> dict:
    return charts.heatmap_spec(charts.MapTitles(*TITLES, masked_label, on_axes=on_axes), **options)


def grouped(**options) -> dict:
    return charts.grouped_bar_spec("Token", "Weight", "Series", **options)


# --- caching and data -------------------------------------------------------------------------

BUILDERS = [
    lambda: charts.bar_spec("Token", "Weight"),
    lambda: charts.bar_spec("Token", "Weight", slanted=True),
    lambda: grouped(),
    lambda: grouped(label_angle=-40, label_limit=150, values=False),
    lambda: heatmap(),
    lambda: heatmap(
        "", labels=charts.Labels(angle=-45), legend=False, on_axes=False, cells=charts.Cells(width=25)
    ),
    lambda: heatmap(selectable=True, legend="top"),
    lambda: charts.line_spec("Step", "Loss", "Series"),
    lambda: charts.line_spec("Step", "Loss", "Series", x_domain=(0, 300)),
]


@pytest.mark.parametrize("build", BUILDERS)
def test_specs_are_cached_and_carry_no_data(build):
    spec = build()
    assert build() is spec
    assert "datasets" not in spec
    for part in [spec, *spec.get("layer", [])]:
        assert "data" not in part


def test_options_are_part_of_the_cache_key():
    assert heatmap(labels=charts.Labels(angle=-45)) is not heatmap()
    assert heatmap(labels=charts.Labels(angle=-45)) is not heatmap(labels=charts.Labels(angle=-50))
    assert grouped(values=False) is not grouped()
    assert charts.line_spec("a", "b", "c", x_domain=(0, 10)) is not charts.line_spec("a", "b", "c")


def test_freeze_drops_the_placeholder_data():
    base = alt.Chart().encode(x="a:Q", y="b:Q")
    for chart in (base.mark_point(), alt.layer(base.mark_point(), base.mark_line())):
        spec = charts.freeze(chart)
        assert "datasets" not in spec
        assert all("data" not in part for part in [spec, *spec.get("layer", [])])
        assert [layer["encoding"]["x"]["field"] for layer in layers(spec)] == ["a"] * len(layers(spec))


def test_no_module_uses_a_private_name_of_charts():
    private = re.compile(r"\bcharts\._\w+")
    charts_package = ROOT / "course_app" / "charts"
    sources = [path for path in APP_SOURCES if charts_package not in path.parents]
    assert ROOT / "lessons" / "attention" / "page.py" in sources
    offenders = [str(path) for path in sources if private.search(path.read_text(encoding="utf-8"))]
    assert offenders == []


# --- heatmap options ----------------------------------------------------------------------------


def test_heatmap_defaults_keep_labels_flat_with_titles_and_a_legend():
    spec = heatmap()
    for x in with_channel(spec, "x"):
        assert x["axis"].get("labelAngle", 0) == 0
        assert x["axis"]["orient"] == "top"
        assert "labelLimit" not in x["axis"]
        assert x["title"] == TITLES[0]
    for y in with_channel(spec, "y"):
        assert "labelLimit" not in y.get("axis", {})
        assert y["title"] == TITLES[1]
    assert colour_legends(spec)[0]["format"] == ".0%"  # weights 0 … 1 said in %, as the tooltip
    assert "width" not in spec
    assert "format" not in colour_legends(heatmap(diverging=True))[0]  # signed values: as they are


def test_heatmap_labels_can_tilt_where_the_columns_are_narrow():
    for x in with_channel(heatmap(labels=charts.Labels(tilt_below=44)), "x"):
        narrow = x["axis"]["labelAngle"]["expr"]
        assert re.fullmatch(r"bandwidth\('x'\) < 44 \? -45 : 0", narrow)


def test_sized_heatmaps_tilt_their_column_labels():
    spec = charts.sized_heatmap_spec(charts.MapTitles(*TITLES, "grey = hidden"), 6)
    assert all(x["axis"]["labelAngle"] == -45 for x in with_channel(spec, "x"))


@pytest.mark.parametrize("angle", [-30, -45, -90])
def test_slanted_heatmap_has_the_angle_on_every_x_axis(angle):
    spec = heatmap(labels=charts.Labels(angle=angle, limit=120, align="left", baseline="middle"))
    for x in with_channel(spec, "x"):
        assert x["axis"]["labelAngle"] == angle
        assert x["axis"]["labelLimit"] == 120
        assert (x["axis"]["labelAlign"], x["axis"]["labelBaseline"]) == ("left", "middle")
        assert x["axis"]["orient"] == "top"  # the other axis settings stay
        assert x["axis"]["labelOverlap"] is False
    for y in with_channel(spec, "y"):  # the rows are not tilted
        assert "labelAngle" not in y.get("axis", {})


def vega_value(expr: str, width: int):
    """The value of a Vega expression of ``width``, literals and nested ``c ? a : b``
    (the shapes the heatmaps use), evaluated in Python."""

    def ternary(text: str) -> str:
        if "?" not in text:
            return text
        cond, rest = text.split("?", 1)
        yes, no = rest.split(":", 1)
        return f"(({yes}) if ({cond}) else ({no}))"

    text = expr.replace("width", str(width))
    while (inner := re.search(r"\(([^()]*\?[^()]*)\)", text)) is not None:
        text = text[: inner.start()] + repr(eval(ternary(inner.group(1)))) + text[inner.end() :]
    return eval(ternary(text))


@pytest.mark.parametrize("width, angle, align", [(390, -90, "left"), (1280, 0, "center")])
def test_column_labels_upright_on_a_laptop_are_centred_over_their_columns(width, angle, align):
    """An angle that follows the width: an upright label is centred over its
    column, a tilted one starts at it (Vega-Lite's default started both there)."""
    spec = heatmap(labels=charts.Labels(angle="width < 480 ? -90 : 0"))
    for x in with_channel(spec, "x"):
        axis = x["axis"]
        assert vega_value(axis["labelAngle"]["expr"], width) == angle
        assert vega_value(axis["labelAlign"]["expr"], width) == align
        assert vega_value(axis["labelBaseline"]["expr"], width) == ("bottom" if angle == 0 else "middle")


def test_heatmap_row_label_limit_is_on_the_y_axis_only():
    spec = heatmap(labels=charts.Labels(row_limit=190))
    assert all(y["axis"]["labelLimit"] == 190 for y in with_channel(spec, "y"))
    assert all("labelLimit" not in x["axis"] for x in with_channel(spec, "x"))


def test_heatmap_legend_option_removes_or_moves_the_colour_legend():
    assert colour_legends(heatmap(legend=False)) == [None]
    (top,) = colour_legends(heatmap(legend="top"))
    assert top["orient"] == "top"
    assert top["direction"] == "horizontal"
    with pytest.raises(ValueError, match="legend"):
        heatmap(legend="bottom")


def test_heatmap_legend_option_keeps_the_colour_scale():
    for spec in (heatmap(legend=False), heatmap(legend="top"), heatmap(diverging=True, legend=False)):
        (colour,) = with_channel(spec, "color")
        assert colour["field"] == "value"
        assert colour["condition"]["value"] == charts.MASKED_GREY
        assert colour["title"] == TITLES[2]


def test_heatmap_without_axis_titles_keeps_them_in_the_tooltip():
    spec = heatmap(on_axes=False)
    for channel in ("x", "y"):
        assert all(enc["title"] is None for enc in with_channel(spec, channel))
    tooltip_titles = {tip["title"] for layer in layers(spec) for tip in layer["encoding"]["tooltip"]}
    assert set(TITLES) <= tooltip_titles


def test_heatmap_font_size_cell_width_and_masked_label():
    spec = heatmap("grey = hidden", cells=charts.Cells(font_size=9, width=25))
    texts = [layer for layer in layers(spec) if mark_types({"layer": [layer]}) == ["text"]]
    assert [layer["mark"]["fontSize"] for layer in texts] == [9]
    assert spec["width"] == {"step": 25}
    assert spec["title"]["text"] == "grey = hidden"
    assert "title" not in heatmap("")  # nothing masked: no caption


def test_selectable_heatmap_still_selects_rows_with_options():
    spec = heatmap(selectable=True, labels=charts.Labels(angle=-45), legend=False)
    params = spec.get("params", []) + [p for layer in layers(spec) for p in layer.get("params", [])]
    assert [p["name"] for p in params] == ["pick"]
    assert params[0]["select"]["fields"] == ["row_i"]
    assert colour_legends(spec) == [None]


# --- grouped bars and lines --------------------------------------------------------------------


def at_width(value, width: int):
    """A Vega expression of the form "width < N ? a : b" evaluated at a plot ``width``
    (a plain value as it is)."""
    if not isinstance(value, dict):
        return value
    bound, yes, no = re.fullmatch(r"width < (\d+) \? (.+) : (.+)", value["expr"]).groups()
    chosen = yes if width < int(bound) else no
    return chosen.strip("'") if chosen.startswith("'") else float(chosen)


def test_grouped_bars_default_labels_flat_on_a_laptop_tilted_on_a_phone_with_printed_values():
    spec = grouped()
    for x in with_channel(spec, "x"):
        angle, align = x["axis"]["labelAngle"], x["axis"]["labelAlign"]
        assert at_width(angle, 780) == 0 and at_width(align, 780) == "center"
        # a phone's plot is about 300 px wide: ten labels side by side would overlap
        assert at_width(angle, 300) < 0 and at_width(align, 300) == "right"
        assert x["axis"]["labelOverlap"] is False
    assert all(x["axis"]["labelLimit"] <= 160 for x in with_channel(spec, "x"))
    assert "bar" in mark_types(spec)
    assert "text" in mark_types(spec)


@pytest.mark.parametrize(("angle", "limit"), [(-35, 160), (-40, 150)])
def test_slanted_grouped_bars_draw_every_label(angle, limit):
    spec = grouped(label_angle=angle, label_limit=limit)
    for x in with_channel(spec, "x"):
        assert x["axis"]["labelAngle"] == angle
        assert x["axis"]["labelLimit"] == limit
        assert x["axis"]["labelOverlap"] is False


def test_grouped_bars_without_values_are_bars_only():
    spec = grouped(values=False, height=320)
    assert mark_types(spec) == ["bar"]
    assert spec["height"] == 320
    (bar,) = layers(spec)
    assert bar["encoding"]["color"]["field"] == "series"
    assert bar["encoding"]["y"]["axis"]["format"] == ".0%"


def test_line_x_domain_fixes_the_x_scale():
    assert charts.line_spec("Step", "Loss", "Series", x_domain=(0, 300))["encoding"]["x"]["scale"][
        "domain"
    ] == [
        0,
        300,
    ]
    assert "domain" not in charts.line_spec("Step", "Loss", "Series")["encoding"]["x"]["scale"]


# --- frames -----------------------------------------------------------------------------------

finite = st.floats(-1e6, 1e6, allow_nan=False, allow_infinity=False)


def sent(data) -> pd.DataFrame:
    """A chart's data as the browser receives it: Arrow bytes, read back."""
    return dataframe_util.convert_arrow_bytes_to_pandas_df(
        dataframe_util.convert_anything_to_arrow_bytes(data)
    )


def numbers_are_finite(frame) -> bool:
    numeric = frame.select_dtypes("number")
    return not numeric.empty and bool(np.isfinite(numeric.to_numpy(dtype=float)).all())


@settings(max_examples=40, deadline=None)
@given(arrays(np.float64, st.integers(1, 12), elements=finite), st.data())
def test_bar_and_line_frames_are_finite(values, data):
    n = len(values)
    labels = [f"t{i}" for i in range(n)]
    masked = data.draw(arrays(np.bool_, n))
    frame = sent(charts.bar_frame(labels, values, [str(v) for v in values], highlight=0, masked=masked))
    assert len(frame) == n
    assert numbers_are_finite(frame)
    assert list(frame["kind"] == "masked") == list(masked)
    other = data.draw(arrays(np.float64, n, elements=finite))
    grouped_frame = sent(charts.grouped_bar_frame(labels, {"a": values, "b": other}, str))
    assert len(grouped_frame) == 2 * n
    assert numbers_are_finite(grouped_frame)
    line = sent(charts.line_frame(np.arange(n), {"a": values, "b": other}))
    assert len(line) == 2 * n
    assert numbers_are_finite(line)


@settings(max_examples=40, deadline=None)
@given(arrays(np.float64, st.tuples(st.integers(1, 8), st.integers(1, 8)), elements=finite), st.data())
def test_heatmap_and_matrix_frames_are_finite(values, data):
    n_r, n_c = values.shape
    masked = data.draw(arrays(np.bool_, values.shape))
    frame = sent(
        charts.heatmap_frame(
            [f"r{i}" for i in range(n_r)], [f"c{j}" for j in range(n_c)], values, values.astype(str), masked
        )
    )
    assert len(frame) == n_r * n_c
    assert numbers_are_finite(frame)
    assert int(frame["masked"].sum()) == int(masked.sum())
    assert not (frame["dark"] & frame["masked"]).any()

    cells = sent(charts.matrix_frame(values))
    assert len(cells) == n_r * n_c
    assert numbers_are_finite(cells)
    assert cells["row"].max() == n_r - 1
    assert cells["col"].max() == n_c - 1


@settings(max_examples=40, deadline=None)
@given(
    arrays(np.float64, st.tuples(st.integers(1, 8), st.integers(1, 8)), elements=st.floats(0, 1)), st.data()
)
def test_weights_frame_is_finite_and_dashes_blocked_cells(weights, data):
    n_r, n_c = weights.shape
    allowed = data.draw(st.none() | arrays(np.bool_, weights.shape))
    frame = sent(
        charts.weights_frame([f"r{i}" for i in range(n_r)], [f"c{j}" for j in range(n_c)], weights, allowed)
    )
    assert numbers_are_finite(frame)
    blocked = np.zeros(weights.shape, bool) if allowed is None else ~allowed
    assert list(frame["text"] == "—") == list(blocked.ravel())
    assert list(frame["masked"]) == list(blocked.ravel())


def _legends(spec: dict) -> list[dict]:
    """Every colour legend of a spec (top level or in a layer)."""
    parts = [spec, *spec.get("layer", [])]
    return [
        p["encoding"]["color"]["legend"] for p in parts if "legend" in p.get("encoding", {}).get("color", {})
    ]


@pytest.mark.parametrize(
    "spec",
    [
        charts.grouped_bar_spec("x", "y", "s"),
        charts.grouped_bar_spec("x", "y", "s", values=False),
        charts.line_spec("x", "y", "s"),
        charts.count_line_spec("x", "y", "s"),
    ],
)
def test_series_legends_sit_below_one_per_line_within_a_phone_width(spec):
    legends = _legends(spec)
    assert legends
    for legend in legends:
        assert legend["orient"] == "bottom" and legend["direction"] == "vertical"
        # a phone's chart is about 358 px wide: the labels and title must fit in it
        assert legend["labelLimit"] <= 320 and legend["titleLimit"] <= 320


def test_lessons_own_line_charts_use_the_series_legend():
    waves = charts.wave_spec("x", "y", "s", ("a", "b", "c", "d"), True)
    log_lines = charts.log_line_spec("x", "y", "s", ("a", "b", "c"), (1.0, 10.0))
    for spec in (waves, log_lines):
        for legend in _legends(spec):
            assert legend["orient"] == "bottom" and legend["labelLimit"] <= 320
    # the four short wave names in two columns, so the legend stays low
    assert _legends(waves)[0]["columns"] == 2


def test_bigram_count_map_keeps_room_for_its_last_tilted_label():
    spec = charts.scrolling_heatmap_spec(charts.MapTitles("next", "previous", "share"), 400)
    limit = spec["layer"][0]["encoding"]["x"]["axis"]["labelLimit"]
    angle = spec["layer"][0]["encoding"]["x"]["axis"]["labelAngle"]
    reach = limit * np.cos(np.radians(angle))  # how far right the longest label reaches
    assert spec["padding"]["right"] >= reach


# --- every builder: marks, encodings, titles from its arguments --------------------------------


def titles_of(spec: dict, channel: str) -> set:
    """The titles of every layer's ``channel`` encoding that is bound to a field."""
    return {enc.get("title") for enc in with_channel(spec, channel)}


def tooltip_titles(spec: dict) -> set:
    return {tip["title"] for layer in layers(spec) for tip in layer["encoding"].get("tooltip", [])}


def test_bar_spec_marks_titles_and_masked_bars_grey():
    spec = charts.bar_spec("Key A", "Weight B")
    assert mark_types(spec) == ["bar", "text"]  # bars and their values (a share axis needs no headroom)
    assert titles_of(spec, "x") == {"Key A"} and titles_of(spec, "y") == {"Weight B"}
    (colour,) = with_channel(spec, "color")
    assert dict(zip(colour["scale"]["domain"], colour["scale"]["range"], strict=True))["masked"] == "#9e9e9e"
    assert tooltip_titles(spec) == {"Key A", "Weight B"}
    assert spec["height"] >= 120 and charts.bar_spec("a", "b", height=300)["height"] == 300


def test_grouped_bar_spec_offsets_the_series_and_titles_every_part():
    spec = grouped()
    assert mark_types(spec) == ["bar", "text"]
    (bar, *_) = layers(spec)
    assert bar["encoding"]["xOffset"]["field"] == "series"
    assert bar["encoding"]["color"]["title"] == "Series"
    assert titles_of(spec, "x") == {"Token"}
    assert tooltip_titles(spec) == {"Token", "Weight", "Series"}


@pytest.mark.parametrize("slanted", [False, True])
def test_dense_grouped_bars_are_bars_only_and_tilt_when_slanted(slanted):
    spec = charts.dense_grouped_bar_spec("Token", "Chance", "Who", slanted)
    assert spec is charts.dense_grouped_bar_spec("Token", "Chance", "Who", slanted)
    assert mark_types(spec) == ["bar"]
    assert titles_of(spec, "y") == {"Chance"} and titles_of(spec, "color") == {"Who"}
    (x,) = with_channel(spec, "x")
    assert (at_width(x["axis"]["labelAngle"], 780) != 0) is slanted
    assert at_width(x["axis"]["labelAngle"], 300) != 0  # always tilted on a phone


def test_dense_grouped_bars_keep_their_plot_height_when_slanted():
    # the tilted labels are added below the plot, not taken from it
    tall, flat = (charts.dense_grouped_bar_spec("Token", "Chance", "Who", k)["height"] for k in (True, False))
    assert tall == flat >= 120


def test_heatmap_marks_encodings_and_masked_cells_grey():
    spec = heatmap()
    assert mark_types(spec) == ["rect", "text"]
    cells, text = layers(spec)
    assert cells["encoding"]["color"]["condition"] == {"test": "datum.masked", "value": "#9e9e9e"}
    assert cells["encoding"]["color"]["scale"] == {"scheme": "blues", "domain": [0, 1]}
    assert text["encoding"]["text"]["field"] == "text"
    assert text["encoding"]["color"]["condition"] == {"test": "datum.dark", "value": "white"}
    # black on light cells, spelled so that the stylesheet (which draws chart text left "black"
    # in the theme's text colour, for the dark theme) leaves it black on its cell
    assert text["encoding"]["color"]["value"] == "#000000"
    assert tooltip_titles(spec) == set(TITLES)
    diverging = layers(heatmap(diverging=True))[0]["encoding"]["color"]["scale"]
    assert diverging == {"scheme": "blueorange", "domainMid": 0}


def test_heatmap_outlines_the_chosen_row_only_when_asked():
    spec = heatmap(cells=charts.Cells(outline_chosen=True))
    assert mark_types(spec) == ["rect", "text", "rect"]
    outline = layers(spec)[2]
    assert outline["mark"]["filled"] is False
    assert outline["transform"] == [{"filter": "datum.chosen"}]
    assert "x" not in outline["encoding"]  # spans the whole row


def test_heatmap_options_are_small_hashable_values():
    for option in (charts.MapTitles("a", "b", "c"), charts.Labels(angle=-40), charts.Cells(width=25)):
        assert hash(option) == hash(type(option)(**vars(option)))
        with pytest.raises(AttributeError):
            option.x = "changed"  # frozen: a cached spec's key cannot change under it


def test_sized_heatmap_grows_with_its_rows_and_keeps_its_legend_option():
    titles = charts.MapTitles("Key", "Query", "Score", "grey = hidden")
    small, large = (charts.sized_heatmap_spec(titles, n, diverging=True, legend="top") for n in (3, 8))
    assert large["height"] > small["height"]
    assert colour_legends(small)[0]["orient"] == "top"
    assert colour_legends(charts.sized_heatmap_spec(titles, 3, legend=False)) == [None]
    assert small["title"]["text"] == "grey = hidden" and "subtitle" not in small["title"]
    two = charts.sized_heatmap_spec(charts.MapTitles("K", "Q", "S", "grey = hidden · numbers = scores"), 3)
    assert (two["title"]["text"], two["title"]["subtitle"]) == ("grey = hidden", ["numbers = scores"])
    assert titles_of(small, "x") == {"Key"} and titles_of(small, "y") == {"Query"}
    assert titles_of(small, "color") == {"Score"}


def test_small_heatmap_has_no_axis_titles_nor_legend_but_says_them_in_the_tooltip():
    spec = charts.small_heatmap_spec(charts.MapTitles("Key", "Query", "Weight"), 5)
    assert titles_of(spec, "x") == {None} and titles_of(spec, "y") == {None}
    assert colour_legends(spec) == [None]
    assert {"Key", "Query", "Weight"} <= tooltip_titles(spec)
    texts = [layer for layer in layers(spec) if mark_types({"layer": [layer]}) == ["text"]]
    assert texts[0]["mark"]["fontSize"] < layers(heatmap())[1]["mark"]["fontSize"]
    assert charts.small_heatmap_spec(charts.MapTitles("Key", "Query", "Weight"), 9)["height"] > spec["height"]


def test_scrolling_heatmap_has_fixed_cells_and_the_legend_on_top():
    spec = charts.scrolling_heatmap_spec(charts.MapTitles("next", "previous", "share"), 400)
    assert spec["width"] == {"step": 25}
    assert colour_legends(spec)[0]["orient"] == "top"
    assert titles_of(spec, "x") == {"next"} and titles_of(spec, "color") == {"share"}
    assert all(x["axis"]["labelAngle"] < 0 for x in with_channel(spec, "x"))


def test_matrix_spec_draws_numeric_cells_with_the_diverging_scale():
    spec = charts.matrix_spec("Dimension", "Position", "Value")
    assert mark_types(spec) == ["rect"]
    assert spec["encoding"]["x"]["field"] == "x0" and spec["encoding"]["x2"]["field"] == "x1"
    assert spec["encoding"]["y"]["scale"]["reverse"] is True  # row 0 at the top
    assert spec["encoding"]["color"]["scale"] == {"scheme": "blueorange", "domainMid": 0}
    assert charts.matrix_spec("a", "b", "c", unit_range=True)["encoding"]["color"]["scale"]["domain"] == [
        -1,
        1,
    ]
    assert (spec["encoding"]["x"]["title"], spec["encoding"]["y"]["title"]) == ("Dimension", "Position")
    assert tooltip_titles(spec) == {"Dimension", "Position", "Value"}


def test_line_specs_draw_lines_per_series_with_their_titles():
    for spec in (charts.line_spec("Step", "Loss", "Run"), charts.count_line_spec("Step", "Loss", "Run")):
        assert mark_types(spec) == ["line"]
        assert spec["encoding"]["color"]["field"] == "series"
        assert spec["encoding"]["x"]["title"] == "Step" and spec["encoding"]["y"]["title"] == "Loss"
        assert tooltip_titles(spec) == {"Step", "Loss", "Run"}
    assert charts.count_line_spec("Step", "Loss", "Run")["encoding"]["x"]["axis"]["tickMinStep"] == 1
    assert charts.line_spec("a", "b", "c", log_x=True)["encoding"]["x"]["scale"]["type"] == "log"


def test_log_line_spec_draws_the_reference_over_the_lines_and_the_last_series_as_one_point():
    spec = charts.log_line_spec("d_k", "Spread", "Series", ("a", "b", "you"), (1.0, 10.0), (0.5, 8.0))
    assert mark_types(spec) == ["line", "line", "point"]
    lines, reference, point = layers(spec)  # the reference (series 0) drawn over the other lines
    assert lines["transform"] == [{"filter": "datum.series_order > 0 && datum.series_order < 2"}]
    assert reference["transform"] == [{"filter": "datum.series_order == 0"}]
    assert point["transform"] == [{"filter": "datum.series_order == 2"}]
    for layer in (lines, reference, point):
        enc = layer["encoding"]
        assert enc["color"]["scale"]["domain"] == ["a", "b", "you"]
        assert len(set(enc["color"]["scale"]["range"])) == 3
        assert enc["x"]["scale"]["type"] == "log" and enc["x"]["axis"]["values"] == [1.0, 10.0]
        assert enc["y"]["scale"]["type"] == "log" and enc["y"]["axis"]["values"] == [0.5, 8.0]
        assert enc["x"]["title"] == "d_k" and enc["y"]["title"] == "Spread"
    linear_y = layers(charts.log_line_spec("d_k", "Spread", "Series", ("a", "you"), (1.0, 10.0)))[0]
    assert linear_y["encoding"]["y"]["scale"] == {"zero": True}


def test_wave_spec_folds_the_named_columns_sin_solid_cos_dashed():
    spec = charts.wave_spec("Position", "Value", "Dim", ("d0 sin", "d1 cos"), False)
    assert mark_types(spec) == ["line"]
    assert spec["transform"] == [{"fold": ["d0 sin", "d1 cos"], "as": ["series", "y"]}]
    assert spec["encoding"]["strokeDash"]["scale"]["range"] == [[1, 0], [6, 3]]
    assert spec["encoding"]["y"]["scale"]["domain"] == [-1, 1]
    assert tooltip_titles(spec) == {"Position", "Value", "Dim"}


# --- white text on dark cells: one rule, one threshold -----------------------------------------

# Vega's "blues" and "blueorange" schemes (vega-scale), interpolated in RGB as Vega does.
VEGA_SCHEMES = {
    "blues": "cfe1f2bed8eca8cee58fc1de74b2d75ba3cf4592c63181bd206fb2125ca40a4a90",
    "blueorange": "134b852f78b35da2cb9dcae1d2e5eff2f0ebfce0bafbbf74e8932fc5690d994a07",
}


def contrast_with_white_and_black(scheme: str, position: float) -> tuple[float, float]:
    """WCAG contrast ratios of white and of black text on the scheme's colour at ``position``."""
    hexes = VEGA_SCHEMES[scheme]
    stops = np.array(
        [[int(hexes[i + j : i + j + 2], 16) for j in (0, 2, 4)] for i in range(0, len(hexes), 6)]
    )
    where = position * (len(stops) - 1)
    i = min(int(where), len(stops) - 2)
    rgb = (stops[i] + (where - i) * (stops[i + 1] - stops[i])) / 255
    linear = np.where(rgb <= 0.04045, rgb / 12.92, ((rgb + 0.055) / 1.055) ** 2.4)
    luminance = float(linear @ [0.2126, 0.7152, 0.0722])
    return 1.05 / (luminance + 0.05), (luminance + 0.05) / 0.05


@pytest.mark.parametrize(
    ("scheme", "position"),
    [("blues", 0.1), ("blues", 0.5), ("blueorange", 0.5), ("blueorange", 0.3)],
)
def test_cells_short_of_the_threshold_read_better_in_black(scheme, position):
    white, black = contrast_with_white_and_black(scheme, position)
    assert black > white


@pytest.mark.parametrize(("scheme", "position"), [("blues", 0.8), ("blues", 1.0), ("blueorange", 0.05)])
def test_cells_well_past_the_threshold_read_better_in_white(scheme, position):
    white, black = contrast_with_white_and_black(scheme, position)
    assert white > black and white >= 4.5


def test_dark_text_threshold_on_both_sides_of_the_sequential_scale():
    below, above = charts.DARK_TEXT_FROM - 0.01, charts.DARK_TEXT_FROM + 0.01
    assert 0.7 <= charts.DARK_TEXT_FROM <= 0.8  # where white starts to beat black on "blues"
    weights = np.array([[0.0, 0.3, below], [above, 0.9, 1.0]])
    assert charts.dark_cells(weights).tolist() == [[False, False, False], [True, True, True]]
    frame = sent(charts.weights_frame(["a", "b"], ["x", "y", "z"], weights, None))
    assert frame["dark"].tolist() == [False, False, False, True, True, True]


def test_dark_text_threshold_on_both_sides_of_the_diverging_scale():
    # the scale runs from 0 to the largest value (4) and, on its own, to the smallest (-2)
    t = charts.DARK_TEXT_FROM
    values = np.array([4.0, 4 * (t + 0.01), 4 * (t - 0.01), 0.0, -2 * (t - 0.01), -2 * (t + 0.01), -2.0])
    assert charts.dark_cells(values, diverging=True).tolist() == [True, True, False, False, False, True, True]
    frame = sent(
        charts.heatmap_frame(
            ["r"], list("abcdefg"), values[None, :], values[None, :].astype(str), diverging=True
        )
    )
    assert frame["dark"].tolist() == [True, True, False, False, False, True, True]


def test_masked_cells_count_as_zero_and_never_get_white_text():
    values = np.array([[1.0, 0.9], [-3.0, 0.2]])
    masked = np.array([[True, False], [True, False]])
    frame = sent(
        charts.heatmap_frame(["a", "b"], ["x", "y"], values, values.astype(str), masked, diverging=True)
    )
    assert frame["value"].tolist() == [0.0, 0.9, 0.0, 0.2]
    assert frame["dark"].tolist() == [False, True, False, False]  # 0.9 is the largest shown value


def test_a_marked_point_follows_the_lines_as_the_last_series():
    lines = {"a": [3.0, 4.0], "b": [5.0, 6.0]}
    frame = sent(charts.line_frame(np.array([1.0, 2.0]), lines, ("you", 2.0, 4.0)))
    assert frame["series"].tolist() == ["a", "a", "b", "b", "you"]
    assert frame["series_order"].tolist() == [0, 0, 1, 1, 2]
    assert (frame["x"].iloc[-1], frame["y"].iloc[-1]) == (2.0, 4.0)


@pytest.mark.parametrize(
    "text",
    [
        ["猫 (cat)", "は", "*a*"],
        ("猫 (cat)", "は", "*a*"),
        np.array(["猫 (cat)", "は", "*a*"]),
        np.array([["猫 (cat)"], ["は"], ["*a*"]]),  # a 2-D array of labels is read row by row
        np.array(["猫 (cat)", "は", "*a*"], dtype=object),
    ],
    ids=["list", "tuple", "unicode-array", "2d-array", "object-array"],
)
def test_table_makes_text_arrow_strings_whatever_holds_it(text):
    table = charts.table({"label": text, "value": np.array([0.5, 0.25, 0.25])})
    assert str(table.schema.field("label").type) == "string"
    assert table.column("label").to_pylist() == ["猫 (cat)", "は", "*a*"]
    assert str(table.schema.field("value").type) == "double"


def test_table_writes_numbers_mixed_into_text_as_text():
    table = charts.table({"label": ["a", 1, 2.5]})
    assert table.column("label").to_pylist() == ["a", "1", "2.5"]
    numbers = charts.table({"n": [1, 2, 3]})
    assert str(numbers.schema.field("n").type) == "int64"


# --- sized for what they show (plot height, value labels, colours, swatches, waves) ------------

EVERY_BUILDER = [
    *BUILDERS,
    lambda: charts.count_line_spec("Step", "Loss", "Run"),
    lambda: charts.log_line_spec("d_k", "Spread", "Series", ("a", "b", "you"), (1.0, 10.0)),
    lambda: charts.wave_spec("Position", "Value", "Dim", ("d0", "d1"), True),
    lambda: charts.wave_spec("Position", "Value", "Dim", ("d0", "d1"), False),
    lambda: charts.matrix_spec("Dimension", "Position", "Value"),
    lambda: charts.dense_grouped_bar_spec("Token", "Chance", "Who", True),
    lambda: charts.sized_heatmap_spec(charts.MapTitles(*TITLES), 1),
    lambda: charts.small_heatmap_spec(charts.MapTitles(*TITLES), 1),
    lambda: charts.scrolling_heatmap_spec(charts.MapTitles(*TITLES), 140),
]


@pytest.mark.parametrize("build", EVERY_BUILDER)
def test_the_height_is_the_plot_areas_and_a_laptops_chart_gets_120_px(build):
    spec = build()
    # "fit-x": the width fits the page, the height is the plot's own, with the
    # axes and legends added (Streamlit's default "fit" squeezes them into it)
    assert spec["autosize"] == {"type": "fit-x", "contains": "padding"}
    assert spec["height"] >= 120


def test_sized_heatmaps_grow_with_their_rows_past_the_least_height():
    titles = charts.MapTitles(*TITLES)
    for build in (charts.sized_heatmap_spec, charts.small_heatmap_spec):
        assert build(titles, 1)["height"] == build(titles, 2)["height"] >= 120
        assert build(titles, 12)["height"] > build(titles, 6)["height"] > build(titles, 2)["height"]


SHARE_CHARTS = [
    lambda: charts.bar_spec("Key", "Weight"),
    lambda: charts.bar_spec("Key", "Weight", slanted=True),
    lambda: charts.bar_spec("Token", "Chance", 90, slanted="steep", x_labels=False),
    lambda: grouped(),
    lambda: grouped(label_angle=-35, label_limit=160),
    lambda: grouped(values=False),
    lambda: charts.dense_grouped_bar_spec("Token", "Chance", "Who", True),
]


def y_encodings(spec: dict) -> list[dict]:
    return [layer["encoding"]["y"] for layer in layers(spec) if "y" in layer.get("encoding", {})]


@pytest.mark.parametrize("build", SHARE_CHARTS)
def test_charts_of_shares_keep_one_axis_from_0_to_100_percent(build):
    """A weights or probability chart never rescales with its data: every layer
    on the fixed 0–100 % axis (a share's height compares before and after a
    move), no headroom layer stretching it past 100 %, and padding above the
    plot for the value printed over a bar of 100 %."""
    spec = build()
    ys = y_encodings(spec)
    assert ys and all(y["scale"]["domain"] == [0, 1] and y["axis"]["format"] == ".0%" for y in ys)
    assert all(y["field"] == "value" for y in ys)
    assert "point" not in mark_types(spec)
    if "text" in mark_types(spec):
        (text,) = [layer for layer in layers(spec) if mark_types({"layer": [layer]}) == ["text"]]
        assert text["mark"].get("baseline", "middle") == "middle"  # Vega-Lite's default for text
        above = -text["mark"]["dy"] + text["mark"]["fontSize"] / 2  # a 100 % bar's top to the text's top
        assert spec["padding"]["top"] >= above


def test_charts_of_other_quantities_fit_their_axis_with_room_for_the_values():
    """Sizes in MB are not shares: the axis follows the data, with an invisible
    layer 15 % above the tallest bar so that its value is never cut off."""
    spec = charts.bar_spec("Heads", "MB", percent=False)
    assert mark_types(spec) == ["bar", "text", "point"]
    assert all("domain" not in y.get("scale", {}) for y in y_encodings(spec))
    (room,) = [layer for layer in layers(spec) if mark_types({"layer": [layer]}) == ["point"]]
    assert room["transform"][0]["calculate"] == "datum.value * 1.15"


@pytest.mark.parametrize("spec", [charts.bar_spec("a", "b"), grouped()])
def test_values_above_bars_are_written_all_or_none(spec):
    (text,) = [layer for layer in layers(spec) if mark_types({"layer": [layer]}) == ["text"]]
    band = "xOffset" if "xOffset" in text["encoding"] else "x"
    assert text["mark"]["fontSize"] == 11
    # "12.3%" (5 characters) is about 35 px wide in 11 px text, 29 px in 9 px
    assert written(text, ["12.3%", "5%"], {band: 40}) == 11
    assert written(text, ["12.3%", "5%"], {band: 32}) == 9
    # where the longest cannot be written, its short neighbour is not written either
    assert written(text, ["12.3%", "5%"], {band: 20}) is None
    assert written(text, ["5%", "1%"], {band: 20}) == 11


def written(text_layer: dict, texts: list[str], bandwidths: dict[str, float]) -> int | None:
    """The font size a text layer writes every one of ``texts`` at, for these
    band widths, or None when it writes none of them: its transforms and its
    opacity and size conditions evaluated as Vega would, for their one form."""
    assert [list(step) for step in text_layer["transform"]] == [["calculate", "as"], ["joinaggregate"]]
    longest = max(len(text) for text in texts)

    def holds(test: str) -> bool:
        per_char, room, band = re.fullmatch(
            r"datum\.longest_text \* ([\d.]+) \+ (\d+) <= bandwidth\('(\w+)'\)", test
        ).groups()
        return longest * float(per_char) + float(room) <= bandwidths[band]

    opacity, size = text_layer["encoding"]["opacity"], text_layer["encoding"].get("size")
    if (opacity["condition"]["value"] if holds(opacity["condition"]["test"]) else opacity["value"]) != 1:
        return None
    if size is None:
        return text_layer["mark"]["fontSize"]
    return size["condition"]["value"] if holds(size["condition"]["test"]) else size["value"]


def test_numbers_in_cells_are_written_all_or_none():
    text = layers(heatmap())[1]
    assert written(text, ["−0.55", "66"], {"x": 40}) == 11
    assert written(text, ["−0.55", "66"], {"x": 25}) is None  # no "66" beside a blank "−0.55"
    assert written(text, ["66", "7"], {"x": 25}) == 11


def test_eight_series_get_eight_colours():
    (bar, *_) = layers(grouped())
    colours = bar["encoding"]["color"]["scale"]["range"]
    assert len(set(colour.lower() for colour in colours)) == len(colours) >= 8
    assert colours[:3] == charts.SERIES_COLOURS  # the usual three come first


@pytest.mark.parametrize(
    ("spec", "symbol"),
    [
        (grouped(), "square"),
        (charts.line_spec("x", "y", "s"), "stroke"),
        (charts.wave_spec("x", "y", "s", ("a", "b"), True), "stroke"),
        (charts.log_line_spec("x", "y", "s", ("a", "you"), (1.0, 10.0)), "circle"),
    ],
)
def test_series_swatches_are_plain_solid_shapes(spec, symbol):
    for legend in _legends(spec):
        assert legend["symbolType"] == symbol
        assert legend["symbolDash"] == [1, 0]  # a dashed circle reads as a gear


def test_weights_tooltip_says_the_weight_in_percent():
    weights = np.array([[0.66, 0.34], [0.5, 0.5]])
    allowed = np.array([[True, False], [True, True]])
    frame = sent(charts.weights_frame(["a", "b"], ["x", "y"], weights, allowed))
    assert frame["text"].tolist() == ["66", "—", "50", "50"]  # in the cell: the number only
    assert frame["tip"].tolist() == ["66.0%", "—", "50.0%", "50.0%"]
    (tip,) = [t for t in layers(heatmap())[0]["encoding"]["tooltip"] if t["title"] == TITLES[2]]
    assert tip["field"] == "tip"


def test_waves_are_sampled_between_positions_and_mark_the_whole_ones():
    from lesson_core.positional import sinusoidal_encoding, wavelengths

    names = ("d0", "d1", "d2", "d3")
    frame = sent(charts.wave_frame(5, wavelengths(4), names, per_position=4))
    assert frame["x"].tolist() == [k / 4 for k in range(17)]  # 0, 0.25, … 4
    whole = frame[frame["whole"]]
    assert whole["x"].tolist() == [0, 1, 2, 3, 4]
    # at whole positions: the encoding itself
    np.testing.assert_allclose(whole[list(names)].to_numpy(), sinusoidal_encoding(5, 4), atol=1e-6)
    # between them, by hand: λ = 2π for d0, d1 and 2π·100 for d2, d3 (d_model 4)
    half = frame[frame["x"] == 1.5].iloc[0]
    expected = [np.sin(1.5), np.cos(1.5), np.sin(0.015), np.cos(0.015)]
    np.testing.assert_allclose(half[list(names)].to_numpy(dtype=float), expected, atol=1e-6)


def test_wave_dots_mark_only_the_whole_positions():
    spec = charts.wave_spec("Position", "Value", "Dim", ("d0", "d1"), True)
    assert mark_types(spec) == ["line", "point"]
    assert layers(spec)[1]["transform"][-1] == {"filter": "datum.whole"}
    assert mark_types(charts.wave_spec("Position", "Value", "Dim", ("d0", "d1"), False)) == ["line"]


@pytest.mark.parametrize("build", ["heatmap_spec", "small_heatmap_spec"])
def test_a_share_map_says_its_tooltip_in_percent_like_its_legend(build):
    """A map of shares (0 … 1) has a 0% … 100% legend (or none, small maps), so
    its tooltip says "66.0%", never the cell's bare "66" (capstone's small
    maps, the causal-mask lesson's weights): both in percent."""
    titles = charts.MapTitles(*TITLES)
    spec = (
        charts.heatmap_spec(titles, 200) if build == "heatmap_spec" else charts.small_heatmap_spec(titles, 2)
    )
    tip_fields = {tip["field"] for layer in layers(spec) for tip in layer["encoding"]["tooltip"]}
    assert "tip" in tip_fields and "value" not in tip_fields
    for legend in colour_legends(spec):
        assert legend is None or legend["format"] == ".0%"
    weights = np.array([[0.66, 0.34], [0.1, 0.9]])
    texts = np.array([["66", "34"], ["", "90"]])  # the cell's number, without its %
    masked = np.array([[False, True], [False, False]])
    frame = charts.heatmap_frame(["a", "b"], ["a", "b"], weights, texts, masked).to_pandas()
    assert list(frame["tip"]) == ["66.0%", "—", "10.0%", "90.0%"]
    signed = charts.heatmap_frame(
        ["a"], ["x", "y"], np.array([[0.5, -1.25]]), np.array([["0.50", "-1.25"]]), diverging=True
    )
    assert list(signed.to_pandas()["tip"]) == ["0.50", "-1.25"]  # a signed value: no legend in %


def test_heatmap_cells_are_parted_by_the_page_background_not_a_white_line():
    """A white border glared on the dark theme: the cells stand apart by a gap in
    the band scales instead, through which the page's own background shows."""
    for spec in (heatmap(), charts.sized_heatmap_spec(charts.MapTitles(*TITLES, "grey = hidden"), 6)):
        layers = spec["layer"]
        assert not [layer for layer in layers if layer.get("mark", {}).get("stroke") == "white"]
        cells = layers[0]["encoding"]
        assert cells["x"]["scale"]["paddingInner"] > 0 and cells["y"]["scale"]["paddingInner"] > 0
