"""Layer 3: the bigram lesson through AppTest, in both languages."""

import itertools
import re
from collections import Counter

import pytest
from helpers.apptest import all_text, assert_clean, chart_frames, open_page

from course_app import session
from course_app.i18n import LANGS
from lesson_core.corpus_input import MAX_SENTENCES
from lesson_core.examples import CORPUS

PAGE = "pages/1_bigram.py"
FIRST, DOG, SHORT_END = "ねこ は ひるね が すき", "いぬ は さんぽ が すき", "ねこ が ひるね を する"


def pairs(sentences) -> Counter:
    """Independent recount of corpus F: (previous, next) -> count."""
    return Counter((a, b) for s in sentences for a, b in itertools.pairwise(s))


def after(sentences, prefix) -> Counter:
    """What follows the whole ``prefix``, counted directly."""
    m, found = len(prefix), Counter()
    for s in sentences:
        for i in range(len(s) - m):
            if tuple(s[i : i + m]) == tuple(prefix):
                found[s[i + m]] += 1
    return found


def bars(at) -> dict[str, dict[str, float]]:
    """The comparison chart as {series order: {bare token: probability}}."""
    frame = chart_frames(at)[1]
    out: dict[str, dict[str, float]] = {}
    for row in frame.itertuples():
        out.setdefault(("bigram", "corpus")[row.series_order], {})[row.label.split(" (")[0]] = row.value
    return out


def bare(text: str) -> str:
    """Text with the English glosses taken out: 'ねこ (cat) は (topic marker)' -> 'ねこ は'."""
    return re.sub(r" \([^)]*\)", "", text)


def task_done(at, task: str) -> bool:
    return f"bigram.{task}" in at.session_state["progress"].tasks


def add(at, text: str):
    at.text_input(key="bg_new").input(text)
    return at.button(key="bg_add").click().run()


def test_defaults_show_the_blind_spot(lang):
    at = open_page(PAGE, lang, folds=True)
    assert_clean(at)
    counts = pairs(CORPUS)
    wa = {b: n for (a, b), n in counts.items() if a == "は"}
    assert sum(wa.values()) == 11 and wa["いぬ"] == 2
    got = bars(at)
    # the bigram after は: いぬ 2/11, nine other tokens 1/11 each (zero bars are not drawn as text)
    assert {k: round(v, 6) for k, v in got["bigram"].items() if v > 0} == {
        b: round(n / 11, 6) for b, n in wa.items()
    }
    assert {k for k, v in got["corpus"].items() if v > 0} == set(after(CORPUS, ["ねこ", "は"]))
    assert all(abs(v - 0.25) < 1e-9 for v in got["corpus"].values() if v > 0)
    # the は-prefix table: the bigram column is one and the same row; TV 7/11, 7/11, 8/11, 9/11
    table = at.dataframe[1].value
    assert [bare(p) for p in table.iloc[:, 0]] == ["ねこ は", "いぬ は", "わたし は", "きょう は"]
    assert table.iloc[:, 3].nunique() == 1
    assert list(table.iloc[:, 1]) == ["63.6%", "63.6%", "72.7%", "81.8%"]
    text = all_text(at)
    assert "**0.0%**" in text and "**100.0%**" in text and "**63.6%**" in text


def test_count_map_holds_every_pair(lang):
    at = open_page(PAGE, lang, folds=True)
    cells = chart_frames(at)[0]
    vocab = list(dict.fromkeys(tok for s in CORPUS for tok in s))
    assert len(cells) == len(vocab) ** 2 == 21**2
    counts = pairs(CORPUS)
    for cell in cells.itertuples():
        assert cell.text == str(counts[(vocab[cell.row_i], bare(cell.col))])
    wa_row = cells[cells["row_i"] == vocab.index("は")]
    assert abs(wa_row["value"].sum() - 1.0) < 1e-9  # the shade is the share of the row
    assert [bare(c) for c in cells.loc[cells["text"] == "10", "col"]] == ["すき"]  # が -> すき, 10 times


