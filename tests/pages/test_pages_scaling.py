"""Layer 3: the scaling lesson through AppTest, in both languages.

Expected numbers are computed here with plain NumPy (or taken from the lesson's
running examples), never read back from the page."""

import re

import numpy as np
import pytest
from helpers.apptest import all_text, assert_clean, chart_frames, open_page

from course_app.i18n import catalog

PAGE = "pages/3_scaling.py"
D_KS = [2**i for i in range(10)]


def measured_spreads(seed: int, n_samples: int = 4000) -> np.ndarray:
    """std(q·k) for d_k = 1 ... 512, fresh N(0, 1) pairs per d_k, as the lesson describes."""
    rng = np.random.default_rng(seed)
    out = []
    for d in D_KS:
        q, k = rng.standard_normal((n_samples, d)), rng.standard_normal((n_samples, d))
        out.append(np.std(np.sum(q * k, axis=1), ddof=1))
    return np.array(out)


def plain_softmax(x: np.ndarray) -> np.ndarray:
    e = np.exp(x - x.max())
    return e / e.sum()


def scores(seed: int) -> np.ndarray:
    """12 N(0, 1) draws, standardised: mean 0 and standard deviation exactly 1, so σ · z has spread σ."""
    x = np.random.default_rng(seed).standard_normal(12)
    return (x - x.mean()) / x.std()


def mean_top_weights(seed: int, d: int, n_keys: int = 12, draws: int = 400) -> tuple[float, float]:
    """The average largest weight of softmax(q·k) and softmax(q·k / √d) for one random query
    and n_keys random keys, over ``draws`` tries: the sentence under the d_k chart."""
    rng = np.random.default_rng([seed, 1])
    for size in D_KS:  # the page measures every d_k in turn from one generator
        q, k = rng.standard_normal((draws, 1, size)), rng.standard_normal((draws, n_keys, size))
        if size == d:
            s = np.einsum("bqd,bkd->bk", q, k)
            e_raw = np.exp(s - s.max(axis=1, keepdims=True))
            e_scaled = np.exp((s - s.max(axis=1, keepdims=True)) / np.sqrt(d))
            raw = np.mean(np.max(e_raw / e_raw.sum(axis=1, keepdims=True), axis=1))
            return float(raw), float(np.mean(np.max(e_scaled / e_scaled.sum(axis=1, keepdims=True), axis=1)))
    raise ValueError(d)


def flat(node, out=None) -> list[tuple[str, str | None]]:
    """The page's elements in reading order, as (type, key)."""
    out = [] if out is None else out
    for child in getattr(node, "children", {}).values():
        out.append((child.type, getattr(child, "key", None)))
        flat(child, out)
    return out


def frobenius(p: np.ndarray) -> float:
    return float(np.linalg.norm(np.diag(p) - np.outer(p, p)))


def charts(at):
    """(d_k sweep, softmax comparison, gradient curve, example C bars)."""
    frames = chart_frames(at)
    assert len(frames) == 4
    return frames


def tasks(at) -> set[str]:
    return {t for t in at.session_state["progress"].tasks if t.startswith("scaling.")}


def test_defaults_show_the_measured_spreads(lang):
    at = open_page(PAGE, lang, folds=True)
    assert_clean(at)
    expected = measured_spreads(0)
    table = at.dataframe[0].value
    assert list(table["d_k"]) == [str(d) for d in D_KS]
    assert list(table.iloc[:, 2]) == [f"{x:.2f}" for x in expected]
    assert list(table.iloc[:, 3]) == [f"{x / np.sqrt(d):.2f}" for x, d in zip(expected, D_KS, strict=True)]
    # the measurement agrees with the theory √d_k: 1, 8, 22.6 for d_k = 1, 64, 512
    np.testing.assert_allclose(expected[[0, 6, 9]], [1.0, 8.0, np.sqrt(512)], rtol=0.05)
    sweep = charts(at)[0]
    assert set(sweep["series_order"]) == {0, 1, 2, 3}
    np.testing.assert_allclose(sweep[sweep["series_order"] == 0]["y"], np.sqrt(D_KS))
    np.testing.assert_allclose(sweep[sweep["series_order"] == 1]["y"], expected)
    np.testing.assert_allclose(sweep[sweep["series_order"] == 2]["y"], expected / np.sqrt(D_KS))
    chosen = sweep[sweep["series_order"] == 3]  # the d_k slider's point, 64 by default
    assert list(chosen["x"]) == [64.0]
    np.testing.assert_allclose(chosen["y"], expected[6])
    # the chosen d_k (64 by default) in a sentence
    assert f"{expected[6]:.2f}" in all_text(at)


