"""Layer 3: the attention lesson through AppTest, in both languages."""

import pytest
from helpers.apptest import all_text, assert_clean, chart_frames, open_page

PAGE = "pages/2_attention.py"


GOAL, TOY_TABLE, ROW_TABLE, MAP_TABLE = 0, 1, 2, 3  # the page's tables, in order


def weight_column(at, table: int = ROW_TABLE) -> list[str]:
    frame = at.dataframe[table].value
    return list(frame.iloc[:, -1])


def test_defaults_show_the_seed_figures(lang):
    at = open_page(PAGE, lang, folds=True)
    assert_clean(at)
    # Example D table: weights 4.5 / 76.8 / 18.7 % (0.045, 0.768, 0.187)
    assert weight_column(at, TOY_TABLE) == ["4.5%", "76.8%", "18.7%"]
    # Example C, query それ: 猫 18.8 %, 魚 65.7 %, それ 3.7 %; right of それ exactly 0
    weights = weight_column(at, ROW_TABLE)
    assert (weights[0], weights[2], weights[6]) == ("18.8%", "65.7%", "3.7%")
    assert weights[7:] == ["0.0%"] * 3
    assert "[1.23, 2.01, 0.18, 0.12]" in all_text(at)
    # the goal comes first: the weights we want for すき, ひるね the largest
    assert list(at.dataframe[GOAL].value.iloc[:, 1]) == ["20%", "3%", "60%", "5%", "12%"]


def test_english_glosses_tokens_and_japanese_does_not():
    en, ja = open_page(PAGE, "en", folds=True), open_page(PAGE, "ja", folds=True)
    assert chart_frames(en)[0]["label"][0] == "猫 (cat)"
    assert chart_frames(ja)[0]["label"][0] == "猫"
    # the map's rows and columns carry the gloss too, and so does the table of the whole map
    cells = chart_frames(en)[1]
    assert cells["row"].iloc[0] == "猫 (cat)" and "新鮮 (fresh)" in set(cells["col"])
    assert "新鮮 (fresh)" in list(en.dataframe[MAP_TABLE].value.columns)
    assert chart_frames(ja)[1]["col"].iloc[0] == "猫"
    # the query box glosses its tokens in English; the URL keeps the bare token in
    # both languages (tests/pages/test_glossed_choices.py), so a shared link works in either
    assert en.selectbox(key="at_query").options[0] == "猫 (cat)"
    assert ja.selectbox(key="at_query").options[0] == "猫"
    assert en.header[0].value != ja.header[0].value


def test_bar_chart_follows_the_chosen_query():
    at = open_page(PAGE)
    at.selectbox(key="at_query").set_value(0).run()  # 猫 with the mask: sees only itself
    bars = chart_frames(at)[0]
    assert list(bars["value"].round(6)) == [1.0] + [0.0] * 9
    at.toggle(key="at_mask").set_value(False).run()
    bars = chart_frames(at)[0].set_index("label")["value"]
    assert set(bars.nlargest(2).index) == {"魚", "食べた"}


def test_heatmap_marks_masked_cells():
    at = open_page(PAGE, folds=True)
    cells = chart_frames(at)[1]
    assert len(cells) == 100
    masked = cells[cells["masked"]]
    assert len(masked) == 45 and (masked["col_i"] > masked["row_i"]).all()
    assert (masked["text"] == "—").all()
    at.toggle(key="at_mask").set_value(False).run()
    assert not chart_frames(at)[1]["masked"].any()


@pytest.mark.parametrize("value", [-3.0, 3.0])
def test_sliders_at_their_extremes(lang, value):
    at = open_page(PAGE, lang)
    for axis in ("animal", "food", "action", "function"):
        at.slider(key=f"at_q6_{axis}").set_value(value)
    at.slider(key="at_temp").set_value(0.1 if value < 0 else 5.0)
    at.toggle(key="at_mask").set_value(value > 0)
    at.run()
    assert_clean(at)
    bars = chart_frames(at)[0]
    assert abs(bars["value"].sum() - 1.0) < 1e-9


def test_every_query_token_renders(lang):
    at = open_page(PAGE, lang)
    for i in range(10):
        at.selectbox(key="at_query").set_value(i).run()
        assert_clean(at)


def test_task_equal_is_ticked_live_and_saved_in_the_url():
    at = open_page(PAGE)
    assert "attention.equal" not in at.session_state["progress"].tasks
    # 猫's score 3a/2 equals 魚's (a + 3f)/2 when a = 1.5 f
    at.slider(key="at_q6_animal").set_value(1.5)
    at.slider(key="at_q6_food").set_value(1.0).run()
    assert "attention.equal" in at.session_state["progress"].tasks
    assert at.query_params["p"].startswith("at.1")
    # once done it stays done, even after moving the sliders back
    at.slider(key="at_q6_food").set_value(1.5).run()
    assert "attention.equal" in at.session_state["progress"].tasks