def test_english_glosses_and_japanese_does_not():
    en, ja = open_page(PAGE, "en", folds=True), open_page(PAGE, "ja", folds=True)
    assert chart_frames(en)[0]["row"][0] == "ねこ (cat)" and chart_frames(ja)[0]["row"][0] == "ねこ"
    # both axes of the count map, the corpus table, the prefix table and the average map
    assert chart_frames(en)[0]["col"][0] == "ねこ (cat)" and chart_frames(ja)[0]["col"][0] == "ねこ"
    corpus = en.dataframe[0].value
    assert corpus.iloc[0, 1] == "ねこ (cat) は (topic marker) ひるね (nap) が (subject marker) すき (like)"
    assert len(ja.dataframe[0].value.columns) == 3  # no gloss column in Japanese
    assert en.dataframe[1].value.iloc[0, 0] == "ねこ (cat) は (topic marker)"
    assert "(" in en.dataframe[1].value.iloc[0, 3]  # the bigram's guesses glossed too
    assert chart_frames(en)[-1]["col"][0] == "ねこ (cat)"
    legend = set(chart_frames(en)[1]["series"])
    assert "bigram (sees only は (topic marker))" in legend
    # the sentence options are bare tokens, so a shared link works in either language
    assert en.selectbox(key="bg_sentence").options == ja.selectbox(key="bg_sentence").options


@pytest.mark.parametrize("sentence", [" ".join(s) for s in CORPUS])
def test_every_sentence_at_both_ends_of_the_slider(sentence):
    at = open_page(PAGE, "en", folds=True)
    at.selectbox(key="bg_sentence").set_value(sentence).run()
    slider = at.slider(key="bg_read")
    assert (slider.min, slider.max) == (1, len(sentence.split()) - 1)
    for read in (int(slider.min), int(slider.max)):
        at.slider(key="bg_read").set_value(read).run()
        assert_clean(at)
        prefix = sentence.split()[:read]
        expected = after(CORPUS, prefix)
        got = {k: v for k, v in bars(at)["corpus"].items() if v > 0}
        total = sum(expected.values())
        assert got == pytest.approx({k: n / total for k, n in expected.items()})
    # read = 1: a one-token prefix is exactly what the bigram sees, so they agree
    at.slider(key="bg_read").set_value(1).run()
    assert len(at.success) >= 1 and "0.0%" in all_text(at)


def test_slider_at_its_end_reads_the_whole_prefix(lang):
    at = open_page(PAGE, lang, folds=True)
    at.slider(key="bg_read").set_value(4).run()  # ねこ は ひるね が -> ?
    got = bars(at)
    gas = {b: n for (a, b), n in pairs(CORPUS).items() if a == "が"}
    assert got["bigram"]["すき"] == pytest.approx(gas["すき"] / sum(gas.values()))  # 10 / 12
    assert got["corpus"]["すき"] == 1.0
    assert "**16.7%**" in all_text(at)  # TV = 1 − 10/12


def test_task_t1_another_prefix_ending_in_wa(lang):
    at = open_page(PAGE, lang, folds=True)
    assert not task_done(at, "t1")
    before = bars(at)["bigram"]
    at.selectbox(key="bg_sentence").set_value(DOG).run()
    assert task_done(at, "t1")
    got = bars(at)
    assert {k for k, v in got["corpus"].items() if v > 0} == {"さんぽ", "ボール", "ほね", "はしる"}
    assert {k: v for k, v in got["bigram"].items() if v > 0} == {k: v for k, v in before.items() if v > 0}


def test_task_t1_is_not_ticked_by_nekowa_again_or_a_longer_prefix():
    at = open_page(PAGE, "en")
    at.selectbox(key="bg_sentence").set_value("ねこ は さかな が すき").run()  # ねこ は once more
    assert not task_done(at, "t1")
    at.slider(key="bg_read").set_value(3).run()  # ends in さかな, not は
    assert not task_done(at, "t1")
    at.selectbox(key="bg_sentence").set_value("わたし は ねこ が すき")
    at.slider(key="bg_read").set_value(2).run()
    assert task_done(at, "t1")


