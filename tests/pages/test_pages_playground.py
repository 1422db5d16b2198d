"""The playground through AppTest: the learner's sentence, hostile text, bad cells, persistence."""

import numpy as np
import pytest
from helpers.apptest import all_text, assert_clean, chart_frames, open_folds, open_page

from course_app.i18n import LANGS
from lesson_core import causal_mask, scaled_dot_product_attention
from lesson_core.examples import PRONOUN
from lesson_core.playground import MAX_CHARS

PAGE = "pages/9_playground.py"

HOSTILE = [
    "<script>alert(1)</script>",
    "<img src=x onerror=alert(1)>",
    "**bold** _it_ [link](http://example.com) # head",
    "$\\frac{1}{0}$ \\(x\\)",
    "🐱 が 🐟 を たべた",
    "مرحبا بالعالم שלום",
    "a\x00b c",
]


def test_defaults_equal_example_c_with_q_k_v_the_vectors(lang):
    at = open_page(PAGE, lang)
    assert_clean(at)
    kv = PRONOUN.vectors
    expected = scaled_dot_product_attention(kv, kv, kv, mask=causal_mask(10)).weights[-1]
    bars = chart_frames(at)[0]
    np.testing.assert_allclose(bars["value"], expected)


@pytest.mark.parametrize("text", HOSTILE, ids=range(len(HOSTILE)))
def test_hostile_text_is_shown_as_typed(text):
    at = open_page(PAGE, "en")
    at.text_input(key="pg_sentence").input(text).run()
    assert_clean(at)
    tokens = [tok.replace("\x00", "") for tok in text.split()]
    editor_tokens = (
        list(at.get("arrow_data_frame")[0].value.iloc[:, 0]) if at.get("arrow_data_frame") else None
    )
    labels = list(chart_frames(at)[0]["label"])
    shown = [f"{i + 1} {tok}" for i, tok in enumerate(tokens)] if len(set(tokens)) < len(tokens) else tokens
    assert len(labels) == len(shown)
    for label, token in zip(labels, shown, strict=True):  # English adds a gloss to words it knows
        assert label == token or label.startswith(f"{token} (")
    assert editor_tokens is None or editor_tokens == shown


@pytest.mark.parametrize(
    "text",
    ["", "   ", " ".join(["x"] * 500)],
    ids=["empty", "spaces", "500 tokens"],
)
def test_bad_sentences_get_a_message(lang, text):
    at = open_page(PAGE, lang)
    at.text_input(key="pg_sentence").input(text).run()
    assert_clean(at)
    assert len(at.warning) == 1
    assert not at.get("vega_lite_chart")


def test_ten_thousand_characters_are_refused_with_a_message(lang):
    at = open_page(PAGE, lang)
    at.text_input(key="pg_sentence").input("y " * 5_000).run()
    assert_clean(at)
    assert at.text_input(key="pg_sentence").value == "y " * 5_000  # nothing cut silently
    (warning,) = at.warning
    assert "10000" in warning.value and str(MAX_CHARS) in warning.value
    assert not at.get("vega_lite_chart")


@pytest.mark.parametrize("lang", LANGS)
def test_removed_invisible_characters_are_reported_and_emoji_kept_whole(lang):
    at = open_page(PAGE, lang)
    family = "👨\u200d👩\u200d👧\u200d👦"
    at.text_input(key="pg_sentence").input(f"ね\u200bこ が {family} すき\u202e").run()
    assert_clean(at)
    (info,) = at.info
    assert "2" in info.value
    assert family in list(chart_frames(at)[0]["label"])


def test_one_token_per_character():
    at = open_page(PAGE, "ja")
    at.text_input(key="pg_sentence").input("ねこがすき")
    at.toggle(key="pg_chars").set_value(True).run()
    assert list(chart_frames(at)[0]["label"]) == ["ね", "こ", "が", "す", "き"]


def test_a_bad_cell_is_named_and_nothing_is_drawn():
    at = open_page(PAGE, "en")
    tokens = ("猫", "が", "魚")
    at.text_input(key="pg_sentence").input(" ".join(tokens)).run()
    at.session_state["pg_vectors"][tokens] = np.array([[1.0, 0, 0, 0], [0, np.nan, 0, 0], [0, 0, 1e9, 0]])
    at.run()
    assert not at.exception
    message = at.error[0].value
    assert "row 2" in message and "food" in message and "row 3" in message and "action" in message
    assert not at.get("vega_lite_chart")


def test_sentence_survives_a_visit_to_another_page():
    at = open_page(PAGE, "en")
    at.text_input(key="pg_sentence").input("猫 が 魚 を 食べた").run()
    at.switch_page("pages/2_attention.py").run()
    at.switch_page(PAGE).run()
    assert at.text_input(key="pg_sentence").value == "猫 が 魚 を 食べた"
    assert len(chart_frames(at)[0]) == 5


def test_controls_at_their_extremes():
    at = open_page(PAGE, "ja")
    at.slider(key="pg_temp").set_value(0.1)
    at.toggle(key="pg_mask").set_value(False)
    at.selectbox(key="pg_query").set_value(0).run()
    assert_clean(at)
    at.slider(key="pg_temp").set_value(5.0).run()
    assert_clean(at)
    assert "NaN" not in all_text(at)


def test_scores_are_shown_rounded_half_up_without_negative_zero():
    """Scaled scores of ±0.125 read ±0.13 (四捨五入, as in the attention lesson's
    hand calculation), not Python's ±0.12; a score of zero is never "−0.00"."""
    at = open_page(PAGE, "en")
    tokens = ("猫", "が", "魚")
    at.text_input(key="pg_sentence").input(" ".join(tokens)).run()
    # d = 4, so √d = 2: the query 魚 scores ∓0.25 against 猫 and 魚, ∓0.125 once scaled
    at.session_state["pg_vectors"][tokens] = np.array([[0.5, 0, 0, 0], [0, 0, 0, 0], [-0.5, 0, 0, 0]])
    at.selectbox(key="pg_query").set_value(2).run()
    open_folds(at)  # the step table is a fold
    assert_clean(at)
    steps = at.dataframe[-1].value  # token, k, q·k, scaled, weight
    assert list(steps.iloc[:, 2]) == ["−0.25", "0.00", "0.25"]
    assert list(steps.iloc[:, 3]) == ["−0.13", "0.00", "0.13"]
    assert "−0.00" not in all_text(at) and "-0.00" not in all_text(at)