def test_the_whole_default_map_is_the_worked_one():
    at = open_page(PAGE, "en", folds=True)
    table = at.dataframe[MAP_TABLE].value
    fresh = table.iloc[8].tolist()
    assert fresh[1:] == ["3.1", "3.1", "61.7", "3.1", "5.1", "3.1", "4.1", "3.1", "13.8", "—"]
    last = table.iloc[9].tolist()[1:]
    assert last == ["7.9", "3.7", "45.2", "3.7", "11.4", "3.7", "5.0", "3.7", "11.4", "4.2"]
    assert "61.7%" in all_text(at)  # 新鮮 gathers 魚: "the fresh thing is the fish"


def test_sliders_edit_the_chosen_query_and_keep_every_edit():
    at = open_page(PAGE, "en")
    at.slider(key="at_q6_animal").set_value(3.0).run()  # それ's query
    at.selectbox(key="at_query").set_value(0)  # 猫, without the mask so that it sees the others
    at.toggle(key="at_mask").set_value(False).run()
    sliders = {s.key: s.value for s in at.slider if s.key.startswith("at_q")}
    assert sliders == {"at_q0_animal": 0.0, "at_q0_food": 1.0, "at_q0_action": 1.0, "at_q0_function": 0.0}
    assert "猫 (cat)" in " ".join(m.value for m in at.markdown)
    before = chart_frames(at)[0]["value"].to_numpy()
    at.slider(key="at_q0_food").set_value(-3.0).run()
    after = chart_frames(at)[0]["value"].to_numpy()
    assert abs(after - before).max() > 0.1
    assert at.query_params["at_q0"] == "0,-3,1,0"
    # back to それ: its own edit is still there, and 猫's stays in the URL
    at.selectbox(key="at_query").set_value(6).run()
    assert at.slider(key="at_q6_animal").value == 3.0 and at.slider(key="at_q6_food").value == 1.5
    assert at.query_params["at_q6"] == "3,1.5,0,-1" and at.query_params["at_q0"] == "0,-3,1,0"
    # moving それ back to its default removes it from the URL
    at.slider(key="at_q6_animal").set_value(1.0).run()
    assert "at_q6" not in at.query_params


def test_edited_queries_come_back_from_a_link_and_bad_values_are_dropped():
    params = {"at_query": "猫", "at_q0": "0,-3,1,0", "at_q3": "nan,1,1,1", "at_q4": "x", "at_q5": "1,2"}
    at = open_page(PAGE, "en", params)
    assert_clean(at)
    assert at.slider(key="at_q0_food").value == -3.0
    assert not any(k in at.query_params for k in ("at_q3", "at_q4", "at_q5"))


def test_the_chosen_query_row_is_outlined_in_the_map():
    at = open_page(PAGE, folds=True)
    cells = chart_frames(at)[1]
    assert set(cells.loc[cells["chosen"], "row_i"]) == {6}
    at.selectbox(key="at_query").set_value(8).run()
    cells = chart_frames(at)[1]
    assert set(cells.loc[cells["chosen"], "row_i"]) == {8}
    spec = at.get("vega_lite_chart")[1].proto.spec
    assert '"datum.chosen"' in spec


def test_unmask_and_choose_cat():
    at = open_page(PAGE)
    at.toggle(key="at_mask").set_value(False)
    at.selectbox(key="at_query").set_value(0).run()
    bars = chart_frames(at)[0].set_index("label")["value"]
    assert set(bars.nlargest(2).index) == {"魚", "食べた"}


def test_quiz_feedback_right_and_wrong(lang):
    at = open_page(PAGE, lang)
    at.radio(key="attention_q1").set_value(0).run()
    assert len(at.error) == 1 and not at.success
    assert "attention.q1" not in at.session_state["progress"].quizzes
    at.radio(key="attention_q1").set_value(1).run()
    assert len(at.success) == 1 and not at.error
    assert "attention.q1" in at.session_state["progress"].quizzes


def test_state_comes_back_from_a_shared_link():
    at = open_page(PAGE, "en", {"at_query": "猫", "at_mask": "false", "at_temp": "2.0"}, folds=True)
    assert at.selectbox(key="at_query").value == 0
    assert at.toggle(key="at_mask").value is False
    assert at.slider(key="at_temp").value == 2.0
    assert not chart_frames(at)[1]["masked"].any()


def test_worked_arithmetic_is_on_the_page(lang):
    at = open_page(PAGE, lang, folds=True)
    text = all_text(at)
    # by hand, rounding the scaled scores first: 76.9 % / 18.6 %; the table: 76.8 % / 18.7 %
    assert "76.9%" in text and "18.6%" in text and "2.8284" in text
    formulas = " ".join(e.value for e in at.get("latex"))
    assert r"y_{1} &= 2 \times 0.5 + 1 \times 1 = 2" in formulas
    assert r"y_{2} &= 2 \times 1 + 1 \times 2 = 4" in formulas
    assert r"e^{2.83} &\approx 16.95" in formulas and "= 22.05" in formulas
    # Q = K = V: すき gives itself 26.3 %; W_Q and W_K give it two different vectors
    assert "26.3%" in text
    assert "[0.44, 1.23]" in text and "[1.23, 0.70]" in text


