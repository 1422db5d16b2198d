"""Layer 3: the multi-head lesson through AppTest, in both languages."""

import re

import numpy as np
import pytest
from helpers.apptest import all_text, assert_clean, chart_frames, open_page, without_maths
from helpers.written_out import independent_run
from streamlit.testing.v1 import AppTest

PAGE = "pages/6_multi_head.py"
TOKENS = ["猫", "が", "魚", "を", "食べた", "。", "それ", "は", "新鮮", "だった"]
IT = 6


def frames(at):
    """bars, pronoun map, previous map, one map per run head, concat, output."""
    return chart_frames(at)


def head_maps(at):
    return [f for f in frames(at) if "masked" in f and len(f) == 100]


def task_done(at, tid: str) -> bool:
    return f"multi_head.{tid}" in at.session_state["progress"].tasks


def shapes_column(at, table: int) -> list[str]:
    return list(at.dataframe[table].value.iloc[:, 1])


def test_defaults_two_heads_side_by_side(lang):
    at = open_page(PAGE, lang, folds=True)
    assert_clean(at)
    bars = frames(at)[0]
    pronoun = bars[bars["series_order"] == 0].sort_values("order")["value"].to_numpy()
    previous = bars[bars["series_order"] == 1].sort_values("order")["value"].to_numpy()
    # the attention lesson's figures: それ's pronoun head: 猫 18.8 %, 魚 65.7 %, それ 3.7 %
    np.testing.assert_allclose(pronoun[[0, 2, 6]], [0.188, 0.657, 0.037], atol=5e-4)
    # previous-token head, computed here: key one-hot, query 10·e_(i-1), d_k = 10
    s = np.exp(10 / np.sqrt(10))
    assert previous[5] == pytest.approx(s / (s + 6))
    assert int(np.argmax(previous)) == 5  # 。, the token before それ
    maps = head_maps(at)
    assert len(maps) >= 2
    for cells in maps[:2]:
        masked = cells[cells["masked"]]
        assert len(masked) == 45 and (masked["col_i"] > masked["row_i"]).all()
    prev_cells = maps[1]
    diag = prev_cells[prev_cells["col_i"] == prev_cells["row_i"] - 1]
    assert (diag["value"] > 0.7).all() and len(diag) == 9
    text = all_text(at)
    assert "65.7%" in text and f"{100 * s / (s + 6):.1f}%" in text


def test_gpt2_shapes_at_twelve_heads(lang):
    at = open_page(PAGE, lang, folds=True)
    assert at.select_slider(key="mh_heads").value == 12
    assert shapes_column(at, 0) == [
        "10 × 768",
        "768 × 64",
        "10 × 64",
        "10 × 10",
        "10 × 64",
        "10 × 768",
        "768 × 768",
        "10 × 768",
    ]
    text = all_text(at)
    assert "768 / 12 = 64" in text and "2,359,296" in text


def test_only_divisors_of_768_can_be_chosen():
    at = open_page(PAGE, folds=True)
    options = [int(o) for o in at.select_slider(key="mh_heads").options]
    assert options == [h for h in range(1, 769) if 768 % h == 0]
    assert [int(o) for o in at.select_slider(key="mh_run_heads").options] == [1, 2, 4, 8]


@pytest.mark.parametrize(("h", "d_head"), [(1, 768), (768, 1), (24, 32)])
def test_gpt2_head_count_recomputes_d_head(lang, h, d_head):
    at = open_page(PAGE, lang, folds=True)
    at.select_slider(key="mh_heads").set_value(h).run()
    assert_clean(at)
    col = shapes_column(at, 0)
    assert col[1] == f"768 × {d_head}" and col[4] == f"10 × {d_head}"
    assert col[5] == "10 × 768"
    assert f"768 / {h} = {d_head}" in all_text(at)


@pytest.mark.parametrize(("seed", "h"), [(0, 2), (0, 1), (99, 8), (42, 4)])
def test_run_matches_an_independent_computation(lang, seed, h):
    at = open_page(PAGE, lang, folds=True)
    at.slider(key="mh_seed").set_value(seed)
    at.select_slider(key="mh_run_heads").set_value(h).run()
    assert_clean(at)
    assert len(at.tabs) == h
    output = frames(at)[-1]
    grid = output.pivot(index="row_i", columns="col_i", values="value").to_numpy()
    np.testing.assert_allclose(grid, independent_run(seed, h), atol=1e-9)
    concat = frames(at)[-2]
    assert len(concat) == 80
    assert concat.sort_values(["row_i", "col_i"])["col"].iloc[:8].tolist() == [
        f"{j // (8 // h) + 1}:{j % (8 // h)}" for j in range(8)
    ]
    run_shapes = shapes_column(at, 1)
    assert run_shapes[2] == f"{h} × 10 × 10" and run_shapes[3] == f"{h} × 10 × {8 // h}"
    assert run_shapes[4] == "10 × 8" and run_shapes[5] == "10 × 8"


