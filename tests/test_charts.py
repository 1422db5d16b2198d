"""The shared chart specs and frames (lesson_core/ui/charts.py): the options the
lessons use change the axis or legend they name and nothing else is needed to
get them; specs are cached and carry no data; frames hold only finite numbers."""

import re
from pathlib import Path

import altair as alt
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from lesson_core.ui import charts
from lessons.positional.parts import matrix_frame

ROOT = Path(__file__).resolve().parent.parent
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


def heatmap(masked_label: str = "grey = masked", **options) -> dict:
    return charts.heatmap_spec(*TITLES, masked_label, **options)


def grouped(**options) -> dict:
    return charts.grouped_bar_spec("Token", "Weight", "Series", **options)


# --- caching and data -------------------------------------------------------------------------

BUILDERS = [
    lambda: charts.bar_spec("Token", "Weight"),
    lambda: charts.bar_spec("Token", "Weight", slanted=True),
    lambda: grouped(),
    lambda: grouped(label_angle=-40, label_limit=150, values=False),
    lambda: heatmap(),
    lambda: heatmap("", label_angle=-45, legend=False, axis_titles=False, cell_width=25),
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
    assert heatmap(label_angle=-45) is not heatmap()
    assert heatmap(label_angle=-45) is not heatmap(label_angle=-50)
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
    sources = [*ROOT.glob("lesson_core/**/*.py"), *ROOT.glob("pages/*.py"), ROOT / "streamlit_app.py"]
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
    assert colour_legends(spec) == ["absent"]
    assert "width" not in spec


@pytest.mark.parametrize("angle", [-30, -45, -90])
def test_slanted_heatmap_has_the_angle_on_every_x_axis(angle):
    spec = heatmap(label_angle=angle, label_limit=120, label_align="left", label_baseline="middle")
    for x in with_channel(spec, "x"):
        assert x["axis"]["labelAngle"] == angle
        assert x["axis"]["labelLimit"] == 120
        assert (x["axis"]["labelAlign"], x["axis"]["labelBaseline"]) == ("left", "middle")
        assert x["axis"]["orient"] == "top"  # the other axis settings stay
        assert x["axis"]["labelOverlap"] is False
    for y in with_channel(spec, "y"):  # the rows are not tilted
        assert "labelAngle" not in y.get("axis", {})


def test_heatmap_row_label_limit_is_on_the_y_axis_only():
    spec = heatmap(row_label_limit=190)
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
    spec = heatmap(axis_titles=False)
    for channel in ("x", "y"):
        assert all(enc["title"] is None for enc in with_channel(spec, channel))
    tooltip_titles = {tip["title"] for layer in layers(spec) for tip in layer["encoding"]["tooltip"]}
    assert set(TITLES) <= tooltip_titles


def test_heatmap_font_size_cell_width_and_masked_label():
    spec = heatmap("grey = hidden", font_size=9, cell_width=25)
    texts = [layer for layer in layers(spec) if mark_types({"layer": [layer]}) == ["text"]]
    assert [layer["mark"]["fontSize"] for layer in texts] == [9]
    assert spec["width"] == {"step": 25}
    assert spec["title"]["text"] == "grey = hidden"
    assert "title" not in heatmap("")  # nothing masked: no caption


def test_selectable_heatmap_still_selects_rows_with_options():
    spec = heatmap(selectable=True, label_angle=-45, legend=False)
    params = spec.get("params", []) + [p for layer in layers(spec) for p in layer.get("params", [])]
    assert [p["name"] for p in params] == ["pick"]
    assert params[0]["select"]["fields"] == ["row_i"]
    assert colour_legends(spec) == [None]


# --- grouped bars and lines --------------------------------------------------------------------


def test_grouped_bars_default_labels_flat_with_printed_values():
    spec = grouped()
    assert all(x["axis"]["labelAngle"] == 0 for x in with_channel(spec, "x"))
    assert all("labelLimit" not in x["axis"] for x in with_channel(spec, "x"))
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


def numbers_are_finite(frame) -> bool:
    numeric = frame.select_dtypes("number")
    return not numeric.empty and bool(np.isfinite(numeric.to_numpy(dtype=float)).all())


@settings(max_examples=40, deadline=None)
@given(arrays(np.float64, st.integers(1, 12), elements=finite), st.data())
def test_bar_and_line_frames_are_finite(values, data):
    n = len(values)
    labels = [f"t{i}" for i in range(n)]
    masked = data.draw(arrays(np.bool_, n))
    frame = charts.bar_frame(labels, values, [str(v) for v in values], highlight=0, masked=masked)
    assert len(frame) == n
    assert numbers_are_finite(frame)
    assert list(frame["kind"] == "masked") == list(masked)
    other = data.draw(arrays(np.float64, n, elements=finite))
    grouped_frame = charts.grouped_bar_frame(labels, {"a": values, "b": other}, str)
    assert len(grouped_frame) == 2 * n
    assert numbers_are_finite(grouped_frame)
    line = charts.line_frame(np.arange(n), {"a": values, "b": other})
    assert len(line) == 2 * n
    assert numbers_are_finite(line)


@settings(max_examples=40, deadline=None)
@given(arrays(np.float64, st.tuples(st.integers(1, 8), st.integers(1, 8)), elements=finite), st.data())
def test_heatmap_and_matrix_frames_are_finite(values, data):
    n_r, n_c = values.shape
    masked = data.draw(arrays(np.bool_, values.shape))
    frame = charts.heatmap_frame(
        [f"r{i}" for i in range(n_r)], [f"c{j}" for j in range(n_c)], values, values.astype(str), masked
    )
    assert len(frame) == n_r * n_c
    assert numbers_are_finite(frame)
    assert int(frame["masked"].sum()) == int(masked.sum())
    assert not (frame["dark"] & frame["masked"]).any()

    cells = matrix_frame(values)
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
    frame = charts.weights_frame(
        [f"r{i}" for i in range(n_r)], [f"c{j}" for j in range(n_c)], weights, allowed
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
    from lessons.positional.parts import wave_spec
    from lessons.scaling.parts import log_line_spec

    waves = wave_spec("x", "y", "s", ("a", "b", "c", "d"), True)
    log_lines = log_line_spec("x", "y", "s", ("a", "b", "c"), (1.0, 10.0))
    for spec in (waves, log_lines):
        for legend in _legends(spec):
            assert legend["orient"] == "bottom" and legend["labelLimit"] <= 320
    # the four short wave names in two columns, so the legend stays low
    assert _legends(waves)[0]["columns"] == 2


def test_bigram_count_map_keeps_room_for_its_last_tilted_label():
    from lessons.bigram.parts import _count_map_spec

    spec = _count_map_spec("next", "previous", "share", 400)
    limit = spec["layer"][0]["encoding"]["x"]["axis"]["labelLimit"]
    angle = spec["layer"][0]["encoding"]["x"]["axis"]["labelAngle"]
    reach = limit * np.cos(np.radians(angle))  # how far right the longest label reaches
    assert spec["padding"]["right"] >= reach
