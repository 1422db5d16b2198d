"""The bigram lesson's "try this" tasks: none ticks on open or on a single
change of a control it does not name, and each ticks when the learner does
what it asks (tests/helpers/task_audit.py)."""

import pytest
from helpers.task_audit import assert_recipe_ticks, audit_single_changes, ticked

PAGE, LESSON = "pages/1_bigram.py", "bigram"
NAMES = {
    "t1": {"bg_sentence", "bg_read"},
    "t2": {"bg_new", "bg_add"},
    "t3": {"bg_sentence", "bg_read"},
}


@pytest.mark.slow
def test_no_task_ticks_on_open_or_on_one_unnamed_change():
    audit_single_changes(PAGE, LESSON, NAMES)


def another_wa_prefix(at):
    at.selectbox(key="bg_sentence").set_value("きょう は いぬ と さんぽ").run()


def add_after_wa(at):
    at.text_input(key="bg_new").input("ねこ は ミルク が すき")
    at.button(key="bg_add").click().run()


def agreeing_prefix(at):
    at.selectbox(key="bg_sentence").set_value("ねこ が ひるね を する")
    at.slider(key="bg_read").set_value(4).run()  # ねこ が ひるね を -> する, like every を


@pytest.mark.parametrize(
    ("task", "recipe"), [("t1", another_wa_prefix), ("t2", add_after_wa), ("t3", agreeing_prefix)]
)
def test_the_named_action_ticks(task, recipe):
    at = assert_recipe_ticks(PAGE, LESSON, task, recipe)
    assert ticked(at, LESSON) == {task}


def test_a_sentence_without_wa_does_not_tick_t2():
    at = assert_recipe_ticks(PAGE, LESSON, "t1", another_wa_prefix)
    at.text_input(key="bg_new").input("ねこ が ミルク を のむ")
    at.button(key="bg_add").click().run()
    assert "t2" not in ticked(at, LESSON)