def test_every_query_token_renders(lang):
    at = open_page(PAGE, lang)
    for i in range(len(TOKENS)):
        at.selectbox(key="mh_query").set_value(i).run()
        assert_clean(at)
        bars = frames(at)[0]
        for k in (0, 1):
            assert bars[bars["series_order"] == k]["value"].sum() == pytest.approx(1.0)


def test_the_bars_write_a_masked_key_as_a_dash_and_a_seen_one_as_its_weight(lang):
    """The causal mask hides every key after the query: its bar is labelled "—"
    (as the maps and tables write it), never "0.0%"; every key the query sees
    carries its weight, 0.0% included."""
    at = open_page(PAGE, lang)
    for query in (0, IT, len(TOKENS) - 1):
        at.selectbox(key="mh_query").set_value(query).run()
        bars = frames(at)[0]
        after = bars["order"] > query
        assert (bars[after]["text"] == "—").all()
        assert not (bars[~after]["text"] == "—").any()
        assert bars[~after]["text"].str.endswith("%").all()


def test_look_back_head_follows_k(lang):
    """k = 2: the look-back head is written out again here (key one-hot, query
    10·e_(i−2), d_k = 10, causal mask); それ then looks most at 食べた."""
    at = open_page(PAGE, lang, folds=True)
    at.select_slider(key="mh_offset").set_value(2).run()
    assert_clean(at)
    bars = frames(at)[0]
    back = bars[bars["series_order"] == 1].sort_values("order")["value"].to_numpy()
    s = np.exp(10 / np.sqrt(10))
    expected = np.array([1, 1, 1, 1, s, 1, 1, 0, 0, 0]) / (s + 6)
    np.testing.assert_allclose(back, expected, atol=5e-4)
    maps = head_maps(at)
    cells = maps[1]
    two_back = cells[cells["col_i"] == cells["row_i"] - 2]
    assert len(two_back) == 8 and (two_back["value"] > 0.7).all()
    # が (position 1) has nothing two back: an even spread over 猫 and が
    row1 = cells[(cells["row_i"] == 1) & ~cells["masked"]]
    np.testing.assert_allclose(row1["value"], [0.5, 0.5], atol=5e-4)
    assert "k = 2" in all_text(at)


def test_run_text_names_the_weight_it_shows(lang):
    """The sentence under the run gives the largest weight with それ as the query
    (its row), the head and the token it lands on, all read off the maps."""
    at = open_page(PAGE, lang, folds=True)
    maps = head_maps(at)[2:4]  # the run's two heads (seed 0, h = 2)
    rows = np.array([m[m["row_i"] == IT].sort_values("col_i")["value"].to_numpy() for m in maps])
    head, key = np.unravel_index(np.argmax(rows), rows.shape)
    start = "None of these heads" if lang == "en" else "どのヘッドも学習前"
    (flat,) = [m.value for m in at.markdown if m.value.strip().startswith(start)]
    assert f"**{100 * rows.max():.1f}%**" in flat
    assert TOKENS[key] in flat and str(head + 1) in flat
    assert ("as the query" in flat) if lang == "en" else ("をクエリにしたとき" in flat)
    # the largest weight given TO それ (its column) is a different number
    assert f"{100 * max(m[m['col_i'] == IT]['value'].max() for m in maps):.1f}%" not in flat


def test_quiz_right_and_wrong(lang):
    at = open_page(PAGE, lang)
    at.radio(key="multi_head_q1").set_value(0).run()
    assert len(at.error) == 1 and not at.success
    at.radio(key="multi_head_q1").set_value(2).run()
    assert len(at.success) == 1 and not at.error
    assert "multi_head.q1" in at.session_state["progress"].quizzes


def test_shared_link_restores_the_controls():
    params = {"mh_query": "を", "mh_heads": "24", "mh_seed": "7", "mh_run_heads": "8", "mh_offset": "3"}
    at = open_page(PAGE, "en", params, folds=True)
    assert at.selectbox(key="mh_query").value == 3 and at.select_slider(key="mh_offset").value == 3
    assert at.select_slider(key="mh_heads").value == 24
    assert at.slider(key="mh_seed").value == 7 and at.select_slider(key="mh_run_heads").value == 8
    assert len(at.tabs) == 8