def test_one_visible_key_gets_exactly_100_percent_in_the_quiz_feedback(lang):
    at = open_page(PAGE, lang)
    at.radio(key="attention_q1").set_value(2).run()
    assert "100 %" in at.error[0].value


@pytest.mark.parametrize(("lang", "key_word"), [("ja", "キー"), ("en", "key")], ids=["ja", "en"])
def test_right_answers_say_the_same_in_both_languages(lang, key_word):
    from course_app.course import BY_ID
    from course_app.i18n import catalog

    lesson, cat = BY_ID["attention"], catalog(lang)
    match = cat["attention.quiz.q2.options"][lesson.quiz("q2").answer]
    assert "魚" in match and key_word in match  # a weight is a query-key match
    columns = cat["attention.quiz.q3.options"][lesson.quiz("q3").answer]
    assert "魚" in columns  # a column can sum to more than 1


def test_rounding_note_names_the_score_whose_rounding_moves_the_weights(lang):
    """Rounding only 魚's scaled score (2.8284… → 2.83) leaves 魚 at 76.8 %;
    rounding それ's (1.4142… → 1.41) is what moves it to 76.9 %, so the note
    must name それ's exact score too."""
    at = open_page(PAGE, lang, folds=True)
    note = next(e.value for e in at.markdown if "2.8284" in e.value)
    assert "1.4142" in note and "1.41" in note.replace("1.4142", "")


def test_scaled_column_says_the_temperature_divides_too(lang):
    """The explorer's table holds score / (√d_k · T) + M, so its header names T."""
    at = open_page(PAGE, lang, {"at_temp": "2.0"}, folds=True)
    header = str(at.dataframe[ROW_TABLE].value.columns[3])
    assert "√d_k" in header and "T" in header.replace("√d_k", "")


@pytest.mark.parametrize(("lang", "says_mask_on"), [("ja", "因果マスクはオン"), ("en", "causal mask is on")])
def test_sentence_demo_says_the_mask_is_on_and_keys_are_values(lang, says_mask_on):
    at = open_page(PAGE, lang)
    # the demo's body (the lesson's introduction quotes the same sentence, without the mask)
    body = next(
        e.value for e in at.markdown if "魚" in e.value and "食べた" in e.value and says_mask_on in e.value
    )
    assert ("キーとバリューを兼ねます" if lang == "ja" else "both its key and its value") in body


def test_quiz_q2_facts_hold_on_the_default_map():
    """q2: だった's largest weight is on 魚, yet other rows rank the keys
    differently (。 puts 食べた first, 猫 sees only itself); worked out here
    with plain NumPy from example C, causal mask on, d_k = 4."""
    import numpy as np

    from lesson_core.examples import PRONOUN

    q, k = np.asarray(PRONOUN.queries), np.asarray(PRONOUN.vectors)
    s = q @ k.T / np.sqrt(k.shape[1])
    s[np.triu(np.ones_like(s, dtype=bool), k=1)] = -np.inf
    w = np.exp(s - s.max(axis=1, keepdims=True))
    w /= w.sum(axis=1, keepdims=True)
    top = [PRONOUN.tokens[i] for i in w.argmax(axis=1)]
    assert top[PRONOUN.index("だった")] == "魚"
    assert top[PRONOUN.index("。")] == "食べた" and w[0, 0] == 1.0


def test_weights_map_column_labels_stand_upright_on_a_phone():
    """Ten flat column labels overlap in a phone's 358 px: the weights map turns
    them upright when the chart is narrow (and keeps them flat on a laptop)."""
    angles = map_column_angles(open_page("pages/2_attention.py", "ja", folds=True))
    assert angles and all(a == {"expr": "width < 480 ? -90 : 0"} for a in angles), angles


def map_column_angles(at) -> list:
    """The column labels' angle of every weights map on the page."""
    import json

    return [
        layer["encoding"]["x"]["axis"]["labelAngle"]
        for chart in at.get("vega_lite_chart")
        for layer in json.loads(chart.proto.spec).get("layer", [])
        if layer.get("encoding", {}).get("x", {}).get("field") == "col"
    ]


def test_glossed_column_labels_stand_upright_on_a_phone_only_when_there_are_many():
    """Ten glossed (English) labels slanted overlap on a phone, so they stand
    upright there; a map of a few tokens (the KV cache's first steps) keeps them
    slanted, which reads better than sideways text."""
    ten = map_column_angles(open_page("pages/2_attention.py", "en", folds=True))
    assert ten and all(a == {"expr": "width < 480 ? -90 : -40"} for a in ten), ten
    few = map_column_angles(open_page("pages/8_todays_llms.py", "en"))  # its maps: 3 tokens at first
    assert few and all(a == -40 for a in few), few
