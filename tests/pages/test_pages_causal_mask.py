"""Layer 3: the causal-mask lesson through AppTest, in both languages.

Expected numbers are worked out here with plain NumPy from the example
vectors (or taken from the running examples), never read back from the page."""

import json
import re

import numpy as np
import pytest
from helpers.apptest import all_text, assert_clean, chart_frames, open_page

from lesson_core.examples import DECODER, PRONOUN

PAGE = "pages/4_causal_mask.py"
KINDS = {"none": 0, "causal": 1, "window": 2}  # the mask radio's options, in order
NONE, CAUSAL, WINDOW = KINDS.values()
FILLS = (-np.inf, -1e9, -10.0, -1.0, 0.0)
MASK, BEFORE, AFTER, LEAK, BARS, FULL_MAP = range(6)  # the page's charts, in order
PAIRS, VECTORS, SUMS, STEPS = range(4)  # the page's tables, in order
CAT, FISH, EAT, IT, FRESH = (PRONOUN.index(tok) for tok in ("猫", "魚", "食べた", "それ", "新鮮"))


def softmax_rows(s: np.ndarray) -> np.ndarray:
    e = np.exp(s - s.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def example_b_weights(fill: float) -> np.ndarray:
    x = DECODER.vectors
    s = x @ x.T / np.sqrt(3)
    upper = np.triu(np.ones_like(s, dtype=bool), k=1)
    return softmax_rows(s + np.where(upper, fill, 0.0))  # + (−∞) gives −∞, never NaN here


def example_c_row(query: int, masked: bool, window: int | None = None) -> np.ndarray:
    s = PRONOUN.queries[query] @ PRONOUN.vectors.T / 2.0  # √d_k = 2
    if masked:
        s[query + 1 :] = -np.inf
    if window is not None:  # sliding window: also nothing further back than window − 1
        s[: max(query - window + 1, 0)] = -np.inf
    return softmax_rows(s)


def spec(at, i: int) -> dict:
    return json.loads(at.get("vega_lite_chart")[i].proto.spec)


def flat(node, out=None) -> list[tuple[str, str | None]]:
    """The page's elements in reading order, as (type, key)."""
    out = [] if out is None else out
    for child in getattr(node, "children", {}).values():
        out.append((child.type, getattr(child, "key", None)))
        flat(child, out)
    return out


def percent(x: float) -> str:
    return f"{100 * x:.1f}%"


def tasks(at) -> set[str]:
    return {task for task in at.session_state["progress"].tasks if task.startswith("causal_mask.")}


def test_defaults_pairs_mask_scores_and_row_sums(lang):
    at = open_page(PAGE, lang, folds=True)
    assert_clean(at)
    # the training pairs of わたし は きょう 本 を 読む: わたし → は; わたし は → きょう; ...
    pairs = at.dataframe[PAIRS].value
    assert len(pairs) == 5
    contexts, answers = list(pairs.iloc[:, 1]), list(pairs.iloc[:, 2])
    if lang == "ja":
        assert contexts == [
            "わたし",
            "わたし は",
            "わたし は きょう",
            "わたし は きょう 本",
            "わたし は きょう 本 を",
        ]
        assert answers == ["は", "きょう", "本", "を", "読む"]
    else:
        assert contexts[1] == "わたし (I) は (topic marker)" and answers[1] == "きょう (today)"
    # the mask as 0/1: 15 hidden cells, exactly those right of the diagonal
    cells = chart_frames(at)[MASK]
    assert len(cells) == 36
    hidden = cells[cells["masked"]]
    assert len(hidden) == 15 and (hidden["col_i"] > hidden["row_i"]).all()
    assert set(hidden["text"]) == {"0"} and set(cells[~cells["masked"]]["text"]) == {"1"}
    # scores before and after adding M: the same below the diagonal, −∞ above it
    x = DECODER.vectors
    scaled = x @ x.T / np.sqrt(3)
    before, after = chart_frames(at)[BEFORE], chart_frames(at)[AFTER]
    assert not before["masked"].any()
    np.testing.assert_allclose(before["value"], scaled.ravel())
    assert before["text"].iloc[-1] == "1.26"  # 読む · 読む
    assert (after[after["masked"]]["text"] == "−∞").all() and after["masked"].sum() == 15
    visible = after[~after["masked"]]
    assert list(visible["text"]) == list(before[~after["masked"]]["text"])
    # the masked weights: upper triangle exactly 0, every row sums to 1
    weights = chart_frames(at)[LEAK]
    assert (weights[weights["masked"]]["text"] == "0%").all()
    expected = example_b_weights(-np.inf)
    lower = ~weights["masked"]
    np.testing.assert_allclose(weights["value"][lower], expected.ravel()[lower.to_numpy()], atol=1e-12)
    sums = at.dataframe[SUMS].value
    assert list(sums.iloc[:, 1]) == ["1.000"] * 6
    assert list(sums.iloc[:, 2]) == ["0"] * 6


def test_example_c_defaults_to_sore_with_the_mask(lang):
    at = open_page(PAGE, lang, folds=True)
    bars = chart_frames(at)[BARS]
    np.testing.assert_allclose(bars["value"], example_c_row(IT, masked=True), atol=1e-12)
    assert list(bars["value"][IT + 1 :]) == [0.0, 0.0, 0.0]  # は 新鮮 だった are hidden from それ
    text = all_text(at)
    # the attention lesson's figure: それ gives 魚 65.7 %
    assert "65.7%" in text
    # 猫 without the mask: the two tokens to its right that get the most (fixed text of section 4)
    cat = example_c_row(CAT, masked=False)
    right = np.argsort(cat[1:])[::-1][:2] + 1
    for j in right:
        assert percent(cat[j]) in text
    # 新鮮 with the mask sees それ and 魚; それ gives 新鮮 exactly 0
    fresh = example_c_row(FRESH, masked=True)
    assert fresh[IT] > 0 and fresh[FISH] > 0
    assert percent(fresh[IT]) in text and percent(fresh[FISH]) in text
    assert example_c_row(IT, masked=True)[FRESH] == 0.0


@pytest.mark.parametrize("fill", FILLS)
def test_every_fill_value(lang, fill):
    at = open_page(PAGE, lang, folds=True)
    at.radio(key="cm_fill").set_value(fill).run()
    assert_clean(at)
    expected = example_b_weights(fill)
    weights = chart_frames(at)[LEAK]
    np.testing.assert_allclose(weights["value"][~weights["masked"]], expected[np.tril_indices(6)], atol=1e-12)
    sums = at.dataframe[SUMS].value
    assert list(sums.iloc[:, 1]) == ["1.000"] * 6  # whatever the fill, each row still sums to 1
    leaks = np.triu(expected, k=1).sum(axis=1)
    shown = list(sums.iloc[:, 2])
    if fill <= -1e9:
        assert shown == ["0"] * 6
    elif fill == -10.0:  # tiny but not zero: shown with more digits, and "<1%" in the map
        assert 0 < leaks[0] < 1e-3 and shown[0] == f"{100 * leaks[0]:.3f}%"
        assert "<1%" in set(weights[weights["masked"]]["text"])
    else:
        assert shown[:5] == [percent(v) for v in leaks[:5]] and shown[5] == "0"
        assert percent(leaks[0]) in all_text(at)


def test_fill_zero_is_no_mask_and_leaks_82_percent():
    at = open_page(PAGE, folds=True)
    at.radio(key="cm_fill").set_value(0.0).run()
    x = DECODER.vectors
    no_mask = softmax_rows(x @ x.T / np.sqrt(3))
    weights = chart_frames(at)[LEAK]
    hidden = weights["masked"].to_numpy()
    np.testing.assert_allclose(weights["value"][~hidden], no_mask.ravel()[~hidden], atol=1e-12)
    # the grey cells are labelled with the weight that leaked there
    assert list(weights["text"][hidden]) == [f"{100 * w:.0f}%" for w in no_mask.ravel()[hidden]]
    assert at.dataframe[SUMS].value.iloc[0, 2] == "82.0%"  # わたし: 1 − its own weight


def test_no_mask_lets_cat_see_its_right(lang):
    at = open_page(PAGE, lang, folds=True)
    at.radio(key="cm_mask").set_value(NONE)
    at.selectbox(key="cm_query").set_value(CAT).run()
    assert_clean(at)
    bars = chart_frames(at)[BARS]["value"].to_numpy()
    np.testing.assert_allclose(bars, example_c_row(CAT, masked=False), atol=1e-12)
    assert not chart_frames(at)[FULL_MAP]["masked"].any()
    # the note says how much of 猫's weight goes to its right
    future = 1 - example_c_row(CAT, masked=False)[CAT]
    assert percent(future) in all_text(at)


@pytest.mark.parametrize("window", [1, 2, 5, 10])
def test_sliding_window_mask_in_the_explorer(lang, window):
    at = open_page(PAGE, lang, folds=True)
    at.radio(key="cm_mask").set_value(WINDOW)
    at.slider(key="cm_window").set_value(window).run()
    assert_clean(at)
    bars = chart_frames(at)[BARS]["value"].to_numpy()
    np.testing.assert_allclose(bars, example_c_row(IT, masked=True, window=window), atol=1e-12)
    # それ sees itself and the window − 1 tokens to its left, nothing else
    assert np.count_nonzero(bars) == min(window, IT + 1)
    assert np.all(bars[IT + 1 :] == 0) and np.all(bars[: max(IT - window + 1, 0)] == 0)
    full = chart_frames(at)[FULL_MAP]
    i, j = full["row_i"].to_numpy(), full["col_i"].to_numpy()
    np.testing.assert_array_equal(full["masked"].to_numpy(), ~((i - j >= 0) & (i - j < window)))
    if window == 1:  # それ sees only itself, and the note says so
        note = (
            "それ (it) sees それ (it). The mask hides" if lang == "en" else "「それ」に見えるのは「それ」。"
        )
        assert note in all_text(at)


def test_a_window_as_long_as_the_sentence_is_the_causal_mask(lang):
    at = open_page(PAGE, lang, folds=True)
    at.radio(key="cm_mask").set_value(WINDOW)
    at.slider(key="cm_window").set_value(len(PRONOUN.tokens)).run()
    window = chart_frames(at)[FULL_MAP]["value"].to_numpy()
    at.radio(key="cm_mask").set_value(CAUSAL).run()
    np.testing.assert_array_equal(window, chart_frames(at)[FULL_MAP]["value"].to_numpy())


def test_score_maps_say_they_show_scores_with_a_colour_scale(lang):
    at = open_page(PAGE, lang, folds=True)
    for i in (BEFORE, AFTER):
        chart = spec(at, i)
        title = json.dumps(chart.get("title", ""), ensure_ascii=False)
        assert "weight" not in title and "重み" not in title  # these cells are scores
        assert ("score" in title) if lang == "en" else ("スコア" in title)
        legends = [layer["encoding"]["color"].get("legend") for layer in chart["layer"]]
        assert any(isinstance(legend, dict) and legend.get("orient") == "top" for legend in legends)
    captions = [c.value for c in at.caption]
    assert any("q \\cdot k / \\sqrt{d_k}" in c for c in captions)
    assert sum(("scores, not weights" in c) or ("重みではなくスコア" in c) for c in captions) == 1


def test_the_sentence_and_its_vectors_come_before_their_scores(lang):
    at = open_page(PAGE, lang, folds=True)
    text = all_text(at)
    assert "example B" not in text and "例文 B" not in text
    vectors = at.dataframe[VECTORS].value
    assert vectors.shape == (6, 4)
    np.testing.assert_allclose(vectors.iloc[:, 1:].astype(float).to_numpy(), DECODER.vectors)
    order = flat(at.main)
    tables = [i for i, (kind, _) in enumerate(order) if kind == "dataframe"]
    charts = [i for i, (kind, _) in enumerate(order) if kind == "vega_lite_chart"]
    assert tables[VECTORS] < charts[BEFORE]
    # the mask's polarity and the KV cache are said in words
    if lang == "en":
        assert "This course draws 1 for “may see”" in text and "KV cache" in text
    else:
        assert "この講座では 1 を「見てよい」" in text and "KV キャッシュ" in text


def test_each_chart_sits_above_its_controls(lang):
    at = open_page(PAGE, lang, folds=True)
    order = flat(at.main)
    charts = [i for i, (kind, _) in enumerate(order) if kind == "vega_lite_chart"]
    widget = {key: i for i, (_, key) in enumerate(order) if key}
    assert charts[LEAK] < widget["cm_fill"] < charts[BARS]
    assert charts[BARS] < widget["cm_query"] < widget["cm_mask"] < widget["cm_window"] < widget["cm_temp"]
    assert widget["cm_temp"] < charts[FULL_MAP]
    # the step-by-step table is folded away
    steps = [e for e in at.expander if e.label.startswith(("Inside the computation", "計算の中身"))]
    assert len(steps) == 1 and len(steps[0].get("dataframe")) == 1


def test_english_numbers_agree_with_their_nouns():
    at = open_page(PAGE, "en")
    for kind, window in (("window", 1), ("window", 2), ("none", 3), ("causal", 3)):
        at.radio(key="cm_mask").set_value(KINDS[kind])
        at.slider(key="cm_window").set_value(window)
        for query in (0, 1, len(PRONOUN.tokens) - 1):
            at.selectbox(key="cm_query").set_value(query).run()
            text = all_text(at)
            # "1 tokens" is wrong; "window − 1 tokens" (an expression) is fine
            wrong = re.search(
                r"(?<![−-] )(?<![\d.])1 (tokens|keys|questions|components|weights|positions)\b", text
            )
            assert wrong is None, wrong


@pytest.mark.parametrize("temperature", [0.1, 5.0])
def test_widgets_at_their_extremes(lang, temperature):
    at = open_page(PAGE, lang, folds=True)
    at.slider(key="cm_temp").set_value(temperature)
    for fill in (FILLS[0], FILLS[-1]):
        at.radio(key="cm_fill").set_value(fill)
        for kind, window in (("causal", 1), ("none", 1), ("window", 1), ("window", 10)):
            at.radio(key="cm_mask").set_value(KINDS[kind])
            at.slider(key="cm_window").set_value(window)
            for query in (0, len(PRONOUN.tokens) - 1):
                at.selectbox(key="cm_query").set_value(query).run()
                assert_clean(at)
                assert abs(chart_frames(at)[BARS]["value"].sum() - 1.0) < 1e-9


def test_every_query_token_renders(lang):
    at = open_page(PAGE, lang, folds=True)
    for i in range(len(PRONOUN.tokens)):
        at.selectbox(key="cm_query").set_value(i).run()
        assert_clean(at)
        bars = chart_frames(at)[BARS]["value"].to_numpy()
        assert np.all(bars[i + 1 :] == 0.0)


def test_quiz_right_and_wrong(lang):
    at = open_page(PAGE, lang)
    assert not at.session_state["progress"].quizzes
    at.radio(key="causal_mask_q2").set_value(0).run()
    assert len(at.error) == 1 and not at.success
    assert "causal_mask.q2" not in at.session_state["progress"].quizzes
    at.radio(key="causal_mask_q2").set_value(2).run()
    assert len(at.success) == 1 and not at.error
    for quiz, right in (("q1", 0), ("q3", 1)):
        at.radio(key=f"causal_mask_{quiz}").set_value(right).run()
    assert {"causal_mask.q1", "causal_mask.q2", "causal_mask.q3"} <= at.session_state["progress"].quizzes


@pytest.mark.parametrize(("lang", "label"), [("en", "sliding window"), ("ja", "スライディングウィンドウ")])
def test_state_comes_back_from_a_shared_link(lang, label):
    params = {"cm_fill": "0", "cm_query": "猫", "cm_mask": label, "cm_window": "2", "cm_temp": "2.0"}
    at = open_page(PAGE, lang, params, folds=True)
    assert at.radio(key="cm_fill").value == 0.0
    assert at.selectbox(key="cm_query").value == CAT
    assert at.radio(key="cm_mask").value == WINDOW
    assert at.slider(key="cm_window").value == 2
    assert at.slider(key="cm_temp").value == 2.0
    assert at.dataframe[SUMS].value.iloc[0, 2] == "82.0%"


@pytest.mark.parametrize(
    "params",
    [
        {"cm_fill": "<script>alert(1)</script>", "cm_query": "犬"},
        {"cm_fill": "nan", "cm_temp": "nan", "cm_mask": "maybe", "cm_window": "0"},
        {"cm_mask": "false", "cm_window": "1e9"},
        {"cm_temp": "1e308", "cm_query": "", "cm_fill": "-1e999"},
        {"cm_query": "猫" * 500, "cm_temp": "-5"},
    ],
)
def test_bad_links_fall_back_to_the_defaults(lang, params):
    at = open_page(PAGE, lang, params, folds=True)
    assert_clean(at)
    assert at.radio(key="cm_fill").value in FILLS
    assert 0.1 <= at.slider(key="cm_temp").value <= 5.0
    assert at.radio(key="cm_mask").value in (NONE, CAUSAL, WINDOW)
    assert 1 <= at.slider(key="cm_window").value <= len(PRONOUN.tokens)
    assert "<script>" not in all_text(at)


@pytest.mark.parametrize(
    ("lang", "earlier", "at_most", "leaks"),
    [
        (
            "ja",
            "レッスン 2・3 の「猫 が 魚 を 食べた …」の例では",
            "最大数",
            "−1・−10 のような 0 に近い負の数",
        ),
        (
            "en",
            "In lessons 2 and 3, the sentence 猫 が 魚 を 食べた … already ran with the causal mask",
            "At most",
            "such as −1 or −10",
        ),
    ],
)
def test_intro_window_help_and_takeaway_say_what_really_happens(lang, earlier, at_most, leaks):
    """Lessons 2 and 3 already used the mask on example C, so the intro may not
    say every token saw the whole sentence; the window is a maximum (positions
    near the start see fewer); "small negative" must mean close to 0."""
    at = open_page(PAGE, lang, folds=True)
    text = all_text(at)
    assert earlier in text and leaks in text
    assert at_most in at.slider(key="cm_window").help
    assert (
        "ここまでのアテンションでは、どのトークンも" not in text
        and "So far, every token could look" not in text
    )
