"""Folds (course_app/folds.py): a closed fold draws nothing but its label, an
open one draws its body, and it stays open while its label changes and when
the learner comes back to the page; its open state stays out of the URL."""

from helpers.apptest import all_text, open_folds, open_page

from course_app.session import fold as fold_key

ATTENTION = "pages/2_attention.py"
BIGRAM = "pages/1_bigram.py"
HAND = "**1. Dot products**"  # the first line of the by-hand arithmetic (attention.hand.dot)


def expander_labels(at) -> list[str]:
    return [e.label for e in at.get("expander")]


def test_a_closed_fold_draws_only_its_label_and_an_open_one_its_body():
    at = open_page(ATTENTION, "en")
    assert "Compute it by hand" in expander_labels(at)
    assert HAND.strip("*") not in all_text(at).replace("**", "")
    at.session_state[fold_key("attention_hand")] = True
    at.run()
    assert not at.exception
    assert HAND.strip("*") in all_text(at).replace("**", "")
    at.run()  # any rerun (a slider moved): the fold is drawn open from then on
    assert HAND.strip("*") in all_text(at).replace("**", "")
    at.session_state[fold_key("attention_hand")] = False
    at.run()
    assert HAND.strip("*") not in all_text(at).replace("**", "")


def test_open_folds_opens_every_fold_and_adds_their_tables():
    at = open_page(ATTENTION, "en")
    tables = len(at.dataframe)
    open_folds(at)
    assert not at.exception
    assert len(at.dataframe) > tables
    assert all(e.proto.expanded for e in at.get("expander"))


def test_a_fold_stays_open_while_its_label_changes_and_across_a_page_switch():
    """The corpus table's label counts the sentences: adding one changes it."""
    at = open_page(BIGRAM, "en")
    at.session_state[fold_key("bigram_corpus")] = True
    at.run()
    rows = len(at.dataframe[0].value)
    at.text_input(key="bg_new").input("ねこ は ミルク が すき")
    at.button(key="bg_add").click().run()
    assert not at.exception
    assert len(at.dataframe[0].value) == rows + 1
    at.switch_page(ATTENTION).run()
    at.switch_page(BIGRAM).run()
    assert len(at.dataframe[0].value) == rows + 1


def test_a_fold_is_not_kept_in_the_url():
    at = open_page(ATTENTION, "en", folds=True)
    assert not [k for k in at.query_params if "fold" in k]


LESSON_PAGES = [
    "pages/1_bigram.py",
    "pages/2_attention.py",
    "pages/3_scaling.py",
    "pages/4_causal_mask.py",
    "pages/5_positional.py",
    "pages/6_multi_head.py",
    "pages/7_capstone.py",
    "pages/8_todays_llms.py",
]


def test_every_fold_of_a_lesson_says_what_it_holds():
    """No two folds of a page share a label (a generic "Read more" told the
    learner nothing about what it hid), in either language."""
    for page in LESSON_PAGES:
        for lang in ("ja", "en"):
            labels = expander_labels(open_page(page, lang))
            repeated = {label for label in labels if labels.count(label) > 1}
            assert not repeated, (page, lang, repeated)
