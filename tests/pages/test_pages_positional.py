"""Layer 3: the positional-encoding lesson through AppTest, in both languages."""

import re

import numpy as np
import pytest
from helpers.apptest import all_text, assert_clean, chart_frames, open_page, without_maths
from streamlit.testing.v1 import AppTest

PAGE = "pages/5_positional.py"
TOKENS = {"ねこ": [0.9, 0.2, 0.1, 0.0], "が": [0.0, 0.1, 0.0, 0.8], "いぬ": [0.8, 0.0, 0.3, 0.1]}
TOKENS |= {"を": [0.1, 0.0, 0.0, 0.9], "追う": [0.2, 0.1, 0.9, 0.1]}
A, B = ["ねこ", "が", "いぬ", "を", "追う"], ["いぬ", "が", "ねこ", "を", "追う"]


def pe(n: int, d: int) -> np.ndarray:
    """The encoding written out again, independently of lesson_core."""
    out = np.zeros((n, d))
    for pos in range(n):
        for i in range(d):
            angle = pos / 10000 ** (2 * (i // 2) / d)
            out[pos, i] = np.sin(angle) if i % 2 == 0 else np.cos(angle)
    return out


def attend(x: np.ndarray) -> np.ndarray:
    s = x @ x.T / np.sqrt(x.shape[1])
    w = np.exp(s - s.max(axis=1, keepdims=True))
    return (w / w.sum(axis=1, keepdims=True)) @ x


def fmt(x: float, digits: int = 2) -> str:
    return f"{x:.{digits}f}".replace("-", "−")


def fvec(v) -> str:
    return "[" + ", ".join(fmt(x) for x in v) + "]"


def charts(at):
    waves, matrix, similarity = chart_frames(at)
    return waves, matrix, similarity


def task_done(at, tid: str) -> bool:
    return f"positional.{tid}" in at.session_state["progress"].tasks


def column_named(frame, lang: str):
    """A table's column by its catalog id (``positional.col.<id>``), as a list."""
    from course_app.i18n import catalog

    return lambda name: list(frame[catalog(lang)[f"positional.col.{name}"]])


def test_order_blindness_tables(lang):
    at = open_page(PAGE, lang, folds=True)
    assert_clean(at)
    plain, placed = (column_named(at.dataframe[i].value, lang) for i in (0, 1))
    xa, xb = np.array([TOKENS[t] for t in A]), np.array([TOKENS[t] for t in B])
    oa, ob = attend(xa), attend(xb)
    swap = [2, 1, 0, 3, 4]  # where each token of sentence 1 sits in sentence 2
    # without positions: the same vector for the same token, only the rows differ
    assert plain("out_a") == [fvec(v) for v in oa]
    assert plain("out_b") == [fvec(v) for v in ob[swap]]
    assert plain("out_a") == plain("out_b")
    assert plain("difference") == ["0.000"] * 5
    assert plain("pos_b") == swap
    assert fvec(oa[0]) != fvec(ob[0])  # ねこ's output is not in row 0 of sentence 2
    # with positions: the outputs differ for the same token
    qa, qb = attend(xa + pe(5, 4)), attend(xb + pe(5, 4))
    diff = np.abs(qa - qb[swap]).max(axis=1)
    assert placed("difference") == [fmt(x, 3) for x in diff]
    assert f"**{fmt(diff.max(), 3)}**" in all_text(at)
    assert f"**{fmt(0.0, 3)}**" in all_text(at)
    # every placeholder filled (LaTeX like d_{model} aside)
    assert not re.search(r"(?<![_^\\])\{[a-z_]+\}", all_text(at))


def test_formula_table_and_same_token_table(lang):
    at = open_page(PAGE, lang, folds=True)
    table = at.dataframe[2].value
    assert table.shape == (12, 9)
    expected = pe(12, 8)
    for pos in (0, 1, 7, 11):
        assert list(table.iloc[pos, 1:]) == [fmt(x, 3) for x in expected[pos]]
    same = column_named(at.dataframe[3].value, lang)
    # the lesson's worked example: [0.8, 0.2, -0.1, 0.5] + PE(pos) for pos 0, 1, 2 (d_model 4)
    sums = np.array([0.8, 0.2, -0.1, 0.5]) + pe(3, 4)
    assert same("input") == [fvec(v) for v in sums]
    assert same("input")[0] == "[0.80, 1.20, −0.10, 1.50]"
    assert same("position_vector") == [fvec(v) for v in pe(3, 4)]


def test_explorer_charts_at_the_defaults(lang):
    at = open_page(PAGE, lang, folds=True)
    assert at.slider(key="pe_n").value == 50 and at.select_slider(key="pe_d").value == 16
    for widget in (at.slider(key="pe_n"), at.select_slider(key="pe_d")):
        assert widget.help and "{" not in widget.help and "{" not in widget.label
    assert "2" in at.slider(key="pe_n").help and "256" in at.slider(key="pe_n").help
    waves, matrix, similarity = charts(at)
    # the waves: 8 samples per position (smooth curves), the whole positions marked
    assert waves.shape == (49 * 8 + 1, 2 + 4) and len(matrix) == 50 * 16 and len(similarity) == 50 * 50
    expected = pe(50, 16)
    whole = waves[waves["whole"]]
    assert list(whole["x"]) == list(range(50))
    np.testing.assert_allclose(whole.iloc[:, 2:].to_numpy(), expected[:, :4], atol=1e-6)
    grid = matrix.pivot(index="row", columns="col", values="value").to_numpy()
    np.testing.assert_allclose(grid, expected, atol=1e-6)
    sim = similarity.pivot(index="row", columns="col", values="value").to_numpy()
    np.testing.assert_allclose(sim, expected @ expected.T, atol=1e-4)
    text = all_text(at)
    assert f"**{fmt(8.0)}**" in text and f"**{fmt(expected[0] @ expected[1])}**" in text
    assert f"**{fmt(2 * np.pi, 1)}**" in text  # the fastest hand's wavelength


@pytest.mark.parametrize(("n", "d"), [(2, 2), (2, 128), (256, 2), (256, 128)])
def test_widgets_at_their_extremes(lang, n, d):
    at = open_page(PAGE, lang, folds=True)
    at.slider(key="pe_n").set_value(n)
    at.select_slider(key="pe_d").set_value(d).run()
    assert_clean(at)
    assert not at.error
    waves, matrix, similarity = charts(at)
    assert len(matrix) == n * d and len(similarity) == n * n
    assert waves.shape == ((n - 1) * 8 + 1, 2 + min(4, d)) and waves["whole"].sum() == n
    assert waves.iloc[:, 2:].abs().to_numpy().max() <= 1.0 + 1e-6
    assert matrix["value"].abs().max() <= 1.0 + 1e-6


def test_only_even_d_model_can_be_chosen():
    at = open_page(PAGE)
    options = [int(o) for o in at.select_slider(key="pe_d").options]
    assert options == list(range(2, 129, 2))


def test_task_t1_long_run():
    at = open_page(PAGE)
    at.slider(key="pe_n").set_value(199).run()
    assert not task_done(at, "t1")
    at.slider(key="pe_n").set_value(200).run()
    assert task_done(at, "t1")


def test_task_t2_one_hand_collides():
    at = open_page(PAGE, params={"pe_n": "40"})
    at.select_slider(key="pe_d").set_value(2).run()
    assert not task_done(at, "t2")  # below 45 positions no pair is that close yet
    at.slider(key="pe_n").set_value(45).run()
    assert task_done(at, "t2")
    # positions 0 and 44: 44 ≈ 7 turns of 2π; the distance is 2|sin 22|
    assert f"**{fmt(2 * abs(np.sin(22)), 3)}**" in all_text(at)


def test_task_t3_neighbours_alike():
    at = open_page(PAGE)
    assert not task_done(at, "t3")
    at.select_slider(key="pe_d").set_value(32).run()
    assert task_done(at, "t3")
    # once done it stays done
    at.select_slider(key="pe_d").set_value(8).run()
    assert task_done(at, "t3")


def test_quiz_right_and_wrong(lang):
    at = open_page(PAGE, lang)
    at.radio(key="positional_q1").set_value(0).run()
    assert len(at.error) == 1 and not at.success
    at.radio(key="positional_q1").set_value(1).run()
    assert len(at.success) == 1 and not at.error
    assert "positional.q1" in at.session_state["progress"].quizzes


def test_shared_link_restores_the_sizes():
    at = open_page(PAGE, "en", {"pe_n": "120", "pe_d": "64"}, folds=True)
    assert at.slider(key="pe_n").value == 120 and at.select_slider(key="pe_d").value == 64
    assert len(charts(at)[1]) == 120 * 64


@pytest.mark.parametrize(
    "params",
    [
        {"pe_n": "100000", "pe_d": "7"},
        {"pe_n": "0", "pe_d": "0"},
        {"pe_n": "-5", "pe_d": "130"},
        {"pe_n": "<script>alert(1)</script>", "pe_d": "nan"},
        {"pe_n": "1e308", "pe_d": "1e308"},
    ],
)
def test_bad_url_values_fall_back_to_the_defaults(lang, params):
    at = open_page(PAGE, lang, params)
    assert_clean(at)
    assert at.slider(key="pe_n").value == 50 and at.select_slider(key="pe_d").value == 16


ERROR_SCRIPT = """
import streamlit as st
from lesson_core.positional import encoding_explorer, EncodingSizeError
from lessons.positional import parts

for n, d in [(10, 7), (0, 4), (100000, 4)]:
    try:
        encoding_explorer(n, d)
    except EncodingSizeError as err:
        parts.size_error(err)
"""


def test_sizes_the_core_rejects_get_a_clear_message(lang):
    at = AppTest.from_string(ERROR_SCRIPT)
    at.query_params["lang"] = lang
    at.run()
    assert not at.exception
    messages = [e.value for e in at.error]
    assert len(messages) == 3
    assert "$d_{model}$" in messages[0]  # typeset, its braces filled in once
    assert "2" in messages[1]
    assert "256" in messages[2] and "128" in messages[2]
    assert all("{" not in without_maths(m) and "Error" not in m for m in messages)


def masked_attend(x: np.ndarray) -> np.ndarray:
    n = len(x)
    s = np.where(np.tril(np.ones((n, n), bool)), x @ x.T / np.sqrt(x.shape[1]), -np.inf)
    w = np.exp(s - s.max(axis=1, keepdims=True))
    return (w / w.sum(axis=1, keepdims=True)) @ x


def test_causal_mask_switch_shows_which_outputs_change(lang):
    """Without the mask the word-order table differs nowhere; with it, ねこ, が, いぬ
    differ and を, 追う stay the same, and the text names them from the numbers."""
    at = open_page(PAGE, lang, folds=True)
    assert at.toggle(key="pe_mask").value is False
    text = all_text(at)
    assert ("マスクをかけると" if lang == "ja" else "With the mask,") not in text
    at.toggle(key="pe_mask").set_value(True).run()
    assert_clean(at)
    plain = column_named(at.dataframe[0].value, lang)
    oa = masked_attend(np.array([TOKENS[t] for t in A]))
    ob = masked_attend(np.array([TOKENS[t] for t in B]))
    diff = np.abs(oa - ob[[2, 1, 0, 3, 4]]).max(axis=1)
    assert plain("difference") == [fmt(x, 3) for x in diff]
    assert plain("difference")[3:] == ["0.000", "0.000"]
    assert all(x != "0.000" for x in plain("difference")[:3])
    text = all_text(at)
    start = "マスクをかけると" if lang == "ja" else "With the mask,"
    (masked,) = [m.value for m in at.markdown if m.value.strip().startswith(start)]
    sep = "、" if lang == "ja" else ", "
    gl = (lambda tok: tok) if lang == "ja" else (lambda tok: f"{tok} (")
    changed, kept = masked.split("**")[1], masked.split("**")[3]
    for tok in ("ねこ", "が", "いぬ"):
        assert gl(tok) in changed and tok not in kept
    for tok in ("を", "追う"):
        assert gl(tok) in kept and tok not in changed
    assert changed.count(sep) == 2 and kept.count(sep) == 1
    assert fmt(diff.max(), 3) in text
    # the placed table follows the switch too: attention with X + PE under the mask
    placed = column_named(at.dataframe[1].value, lang)
    qa = masked_attend(np.array([TOKENS[t] for t in A]) + pe(5, 4))
    qb = masked_attend(np.array([TOKENS[t] for t in B]) + pe(5, 4))
    assert placed("difference") == [fmt(x, 3) for x in np.abs(qa - qb[[2, 1, 0, 3, 4]]).max(axis=1)]
    assert "0.000" not in placed("difference")


def test_one_hand_text_says_one_turn_is_not_enough(lang):
    at = open_page(PAGE, lang, {"pe_n": "50"})
    at.select_slider(key="pe_d").set_value(2).run()
    text = all_text(at)
    assert f"**{fmt(2 * abs(np.sin(3.0)), 3)}**" in text  # position 6 vs 0: one turn, still 0.282 apart
    assert fmt(44 / (2 * np.pi), 3) in text  # positions 0 and 44: about 7 turns
    assert f"**{fmt(2 * abs(np.sin(22.0)), 3)}**" in text
    assert "about a whole turn apart" not in text and "ちょうど一回転ぶん離れた位置どうし" not in text


def test_reference_table_sits_in_an_expander(lang):
    at = open_page(PAGE, lang, folds=True)
    (expander,) = [e for e in at.expander if "12" in e.label and "8" in e.label]
    assert len(expander.dataframe) == 1 and expander.dataframe[0].value.shape == (12, 9)


def test_waves_come_before_their_controls():
    """On a phone the page is one column: the waves must sit right above the
    sliders that change them (same fragment), not a screen away."""
    from streamlit.testing.v1.element_tree import Block

    def walk(node):
        if isinstance(node, Block):
            for child in node.children.values():
                yield from walk(child)
        else:
            yield node

    nodes = list(walk(open_page(PAGE, "en").main))
    slider = next(i for i, n in enumerate(nodes) if getattr(n, "key", None) == "pe_n")
    charts_before = [i for i, n in enumerate(nodes[:slider]) if n.type == "vega_lite_chart"]
    assert charts_before, "the waves chart should come before its controls"
    between = nodes[charts_before[-1] + 1 : slider]
    assert all(n.type not in ("vega_lite_chart", "dataframe") for n in between)


@pytest.mark.parametrize(("n", "many"), [(7, False), (19, False), (20, True), (256, True)])
def test_one_hand_speaks_of_many_turns_only_when_they_are_shown(n, many):
    at = open_page(PAGE, "en", {"pe_n": str(n)})
    at.select_slider(key="pe_d").set_value(2).run()
    text = all_text(at)
    assert ("After several turns" in text) is many
    assert ("Show more positions" in text) is not many


def test_masked_why_names_what_neko_sees_in_each_sentence(lang):
    """The example in the masked explanation compares what ねこ sees in each
    sentence (its own prefix), not what position 0 holds in each."""
    at = open_page(PAGE, lang)
    at.toggle(key="pe_mask").set_value(True).run()
    seen_a, seen_b = A[: A.index("ねこ") + 1], B[: B.index("ねこ") + 1]
    assert seen_a == ["ねこ"] and seen_b == ["いぬ", "が", "ねこ"]
    marker = "自分だけ" if lang == "ja" else "sees only"
    (why,) = [m.value for m in at.markdown if "ねこ" in m.value and marker in m.value]
    if lang == "ja":
        assert "文①では自分だけ" in why
        assert "文②では" + "".join(f"「{tok}」" for tok in seen_b) in why
    else:
        assert "ねこ sees only itself in sentence 1" in why
        assert f"but {seen_b[0]}, {seen_b[1]} and {seen_b[2]} in sentence 2" in why
    assert "いぬ only itself" not in why and "「いぬ」だけ" not in why


def test_slowest_hand_is_written_with_thousands_grouped(lang):
    at = open_page(PAGE, lang, {"pe_n": "50"})
    at.select_slider(key="pe_d").set_value(16).run()
    slow = 2 * np.pi * 10000 ** (14 / 16)  # the last pair: i = 14, 15
    text = all_text(at)
    assert f"**{slow:,.1f}**" in text and "," in f"{slow:,.1f}"
    assert f"**{slow:.1f}**" not in text


def test_a_phone_sees_each_tables_result_without_scrolling(lang):
    """A phone (358 px for the table) shows about three columns: the word-order
    tables put the difference right after the token, and the same-token table
    has three columns, the input among them."""
    from course_app.i18n import catalog

    col = catalog(lang)
    at = open_page(PAGE, lang, folds=True)
    for i in (0, 1):
        assert list(at.dataframe[i].value.columns)[1] == col["positional.col.difference"]
    same = list(at.dataframe[3].value.columns)
    assert len(same) == 3 and same[-1] == col["positional.col.input"]
