"""Layer 3: the attention lesson through AppTest, in both languages."""

import pytest
from conftest import all_text, assert_clean, chart_frames, open_page

PAGE = "pages/2_attention.py"


def weight_column(at, table: int = 1) -> list[str]:
    frame = at.dataframe[table].value
    return list(frame.iloc[:, -1])


def test_defaults_show_the_seed_figures(lang):
    at = open_page(PAGE, lang)
    assert_clean(at)
    # Example D table: weights 4.5 / 76.8 / 18.7 % (LESSONS.md: 0.045, 0.768, 0.187)
    assert weight_column(at, 0) == ["4.5%", "76.8%", "18.7%"]
    # Example C, query それ: 猫 18.8 %, 魚 65.7 %, それ 3.7 %; right of それ exactly 0
    weights = weight_column(at, 1)
    assert (weights[0], weights[2], weights[6]) == ("18.8%", "65.7%", "3.7%")
    assert weights[7:] == ["0.0%"] * 3
    assert "[1.23, 2.01, 0.18, 0.12]" in all_text(at)


def test_english_glosses_tokens_and_japanese_does_not():
    en, ja = open_page(PAGE, "en"), open_page(PAGE, "ja")
    assert chart_frames(en)[0]["label"][0] == "猫 (cat)"
    assert chart_frames(ja)[0]["label"][0] == "猫"
    # the query token is the same word in both languages, so a shared link works in either
    assert en.selectbox(key="at_query").options == ja.selectbox(key="at_query").options
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
    at = open_page(PAGE)
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
        at.slider(key=f"at_q_{axis}").set_value(value)
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


def test_task_cat_top_is_ticked_live_and_saved_in_the_url():
    at = open_page(PAGE)
    assert "attention.cat_top" not in at.session_state["progress"].tasks
    at.slider(key="at_q_food").set_value(0.0)
    at.slider(key="at_q_animal").set_value(3.0).run()
    assert "attention.cat_top" in at.session_state["progress"].tasks
    assert at.query_params["p"].startswith("at.1")
    # once done it stays done, even after moving the sliders back
    at.slider(key="at_q_food").set_value(1.5).run()
    assert "attention.cat_top" in at.session_state["progress"].tasks


def test_sharpen_and_unmask_tasks():
    at = open_page(PAGE)
    at.slider(key="at_temp").set_value(0.2).run()
    assert "attention.sharpen" in at.session_state["progress"].tasks
    at.toggle(key="at_mask").set_value(False)
    at.selectbox(key="at_query").set_value(0).run()
    assert "attention.unmask_cat" in at.session_state["progress"].tasks


def test_quiz_feedback_right_and_wrong(lang):
    at = open_page(PAGE, lang)
    at.radio(key="attention_q1").set_value(0).run()
    assert len(at.error) == 1 and not at.success
    assert "attention.q1" not in at.session_state["progress"].quizzes
    at.radio(key="attention_q1").set_value(1).run()
    assert len(at.success) == 1 and not at.error
    assert "attention.q1" in at.session_state["progress"].quizzes


def test_state_comes_back_from_a_shared_link():
    at = open_page(PAGE, "en", {"at_query": "猫", "at_mask": "false", "at_temp": "2.0"})
    assert at.selectbox(key="at_query").value == 0
    assert at.toggle(key="at_mask").value is False
    assert at.slider(key="at_temp").value == 2.0
    assert not chart_frames(at)[1]["masked"].any()
