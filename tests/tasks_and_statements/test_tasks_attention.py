"""The attention lesson's "try this" tasks: none ticks on open or on a single
change of a control it does not name, and each ticks when the learner does
what it asks (tests/helpers/task_audit.py)."""

import pytest
from helpers.apptest import open_page
from helpers.task_audit import assert_recipe_ticks, audit_single_changes, ticked

PAGE, LESSON = "pages/2_attention.py", "attention"
SORE = [f"at_q6_{axis}" for axis in ("animal", "food", "action", "function")]
NAMES = {"equal": set(SORE), "flat": set(SORE), "fish_half": {"at_temp"}}


@pytest.mark.slow
def test_no_task_ticks_on_open_or_on_one_unnamed_change():
    audit_single_changes(PAGE, LESSON, NAMES)


def equal_weights(at):
    # 猫's score 3a/2 equals 魚's (a + 3f)/2 when a = 1.5 f
    at.slider(key="at_q6_animal").set_value(3.0)
    at.slider(key="at_q6_food").set_value(2.0).run()


def zero_query(at):
    for key in SORE:
        at.slider(key=key).set_value(0.0)
    at.run()


def warm(at):
    at.slider(key="at_temp").set_value(1.5).run()


@pytest.mark.parametrize(
    ("task", "recipe"), [("equal", equal_weights), ("flat", zero_query), ("fish_half", warm)]
)
def test_the_named_action_ticks(task, recipe):
    at = assert_recipe_ticks(PAGE, LESSON, task, recipe)
    assert ticked(at, LESSON) == {task}


def test_fish_half_needs_the_temperature_not_the_query():
    at = open_page(PAGE, "en")
    at.slider(key="at_temp").set_value(1.4).run()  # 魚 still 51.1 %
    assert "fish_half" not in ticked(at, LESSON)
    at.slider(key="at_q6_food").set_value(0.0).run()  # 魚 falls, but by the query
    assert "fish_half" not in ticked(at, LESSON)


def test_one_visible_key_does_not_tick_anything():
    at = open_page(PAGE, "en")
    at.selectbox(key="at_query").set_value(0).run()  # 猫 with the mask: 100 % on itself
    assert ticked(at, LESSON) == set()


def test_equal_but_small_weights_do_not_tick():
    at = open_page(PAGE, "en")
    # a = f = 0: 猫 and 魚 both score 0, equal but each well under 30 %
    at.slider(key="at_q6_animal").set_value(0.0)
    at.slider(key="at_q6_food").set_value(0.0).run()
    assert "equal" not in ticked(at, LESSON)


def test_fish_half_says_the_mask_stays_on_and_needs_it():
    from course_app.i18n import catalog

    assert "因果マスクはオン" in catalog("ja")["attention.task.fish_half"]
    assert "causal mask on" in catalog("en")["attention.task.fish_half"]
    at = open_page(PAGE, "en")
    at.toggle(key="at_mask").set_value(False)
    at.slider(key="at_temp").set_value(1.2).run()  # without the mask 魚 is at 47.8 % already
    assert "fish_half" not in ticked(at, LESSON)