def test_task_t2_add_a_sentence_changes_the_wa_row(lang):
    at = open_page(PAGE, lang, folds=True)
    add(at, "ねこ は ミルク が すき")
    assert_clean(at)
    assert at.session_state["bg_added"] == ["ねこ は ミルク が すき"]
    assert task_done(at, "t2") and len(at.success) >= 1
    assert at.text_input(key="bg_new").value == ""
    cells = chart_frames(at)[0]
    assert cells[(cells["row"].str.split(" ").str[0] == "は") & (cells["col"] == "ミルク")][
        "text"
    ].tolist() == ["1"]
    # は is now followed 12 times (いぬ 2/12), and ねこ は by five objects (1/5 each)
    row = at.dataframe[1].value.iloc[0]
    assert bare(row.iloc[3]).startswith("いぬ 16.7%") and bare(row.iloc[2]).startswith("ひるね 20.0%")
    # a sentence without は does not tick it
    fresh = open_page(PAGE, lang, folds=True)
    add(fresh, "ねこ が ミルク を のむ")
    assert fresh.session_state["bg_added"] == ["ねこ が ミルク を のむ"]
    assert not task_done(fresh, "t2")


def test_task_t3_agreement(lang):
    at = open_page(PAGE, lang)
    at.selectbox(key="bg_sentence").set_value(SHORT_END).run()
    at.slider(key="bg_read").set_value(4).run()  # ねこ が ひるね を -> する, like every を
    assert task_done(at, "t3")
    assert "**0.0%**" in all_text(at)


def test_one_token_prefix_does_not_count_for_t3():
    at = open_page(PAGE)
    at.slider(key="bg_read").set_value(1).run()
    assert not task_done(at, "t3")


@pytest.mark.parametrize(
    "text",
    [
        "",
        "   \u3000  ",
        "ねこ",
        " ".join(["ねこ"] * 500),
        " ".join(["ね"] * 40),
        "ねこ は " + "あ" * 40,
        "ねこ は\x07 すき",
        FIRST,
    ],
    ids=[
        "empty",
        "spaces",
        "one_token",
        "500_tokens",
        "40_tokens",
        "long_token",
        "control_char",
        "duplicate",
    ],
)
def test_bad_input_is_explained_and_nothing_is_lost(lang, text):
    at = open_page(PAGE, lang, folds=True)
    add(at, text)
    assert_clean(at)
    assert len(at.warning) == 1
    assert at.session_state["bg_added"] == []
    assert at.text_input(key="bg_new").value == text  # the learner's text stays for fixing
    assert len(at.dataframe[0].value) == len(CORPUS)


def test_html_and_markdown_stay_plain_text():
    at = open_page(PAGE, "en", folds=True)
    nasty = "<b>x</b> **y** :red[z] $w$"
    add(at, nasty)
    assert_clean(at)
    assert at.session_state["bg_added"] == [nasty]
    assert at.dataframe[0].value.iloc[-1, 0] == nasty  # shown as typed, in a table
    at.selectbox(key="bg_sentence").set_value(nasty).run()
    assert_clean(at)
    text = all_text(at)
    assert r"\<b\>x\<\/b\> \*\*y\*\*" in text  # escaped wherever it enters a sentence
    assert "<b>" not in text.replace(r"\<b\>", "")
    assert set(bars(at)["corpus"]) == {":red[z]"}  # chart labels are text, not markdown


def test_remove_and_survive_a_page_switch(lang):
    at = open_page(PAGE, lang, folds=True)
    add(at, "ねこ は ミルク が すき")
    add(at, "いぬ は ごはん が すき")
    at.switch_page("pages/2_attention.py").run()
    at.switch_page(PAGE).run()
    assert at.session_state["bg_added"] == ["ねこ は ミルク が すき", "いぬ は ごはん が すき"]
    assert len(at.dataframe[0].value) == len(CORPUS) + 2
    at.selectbox(key="bg_remove_pick").set_value("ねこ は ミルク が すき")
    at.button(key="bg_remove").click().run()
    assert_clean(at)
    assert at.session_state["bg_added"] == ["いぬ は ごはん が すき"]
    assert len(at.dataframe[0].value) == len(CORPUS) + 1
    at.button(key="bg_remove").click().run()
    assert at.session_state["bg_added"] == []
    assert not at.get("button") or "bg_remove" not in [b.key for b in at.button]


