"""Fixed text that must say what is true (lessons 1-4, the glossary
and the quiz feedback). Text that depends on the controls is checked through
the pages (tests/tasks_and_statements/test_statements_*.py); this file reads the catalogs."""

import re

import pytest

from course_app import course
from course_app.glossary import TERMS
from course_app.i18n import LANGS, catalog


def test_matrix_rows_run_across_and_columns_down():
    ja, en = catalog("ja"), catalog("en")
    text = ja["glossary.matrix.short"] + ja["glossary.matrix.long"]
    assert "縦（行）" not in text and "横（列）" not in text
    assert "横に並んだ一続きを「行」" in ja["glossary.matrix.short"]
    assert "縦に並んだ一続きを「列」" in ja["glossary.matrix.short"]
    assert "1 行が一つのクエリ" in ja["glossary.matrix.long"]  # as the weight maps draw them
    assert "a row runs across, a column runs down" in en["glossary.matrix.short"]
    assert "each row belongs to one query" in en["glossary.matrix.long"]


@pytest.mark.parametrize("lang", LANGS)
def test_code_is_not_said_to_replace_minus_infinity(lang):
    text = catalog(lang)["glossary.causal_mask.long"]
    assert {
        "ja": "PyTorch のアテンションも $-\\infty$ をそのまま使い",
        "en": "PyTorch's attention add $-\\infty$ itself",
    }[lang] in text
    assert "code uses a very large negative number for" not in text
    assert "コードでは $-\\infty$ の代わりに、とても大きな負の数を使います" not in text


@pytest.mark.parametrize("lang", LANGS)
def test_w_o_mixes_heads_and_does_not_restore_the_width(lang):
    cat = catalog(lang)
    assert "w_o" in TERMS
    said = {"ja": "幅を戻すことではなく", "en": "does not restore the width"}[lang]
    assert said in cat["glossary.w_o.long"]
    for term in TERMS:
        text = cat[f"glossary.{term}.long"]
        assert "back to the width" not in text and "W_O$ で、もとの幅" not in text, term


NEW_TERMS = (
    "learning_rate",
    "feed_forward",
    "gelu",
    "adam",
    "cross_entropy",
    "rmsnorm",
    "swiglu",
    "w_o",
    "previous_token_head",
    "induction_head",
    "sliding_window",
    "online_softmax",
)


def test_the_glossary_has_the_terms_the_later_lessons_use():
    assert set(NEW_TERMS) <= set(TERMS)


@pytest.mark.parametrize("lang", LANGS)
def test_one_hot_stalls_the_path_to_w_q_and_w_k_not_all_learning(lang):
    cat = catalog(lang)
    for term in ("one_hot", "jacobian", "scaling"):
        text = cat[f"glossary.{term}.long"]
        assert "W_Q" in text and "W_K" in text, term
        assert "learning stalls" not in text and "学習が止まります。" not in text.replace(
            "その学習が止まります", ""
        ), term
    for key in ("scaling.gradient.header", "scaling.gradient.result", "scaling.intro"):
        text = cat[key]
        assert "learning stops" not in text and "学習が止まってしまい" not in text, key


@pytest.mark.parametrize("lang", LANGS)
def test_only_some_models_use_sliding_windows(lang):
    cat = catalog(lang)
    assert "Mistral 7B" in cat["glossary.long_context.long"]
    assert "Models built for very long texts use it" not in cat["causal_mask.pronoun.window_body"]
    assert (
        "とても長い文章を扱うモデルは、一部またはすべての層でこれを使います"
        not in cat["causal_mask.pronoun.window_body"]
    )
    assert "Mistral 7B" in cat["causal_mask.pronoun.window_body"]


@pytest.mark.parametrize("lang", LANGS)
def test_real_attention_is_not_said_to_divide_by_root_d_k_only(lang):
    text = catalog(lang)["attention.demo.temp_note"]
    assert "divides by √d_k only" not in text and "割るのは √d_k だけ" not in text
    assert {"ja": "GPT をはじめ多くのモデル", "en": "GPT and many other models"}[lang] in text


@pytest.mark.parametrize("lang", LANGS)
def test_a_large_weight_means_a_match_not_usefulness(lang):
    text = catalog(lang)["attention.quiz.q2.feedback"][2]
    assert "useful to this position" not in text and "この位置にとって役立つ" not in text
    assert {"ja": "よく合った", "en": "matched"}[lang] in text