def test_defaults_compare_spread_8_with_spread_1(lang):
    at = open_page(PAGE, lang, folds=True)
    z = scores(0)
    # σ is the real spread of the scores: 8 z has standard deviation 8 (not about 5.6)
    np.testing.assert_allclose(np.std(8 * z), 8.0)
    sharp, soft = plain_softmax(8 * z), plain_softmax(z)
    bars = charts(at)[1]
    np.testing.assert_allclose(bars[bars["series_order"] == 0]["value"], sharp)
    np.testing.assert_allclose(bars[bars["series_order"] == 1]["value"], soft)
    text = all_text(at)
    assert f"{100 * sharp.max():.1f}%" in text and f"{100 * soft.max():.1f}%" in text
    assert sharp.max() > 0.9 and soft.max() < 0.5
    raw = np.random.default_rng(0).standard_normal(12)  # the old, unstandardised draw
    assert f"{100 * plain_softmax(8 * raw).max():.1f}%" not in text


def test_the_d_k_section_shows_how_one_hot_unscaled_softmax_gets(lang):
    at = open_page(PAGE, lang)
    raw, scaled = mean_top_weights(0, 64)
    text = all_text(at)
    assert f"{100 * raw:.1f}%" in text and f"{100 * scaled:.1f}%" in text
    assert raw > 0.8 and scaled < 0.35
    at.select_slider(key="sc_dk").set_value(512).run()
    raw512, _ = mean_top_weights(0, 512)
    assert raw512 > raw and f"{100 * raw512:.1f}%" in all_text(at)


def test_defaults_show_the_gradient_shrinking(lang):
    at = open_page(PAGE, lang, folds=True)
    z = scores(0)
    curve = charts(at)[2]
    these = curve[curve["series_order"] == 1]
    np.testing.assert_allclose(these["x"].iloc[[0, -1]], [0.25, 16.0])
    for x, y in zip(these["x"], these["y"], strict=True):
        np.testing.assert_allclose(y, frobenius(plain_softmax(x * z)), rtol=1e-9)
    # the average curve is over standardised patterns too
    rng = np.random.default_rng(0)
    draws = rng.standard_normal((1000, 12))
    draws = (draws - draws.mean(axis=1, keepdims=True)) / draws.std(axis=1, keepdims=True)
    typical = curve[curve["series_order"] == 0]
    for x, y in list(zip(typical["x"], typical["y"], strict=True))[::6]:
        np.testing.assert_allclose(y, np.mean([frobenius(plain_softmax(x * d)) for d in draws]), rtol=1e-9)
    point = curve[curve["series_order"] == 2]
    assert list(point["x"]) == [8.0]
    np.testing.assert_allclose(point["y"], frobenius(plain_softmax(8 * z)))
    text = all_text(at)
    assert f"{frobenius(plain_softmax(z)):.3f}" in text and f"{frobenius(plain_softmax(8 * z)):.3f}" in text


def test_defaults_show_example_c_with_entropy(lang):
    at = open_page(PAGE, lang, folds=True)
    bars = charts(at)[3]
    # それ with ÷√4, mask on: 猫 18.8 %, 魚 65.7 %, right of それ exactly 0
    assert list(bars["text"][:7]) == ["18.8%", "1.5%", "65.7%", "1.5%", "6.1%", "2.5%", "3.7%"]
    assert list(bars["value"][7:]) == [0.0, 0.0, 0.0]
    # the tokens the causal mask hides from それ are drawn as hidden, not as 0.0%
    assert list(bars["kind"][7:]) == ["masked"] * 3 and "masked" not in set(bars["kind"][:7])
    assert list(bars["text"][7:]) == ["—"] * 3
    p = bars["value"].to_numpy()[:7]
    text = all_text(at)
    assert f"{-np.sum(p * np.log2(p)):.2f}" in text  # entropy in bits
    assert f"{np.log2(7):.2f}" in text  # its maximum for 7 visible tokens
    # without ÷√d_k (temperature 0.5): softmax of the raw scores q·k
    q, k = (
        np.array([1.0, 1.5, 0.0, -1.0]),
        np.array(
            [
                [3, 0, 0, 0],
                [0, 0, 0, 2],
                [1, 3, 0, 0],
                [0, 0, 0, 2],
                [0, 0.5, 3, 0],
                [0, 0, 0, 1],
                [0.3, 0.3, 0, 1],
            ]
        ),
    )
    raw = plain_softmax(k @ q)
    assert f"{100 * raw.max():.1f}%" in text
    assert f"{-np.sum(raw * np.log2(raw)):.2f}" in text