def test_the_corpus_is_full_at_the_limit():
    at = open_page(PAGE, folds=True)
    at.session_state["bg_added"] = [f"ねこ は もの{i} が すき" for i in range(MAX_SENTENCES)]
    at.run()
    assert_clean(at)
    assert len(at.dataframe[0].value) == len(CORPUS) + MAX_SENTENCES
    add(at, "ねこ は ミルク が すき")
    assert len(at.warning) == 1 and len(at.session_state["bg_added"]) == MAX_SENTENCES
    # 71 tokens: the count map keeps the 30 most frequent and says so
    assert len(chart_frames(at)[0]) == 30 * 30
    assert any("30" in c.value for c in at.caption)


def test_a_two_token_sentence_has_one_prefix():
    at = open_page(PAGE, folds=True)
    add(at, "ねこ ねる")
    at.selectbox(key="bg_sentence").set_value("ねこ ねる").run()
    assert_clean(at)
    assert not at.get("slider")
    assert {k for k, v in bars(at)["corpus"].items() if v > 0} == set(
        after([*CORPUS, ("ねこ", "ねる")], ["ねこ"])
    )


def test_state_comes_back_from_a_shared_link():
    at = open_page(PAGE, "en", {"bg_sentence": DOG, "bg_read": "2"})
    assert at.selectbox(key="bg_sentence").value == DOG
    assert not task_done(at, "t1")  # the view comes back, not the sharer's task


def test_a_tampered_link_falls_back_to_the_default():
    at = open_page(PAGE, "ja", {"bg_sentence": "<script>alert(1)</script>", "bg_read": "999"})
    assert_clean(at)
    assert at.selectbox(key="bg_sentence").value == FIRST
    assert 1 <= at.slider(key="bg_read").value <= 4


def test_quiz_feedback_right_and_wrong(lang):
    at = open_page(PAGE, lang)
    at.radio(key="bigram_q1").set_value(0).run()
    assert len(at.error) == 1
    assert "bigram.q1" not in at.session_state["progress"].quizzes
    at.radio(key="bigram_q1").set_value(1).run()
    assert not at.error
    assert "bigram.q1" in at.session_state["progress"].quizzes
    at.radio(key="bigram_q2").set_value(1)
    at.radio(key="bigram_q3").set_value(2).run()
    assert {"bigram.q2", "bigram.q3"} <= at.session_state["progress"].quizzes


def test_uniform_average_of_example_a(lang):
    at = open_page(PAGE, lang, folds=True)
    weights = at.dataframe[2].value
    assert list(weights.iloc[:, 2]) == ["20.0%"] * 5
    cells = chart_frames(at)[-1]
    assert len(cells) == 25 and (cells["value"] == 0.2).all()
    # mean of the five embeddings: (0.90 + 0.10 + 0.95 + 0.12 + 0.88) / 5 = 0.59, (…) / 5 = 0.37
    text = all_text(at)
    assert "**[0.59, 0.37]**" in text and "[0.91, 0.57]" in text
    # every position averages the whole sentence: said plainly; ひるね 20 %, the particles 40 %
    assert "20.0%" in text and "40.0%" in text


def test_english_number_grammar_for_a_one_token_prefix():
    at = open_page(PAGE, "en")
    at.slider(key="bg_read").set_value(1).run()
    text = all_text(at)
    assert "1-token prefix" in text and "1 tokens" not in text


def test_the_corpus_table_is_folded_away_and_counts_added_sentences():
    at = open_page(PAGE, "en", folds=True)
    assert at.expander[0].label == "All 14 sentences of the corpus"
    assert len(at.expander[0].dataframe) == 1
    add(at, "ねこ は ミルク が すき")
    assert at.expander[0].label == "All 15 sentences of the corpus"