@pytest.mark.parametrize("lang", LANGS)
def test_fresh_is_not_said_to_know_the_fish(lang):
    text = catalog(lang)["attention.demo.fresh"]
    assert "「新鮮なのは魚」という情報が集まります" not in text
    assert "the fresh thing is the fish” is gathered" not in text
    assert {"ja": "手で決めた", "en": "set by hand"}[lang] in text  # why 新鮮 looks at 魚


def test_scaling_q2_reads_one_way_only():
    ja, en = catalog("ja"), catalog("en")
    for text in (ja["scaling.quiz.q2.question"], en["scaling.quiz.q2.question"]):
        assert "2q" in text  # the doubled queries are named on one side of the comparison ...
        assert re.search(r"temperature 1|温度を 1", text)  # ... at temperature 1
    assert "同じ重みになる温度 $T$ は？" not in ja["scaling.quiz.q2.question"]
    assert "元のまま" in ja["scaling.quiz.q2.question"]  # ... and the original queries on the other
    assert "unchanged" in en["scaling.quiz.q2.question"]


@pytest.mark.parametrize("lang", LANGS)
def test_quiz_verdicts_are_said_once_and_plainly(lang):
    from course_app import i18n
    from course_app.page import quiz_message

    i18n._this_run.lang = lang  # what a page run in this language would set
    cat = catalog(lang)
    opening = {"ja": ("そのとおり。", "正解です。"), "en": ("Right.",)}[lang]
    for lesson in course.LESSONS:
        for q in lesson.quizzes:
            feedback = cat[f"{lesson.id}.quiz.{q.id}.feedback"]
            for i, text in enumerate(feedback):
                shown = quiz_message(i == q.answer, text)
                assert not shown.startswith(("おしい", "Not quite")), (lesson.id, q.id, i)
                assert "正解！ 正解" not in shown and "正解！ そのとおり" not in shown
                assert "Correct! Right" not in shown and "Correct! Correct" not in shown
                if i == q.answer:
                    assert shown.startswith(opening), (lesson.id, q.id)
                else:
                    assert shown.startswith(cat["ui.wrong"]), (lesson.id, q.id, i)
    i18n.forget_lang()


def test_bigram_q2_asks_for_sentences_the_page_accepts():
    ja, en = catalog("ja"), catalog("en")
    assert "何回も足した" not in ja["bigram.quiz.q2.question"]  # the page refuses a duplicate
    assert "どれも違う文" in ja["bigram.quiz.q2.question"]
    assert "many times" not in en["bigram.quiz.q2.question"]
    assert "many different sentences" in en["bigram.quiz.q2.question"]


def test_the_rows_of_zeros_and_the_embedding_axes_are_explained():
    from lesson_core.bigram import prefix_next_counts  # noqa: F401 (the corpus's own counts)
    from lessons.bigram.page import CORPUS

    last = {s[-1] for s in CORPUS} - {tok for s in CORPUS for tok in s[:-1]}
    assert "すき" in last  # すき only ever ends a sentence: its row of the count table is all zeros
    ja, en = catalog("ja"), catalog("en")
    assert "「すき」など）の行は、すべて 0 です" in ja["bigram.counts.body"]
    assert "(すき, for one) is all zeros" in en["bigram.counts.body"]
    assert "2 つの成分に名前はありません" in ja["bigram.uniform.body"]
    assert "The two components have no names" in en["bigram.uniform.body"]


LOOK_UPS = {
    "bigram": ("token", "bigram", "prefix", "embedding"),
    "scaling": ("one_hot", "temperature", "entropy"),
    "causal_mask": ("kv_cache",),
}


@pytest.mark.parametrize("lesson", sorted(LOOK_UPS))
def test_terms_a_lesson_uses_have_their_look_up_in_it(lesson):
    import ast
    from pathlib import Path

    source = (Path(__file__).resolve().parents[2] / "lessons" / lesson / "page.py").read_text(
        encoding="utf-8"
    )
    offered = set()
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Call):
            continue
        name = getattr(node.func, "id", None)
        if name == "terms":  # terms("token", ...)
            named = node.args
        elif name == "section_start":  # section_start(..., terms=("token", ...))
            named = [
                item
                for kw in node.keywords
                if kw.arg == "terms" and isinstance(kw.value, (ast.Tuple, ast.List))
                for item in kw.value.elts
            ]
        else:
            continue
        offered |= {arg.value for arg in named if isinstance(arg, ast.Constant)}
    assert set(LOOK_UPS[lesson]) <= offered, set(LOOK_UPS[lesson]) - offered