@pytest.mark.parametrize(
    "params",
    [
        {"mh_heads": "5", "mh_run_heads": "3", "mh_seed": "1000", "mh_query": "<script>alert(1)</script>"},
        {"mh_heads": "0", "mh_run_heads": "-8", "mh_seed": "nan", "mh_query": "", "mh_offset": "0"},
        {"mh_heads": "1e308", "mh_run_heads": "16", "mh_seed": "-1", "mh_query": "ねこ", "mh_offset": "10"},
    ],
)
def test_bad_url_values_fall_back_to_the_defaults(lang, params):
    at = open_page(PAGE, lang, params, folds=True)
    assert_clean(at)
    assert at.select_slider(key="mh_heads").value == 12
    assert at.select_slider(key="mh_run_heads").value == 2
    assert at.slider(key="mh_seed").value == 0
    assert at.selectbox(key="mh_query").value == IT
    assert at.select_slider(key="mh_offset").value == 1


def test_no_placeholder_left_unfilled(lang):
    at = open_page(PAGE, lang, folds=True)
    text = all_text(at)
    assert not re.search(r"(?<![_^\\])\{[a-z_]+\}", text)
    for widget in (
        at.select_slider(key="mh_heads"),
        at.select_slider(key="mh_run_heads"),
        at.slider(key="mh_seed"),
    ):
        assert widget.help and "{" not in without_maths(widget.help)


ERROR_SCRIPT = """
from lessons.multi_head import parts

parts.gpt2_section(10, 768, 5, [1, 2, 3])
"""


def test_a_head_count_that_does_not_divide_gets_a_clear_message(lang):
    at = AppTest.from_string(ERROR_SCRIPT)
    at.query_params["lang"] = lang
    at.run()
    assert not at.exception
    assert len(at.error) == 1 and "768" in at.error[0].value
    assert not at.dataframe


def test_one_head_reads_as_english():
    at = open_page(PAGE, "en", {"mh_heads": "1", "mh_run_heads": "1"}, folds=True)
    assert at.select_slider(key="mh_heads").value == 1 and at.select_slider(key="mh_run_heads").value == 1
    cells = [str(x) for frame in at.dataframe for x in frame.value.to_numpy().ravel()]
    text = all_text(at) + "\n".join(cells)
    assert not re.search(r"\b1 (heads|outputs|slices)\b|\bthe 1 of them\b", text)
    # one head is not "a thin attention" that "the heads" fill side by side
    assert not re.search(r"\bthe heads fill\b|\bthin attention\b", text)
    assert "With 1 head there is nothing to split" in text


def test_shapes_table_does_not_use_h_for_one_head(lang):
    """h is the number of heads (the slider); one head is j in the formulas and
    "one head" in the words, so "head h" never names a single head."""
    at = open_page(PAGE, lang, folds=True)
    frame = at.dataframe[0].value
    formulas, meanings = list(frame.iloc[:, 0]), " ".join(map(str, frame.iloc[:, 2]))
    assert "W_Q⁽ʲ⁾" in formulas and "Q_j = X W_Q⁽ʲ⁾" in formulas and "head_j = (…) V_j" in formulas
    assert not any("⁽ʰ⁾" in f or "Q_h" in f or "head_h =" in f for f in formulas)
    assert "head h" not in meanings and "ヘッド h" not in meanings
    assert ("1 つのヘッド" if lang == "ja" else "one head's") in meanings


def test_every_wide_map_glosses_its_rows_in_english(lang):
    """The run's maps, the concatenation and the output name each row's token
    with its gloss in English ("それ (it)"), as the bar chart does; the two
    hand-made heads' maps, half a page wide each, keep the bare tokens, so that
    every cell's number fits."""
    from helpers.apptest import open_folds

    from course_app.i18n import catalog

    at = open_folds(open_page(PAGE, lang))
    narrow, maps = [f for f in frames(at) if "row" in f][:2], [f for f in frames(at) if "row" in f][2:]
    assert len(maps) >= 3, len(maps)  # the run's heads, concat, output
    assert [list(dict.fromkeys(f["row"]))[IT] for f in narrow] == ["それ", "それ"]
    glossed = catalog("en")["gloss.それ"]
    for frame in maps:
        rows = list(dict.fromkeys(frame["row"]))
        assert rows[IT] == (f"それ ({glossed})" if lang == "en" else "それ"), rows
