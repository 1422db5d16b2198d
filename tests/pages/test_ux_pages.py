"""The learner's experience through AppTest: Japanese typed without spaces,
starting vectors of new words, the sidebar's counts, the share link."""

import re

import numpy as np
import pytest
from helpers.apptest import ROOT, assert_clean, chart_frames, open_page

from course_app.session import SHARE_VIEW as SHARE_KEY

PLAYGROUND = "pages/9_playground.py"
BIGRAM = "pages/1_bigram.py"
ATTENTION = "pages/2_attention.py"


def sidebar_labels(at) -> list[str]:
    return [el.proto.label for el in at.sidebar if el.type == "page_link"]


def test_playground_splits_japanese_typed_without_spaces(lang):
    at = open_page(PLAYGROUND, lang)
    at.text_input(key="pg_sentence").input("いぬがほねをかじる").run()
    assert_clean(at)
    assert at.text_input(key="pg_sentence").value == "いぬ が ほね を かじる"  # shown, and editable
    assert len(at.info) == 1
    labels = [label.split(" (")[0] for label in chart_frames(at)[0]["label"]]
    assert labels == ["いぬ", "が", "ほね", "を", "かじる"]
    # the learner corrects the split by moving a space: their text is kept as typed
    at.text_input(key="pg_sentence").input("いぬが ほねを かじる").run()
    assert at.text_input(key="pg_sentence").value == "いぬが ほねを かじる"
    assert len(at.info) == 0
    assert [label.split(" (")[0] for label in chart_frames(at)[0]["label"]] == ["いぬが", "ほねを", "かじる"]


def test_a_new_sentence_does_not_start_with_equal_weights():
    at = open_page(PLAYGROUND, "ja")
    at.text_input(key="pg_sentence").input("とり そら うみ かぜ").run()
    assert_clean(at)
    weights = chart_frames(at)[0]["value"].to_numpy(dtype=float)
    assert len(weights) == 4 and np.ptp(weights) > 0.01


def test_bigram_input_shows_the_split_before_adding_it(lang):
    at = open_page(BIGRAM, lang, folds=True)
    sentences_before = len(at.dataframe[0].value)
    at.text_input(key="bg_new").input("いぬがほねをかじる")
    form_button = next(b for b in at.button if b.proto.is_form_submitter)
    form_button.click().run()
    assert_clean(at)
    assert at.text_input(key="bg_new").value == "いぬ が ほね を かじる"
    assert len(at.dataframe[0].value) == sentences_before  # not added yet
    assert len(at.info) >= 1
    form_button = next(b for b in at.button if b.proto.is_form_submitter)
    form_button.click().run()
    assert_clean(at)
    assert "いぬ が ほね を かじる" in list(at.dataframe[0].value.iloc[:, 0])


def test_the_sidebar_count_follows_a_completed_task_at_once():
    at = open_page(ATTENTION, "en")
    before = next(label for label in sidebar_labels(at) if label.startswith("2."))
    assert " · 0/" in before, before
    at.slider(key="at_temp").set_value(2.0).run()  # 魚 falls below 50 %: "fish_half" ticks
    assert_clean(at)
    after = next(label for label in sidebar_labels(at) if label.startswith("2."))
    assert " · 1/" in after, after
    overall = [el for el in at.sidebar if el.type == "progress"]
    assert overall and "1 /" in overall[0].proto.text


def test_a_shared_view_carries_no_progress():
    at = open_page(ATTENTION, "en", {"p": "at.1.0", "at_temp": "1.3"})
    at.session_state[SHARE_KEY] = True
    at.run()
    link = [code.value for code in at.code][-1]
    assert "at_temp=1.3" in link and "lang=en" in link
    assert "p=" not in link.replace("temp=", "") and "at.1.0" not in link


NOT_LESSONS = ("glossary", "teacher")
LESSON_PAGES = sorted(
    str(p.relative_to(ROOT)) for p in (ROOT / "pages").glob("*.py") if not p.stem.endswith(NOT_LESSONS)
)


def section_numbers(at) -> list[int]:
    """The numbers that open the page's headers and fold labels ("2. …"), in order."""
    labels = [h.value for h in at.header] + [e.label for e in at.expander]
    return sorted(int(m.group(1)) for text in labels if (m := re.match(r"(\d+)\. ", text)))


@pytest.mark.parametrize("path", LESSON_PAGES)
def test_the_sections_a_page_shows_are_numbered_one_by_one(path, lang):
    """What the learner sees (folds closed) counts 1, 2, 3 … with no gap: a
    numbered section inside a fold, or one that appears only after training,
    would leave one (scaling went 1, 2, 4; the capstone 1, 2, 6)."""
    numbers = section_numbers(open_page(path, lang))
    assert numbers == list(range(1, len(numbers) + 1)), numbers