def test_english_glosses_and_japanese_does_not():
    en, ja = open_page(PAGE, "en", folds=True), open_page(PAGE, "ja", folds=True)
    assert charts(en)[3]["label"][0] == "猫 (cat)"
    assert charts(ja)[3]["label"][0] == "猫"
    assert en.header[0].value != ja.header[0].value


@pytest.mark.filterwarnings("error::RuntimeWarning")
@pytest.mark.parametrize("end", ["low", "high"])
def test_every_widget_at_its_extremes(lang, end):
    at = open_page(PAGE, lang, folds=True)
    low = end == "low"
    at.slider(key="sc_dk_seed").set_value(0 if low else 99)
    at.select_slider(key="sc_dk").set_value(1 if low else 512)
    at.slider(key="sc_spread").set_value(0.25 if low else 16.0)
    at.slider(key="sc_seed").set_value(0 if low else 99)
    at.slider(key="sc_temp").set_value(0.1 if low else 5.0)
    at.run()
    assert_clean(at)
    sweep, bars, curve, example = charts(at)
    for series in (bars[bars["series_order"] == k] for k in (0, 1)):
        np.testing.assert_allclose(series["value"].sum(), 1.0)
    np.testing.assert_allclose(example["value"].sum(), 1.0)
    np.testing.assert_allclose(
        bars[bars["series_order"] == 0]["value"],
        plain_softmax((0.25 if low else 16.0) * scores(0 if low else 99)),
    )
    assert list(curve[curve["series_order"] == 2]["x"]) == [0.25 if low else 16.0]
    if not low:  # seed 99 measures again
        np.testing.assert_allclose(sweep[sweep["series_order"] == 1]["y"], measured_spreads(99))
    assert list(sweep[sweep["series_order"] == 3]["x"]) == [1.0 if low else 512.0]
    assert "nan" not in all_text(at).lower()


def test_quiz_feedback_right_and_wrong(lang):
    at = open_page(PAGE, lang)
    at.radio(key="scaling_q1").set_value(0).run()
    assert len(at.error) == 1 and not at.success
    assert "scaling.q1" not in at.session_state["progress"].quizzes
    at.radio(key="scaling_q1").set_value(2).run()
    assert len(at.success) == 1 and not at.error
    assert "scaling.q1" in at.session_state["progress"].quizzes
    for quiz, right in (("q2", 1), ("q3", 0)):
        at.radio(key=f"scaling_{quiz}").set_value(right).run()
    assert {"scaling.q1", "scaling.q2", "scaling.q3"} <= at.session_state["progress"].quizzes


def test_quiz_answers_hold_numerically():
    z = scores(3)
    # q1: adding 5 to every score changes no weight
    np.testing.assert_allclose(plain_softmax(z + 5), plain_softmax(z))
    # q2: doubling the query is temperature 0.5
    q, k, d_k = np.array([1.0, 1.5, 0.0, -1.0]), np.array([[3.0, 0, 0, 0], [1, 3, 0, 0], [0, 0, 0, 2]]), 4
    np.testing.assert_allclose(
        plain_softmax(k @ (2 * q) / np.sqrt(d_k)), plain_softmax(k @ q / (np.sqrt(d_k) * 0.5))
    )


def test_the_text_says_what_training_moves_and_what_the_jacobian_holds(lang):
    at = open_page(PAGE, lang, folds=True)
    text = all_text(at)
    # training steps against the gradient and moves the parameters, not the scores
    assert "W_Q" in text
    if lang == "en":
        assert "against the gradient" in text and "that direction is the **gradient**" not in text
        assert "The scores are not trained themselves" in text
    else:
        assert "勾配と逆の向き" in text and "スコアを少しずつ動かします" not in text
        assert "スコアそのものを学習するわけではありません" in text
    # the off-diagonal entries of J are −p_i p_j, as the code computes them
    assert "$-p_i p_j$" in text
    # GPT-2 small: d_head = 768 / 12 = 64, √64 = 8, the σ of section 2
    assert "d_k = 64" in text and "σ = 8" in text
    assert at.slider(key="sc_spread").value == 8.0


def test_temperature_help_says_it_divides_on_top_of_the_square_root():
    at = open_page(PAGE, "ja")
    help_text = at.slider(key="sc_temp").help
    assert "に加えて" not in help_text and "さらにこの値で割ります" in help_text


