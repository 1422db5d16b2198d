"""In English a select box of Japanese tokens shows each token with its gloss
("それ (it)"); in Japanese the bare token. The value the page reads and the
value the URL keeps stay the bare token in both languages, so a shared link
reads the same whatever the language."""

import pytest
from helpers.apptest import chart_frames, open_page

from lesson_core.examples import PRONOUN

IT = PRONOUN.index("それ")
CAT = PRONOUN.index("猫")
FISH = PRONOUN.index("魚")

# (page, select box key, an option's index, its bare label, its English label, link value)
CASES = [
    ("pages/2_attention.py", "at_query", IT, "それ", "それ (it)", "猫"),
    ("pages/4_causal_mask.py", "cm_query", IT, "それ", "それ (it)", "猫"),
    ("pages/6_multi_head.py", "mh_query", IT, "それ", "それ (it)", "猫"),
]
IDS = [key for _, key, *_ in CASES]


@pytest.mark.parametrize(("page", "key", "i", "bare", "english", "link"), CASES, ids=IDS)
def test_query_boxes_gloss_in_english_only(page, key, i, bare, english, link):
    en = open_page(page, "en")
    assert en.selectbox(key=key).options[i] == english
    ja = open_page(page, "ja")
    assert ja.selectbox(key=key).options[i] == bare
    for lang in ("en", "ja"):
        at = open_page(page, lang, {key: link})
        assert not at.exception, [e.value for e in at.exception]
        assert at.selectbox(key=key).value == CAT  # the bare token in the link chooses it
        assert at.query_params[key] == [link] or at.query_params[key] == link
        at.selectbox(key=key).set_value(FISH).run()
        assert at.selectbox(key=key).value == FISH
        assert at.query_params[key] in (["魚"], "魚"), at.query_params[key]
        at.selectbox(key=key).set_value(i).run()  # back to the default: the URL holds nothing
        assert key not in at.query_params


def test_playground_query_box_glosses_in_english():
    en = open_page("pages/9_playground.py", "en")
    ja = open_page("pages/9_playground.py", "ja")
    assert any("(" in label for label in en.selectbox(key="pg_query").options)
    assert not any("(" in label for label in ja.selectbox(key="pg_query").options)


def test_todays_llms_prompt_and_grouped_heads_gloss_in_english():
    page = "pages/8_todays_llms.py"
    en = open_page(page, "en", {"llm_prompt": "いぬ は"}, folds=True)
    box = en.selectbox(key="llm_prompt")
    assert box.value == "いぬ は" and "いぬ (dog) は (topic marker)" in box.options
    box.set_value("ねこ").run()
    assert en.query_params["llm_prompt"] in (["ねこ"], "ねこ")
    ja = open_page(page, "ja", folds=True)
    assert "いぬ は" in ja.selectbox(key="llm_prompt").options
    en_axes = {str(x) for frame in chart_frames(en) for x in frame.to_numpy().ravel()}
    ja_axes = {str(x) for frame in chart_frames(ja) for x in frame.to_numpy().ravel()}
    assert "それ (it)" in en_axes and "それ (it)" not in ja_axes


@pytest.mark.parametrize(("page", "key", "i", "bare", "english", "link"), CASES, ids=IDS)
def test_a_link_value_no_box_holds_is_removed_and_said(page, key, i, bare, english, link):
    for value in ("NOPE", english, "99", ""):  # the glossed label is what is shown, not a URL value
        at = open_page(page, "en", {key: value})
        assert not at.exception, [e.value for e in at.exception]
        assert at.selectbox(key=key).value == i
        assert key not in at.query_params, value
        assert at.toast, value