@pytest.mark.parametrize("lang", LANGS)
def test_q2_transfer_answer_is_ball_in_both_languages(lang):
    from course_app.course import BY_ID
    from course_app.i18n import catalog

    options = catalog(lang)["bigram.quiz.q2.options"]
    assert options[BY_ID["bigram"].quiz("q2").answer].startswith("ボール")


@pytest.mark.parametrize(
    ("lang", "many_times", "one_of", "same_weight"),
    [
        ("ja", "どれも違う文", "ごく素朴なやり方の一つ", "どのトークンも同じ重さ"),
        (
            "en",
            "many different sentences in which ボール (ball) follows は",
            "One of the simplest",
            "every token counts the same",
        ),
    ],
)
def test_quiz_and_intro_wording_is_unambiguous(lang, many_times, one_of, same_weight):
    """q2 adds many different sentences, named (the page refuses one sentence twice);
    the bigram is one of the simplest models, not the simplest; the cost option
    of q3 is answered by the real problem, equal weights."""
    at = open_page(PAGE, lang)
    assert many_times in at.radio(key="bigram_q2").label
    assert one_of in all_text(at)
    at.radio(key="bigram_q3").set_value(1).run()
    assert len(at.error) == 1 and same_weight in at.error[0].value


@pytest.mark.parametrize("lang", LANGS)
def test_a_shorter_sentence_brings_the_tokens_read_back_into_range(lang):
    """Reading 5 tokens of a six-token sentence, then choosing a five-token one
    (at most 4 read): the slider starts again from its default, with no error
    (the server refused the old value) and no message about a bad link."""
    at = open_page("pages/1_bigram.py", lang)
    texts = at.selectbox(key="bg_sentence").options
    long = next(text for text in texts if len(text.split()) == 6)
    short = next(text for text in texts if len(text.split()) == 5)
    at.selectbox(key="bg_sentence").set_value(long).run()
    at.slider(key="bg_read").set_value(5).run()
    assert at.query_params["bg_read"] in ("5", ["5"])
    at.selectbox(key="bg_sentence").set_value(short).run()
    assert_clean(at)
    slider = at.slider(key="bg_read")
    assert (slider.value, slider.max) == (2, 4)
    assert not at.toast, [toast.value for toast in at.toast]
    assert "bg_read" not in at.query_params


def test_a_value_streamlit_refuses_starts_the_control_again(monkeypatch):
    """Behind forget_stale_value stands one more guard: if Streamlit still holds
    an out-of-range value for a control when it is drawn (here put there in the
    run itself, where the first guard would have looked), the control starts
    again from its default after one rerun instead of the learner seeing an
    error; only a second refusal in a row would be raised."""
    import streamlit as st

    from course_app import url_state

    def holds_a_stale_value(kind, spec, key):
        if key == "bg_read" and not st.session_state.get(session.retried(key)):
            st.session_state[key] = spec["max_value"] + 1

    monkeypatch.setattr(url_state, "forget_stale_value", holds_a_stale_value)
    at = open_page(PAGE, "en")
    assert_clean(at)
    slider = at.slider(key="bg_read")
    assert (slider.value, slider.max) == (2, 4)
    assert session.retried("bg_read") not in at.session_state  # ready for the next time


def test_a_tie_at_the_cut_of_a_top_list_is_kept_whole(lang):
    """After は the bigram gives いぬ 2/11 and nine tokens 1/11 each (9.1%): a list
    cut after its first 4 (or 3, in the table) would name three of the nine and
    hide six equal ones, so the whole tie is named and nothing is "more"."""
    at = open_page(PAGE, lang, folds=True)  # the lab's default prefix: ねこ は
    wa = {b for (a, b), n in pairs(CORPUS).items() if a == "は"}
    more = {"en": "more", "ja": "ほか"}[lang]
    lines = [line for m in at.markdown for line in m.value.splitlines() if "9.1%" in line]
    assert len(lines) == 2  # the blind-spot paragraph and the lab
    for line in lines:
        assert all(tok in line for tok in wa) and more not in line
        assert line.count("9.1%") == 9
    table = at.dataframe[1].value
    for cell in table.iloc[:, 3]:
        assert all(tok in cell for tok in wa) and more not in cell