def test_deep_dives_are_folded_and_each_chart_sits_above_its_controls(lang):
    at = open_page(PAGE, lang, folds=True)
    code = [e for e in at.expander if e.label == catalog(lang)["ui.code.label"]]
    assert len(code) == 1  # the code behind the spread chart, just under it
    folds = [e for e in at.expander if e.label != catalog(lang)["ui.code.label"]]
    labels = [e.label for e in folds]
    assert len(labels) == 4  # the table, sections 2 and 3, the temperature's details, the takeaways
    # the reference table and the Jacobian are inside folds, off the main path
    assert len(folds[0].get("dataframe")) == 1
    assert labels[1].startswith("2.")
    assert len(folds[1].get("vega_lite_chart")) == 2 and len(folds[1].get("latex")) == 1
    order = flat(at.main)
    charts_at = [i for i, (kind, _) in enumerate(order) if kind == "vega_lite_chart"]
    slider_at = {key: i for i, (_, key) in enumerate(order) if key}
    # sweep chart, then d_k and seed; comparison chart, then σ and seed; bars, then T
    assert charts_at[0] < slider_at["sc_dk"] < slider_at["sc_dk_seed"] < charts_at[1]
    assert charts_at[1] < slider_at["sc_spread"] < slider_at["sc_seed"] < charts_at[2]
    assert charts_at[3] < slider_at["sc_temp"]
    # nothing else is drawn between a chart and its controls
    between = order[charts_at[0] + 1 : slider_at["sc_dk"]]
    assert {kind for kind, _ in between} <= {"flex_container", "column"}


def test_state_comes_back_from_a_shared_link():
    at = open_page(
        PAGE, "en", {"sc_spread": "2.5", "sc_dk": "128", "sc_temp": "2.0", "sc_seed": "7"}, folds=True
    )
    assert at.slider(key="sc_spread").value == 2.5
    assert at.select_slider(key="sc_dk").value == 128
    assert at.slider(key="sc_temp").value == 2.0
    assert at.slider(key="sc_seed").value == 7
    bars = charts(at)[1]
    np.testing.assert_allclose(bars[bars["series_order"] == 0]["value"], plain_softmax(2.5 * scores(7)))


@pytest.mark.parametrize(
    "params",
    [
        {"sc_spread": "nan", "sc_temp": "1e999", "sc_dk": "3", "sc_seed": "-5", "sc_dk_seed": "abc"},
        {"sc_spread": "-inf", "sc_temp": "0", "sc_dk": "<script>alert(1)</script>", "sc_seed": "1e400"},
        {"sc_spread": "1000", "sc_temp": "-1", "sc_dk": "", "sc_dk_seed": "100"},
    ],
)
def test_bad_values_in_the_url_fall_back_to_the_defaults(lang, params):
    at = open_page(PAGE, lang, params, folds=True)
    assert_clean(at)
    assert at.slider(key="sc_spread").value == 8.0
    assert at.slider(key="sc_temp").value == 1.0
    assert at.select_slider(key="sc_dk").value == 64
    assert at.slider(key="sc_seed").value == 0
    assert at.slider(key="sc_dk_seed").value == 0
    assert "<script>" not in all_text(at)


def test_english_numbers_agree_with_their_nouns():
    at = open_page(PAGE, "en")
    for d_k, temperature in ((1, 0.1), (512, 5.0)):
        at.select_slider(key="sc_dk").set_value(d_k)
        at.slider(key="sc_temp").set_value(temperature).run()
        wrong = re.search(
            r"(?<![−-] )(?<![\d.])1 (tokens|keys|scores|pairs|weights|bits|sets)\b", all_text(at)
        )
        assert wrong is None, wrong


def test_headers_blame_the_spread_and_d_k_counts_components():
    """Adding the same number to every score changes no weight, so the one-hot
    heading must name the spread, not the size, of the scores; and d_k is the
    number of components, not the length (norm) of the vectors."""
    at = open_page(PAGE, "en", folds=True)
    onehot = next(e.label for e in at.expander if e.label.startswith("2."))  # a section folded whole
    assert "spread" in onehot and "Large scores" not in onehot
    text = all_text(at)
    assert "The more components the vectors have (the larger $d_k$)" in text
    assert "longer the vectors" not in text
    ja = open_page(PAGE, "ja", folds=True)
    assert "成分の数（$d_k$）" in all_text(ja) and "ベクトルが長く" not in all_text(ja)
