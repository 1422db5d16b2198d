"""The positional lesson's "try this" tasks tick only when the learner did what
each asks (tests/helpers/task_audit.py): nothing on opening the page, nothing from a
single change of a control the task does not name, and the named action ticks it."""

import pytest
from helpers.task_audit import assert_recipe_ticks, audit_single_changes, ticked

PAGE, LESSON = "pages/5_positional.py", "positional"
NAMES = {"t1": {"pe_n"}, "t2": {"pe_d", "pe_n"}, "t3": {"pe_d"}}


def set_n(at, n: int) -> None:
    at.slider(key="pe_n").set_value(n).run()


def set_d(at, d: int) -> None:
    at.select_slider(key="pe_d").set_value(d).run()


@pytest.mark.slow
def test_single_changes_tick_only_the_tasks_that_name_the_control():
    audit_single_changes(PAGE, LESSON, NAMES)


def test_t1_many_positions():
    at = assert_recipe_ticks(PAGE, LESSON, "t1", lambda at: set_n(at, 200))
    assert ticked(at, LESSON) == {"t1"}


def test_t1_not_below_the_threshold():
    at = assert_recipe_ticks(PAGE, LESSON, "t3", lambda at: set_d(at, 32))
    set_n(at, 199)
    assert "t1" not in ticked(at, LESSON)


def test_t2_one_hand_and_enough_positions_for_many_turns():
    def recipe(at):
        set_n(at, 44)
        set_d(at, 2)
        assert "t2" not in ticked(at, LESSON)  # 44 positions: the closest pair is only ~6 turns apart
        set_n(at, 45)  # now positions 0 and 44, 7 turns apart, nearly coincide

    at = assert_recipe_ticks(PAGE, LESSON, "t2", recipe)
    assert "t1" not in ticked(at, LESSON)


@pytest.mark.parametrize("d", [4, 128])
def test_t2_needs_a_single_hand(d):
    from helpers.apptest import open_page

    at = open_page(PAGE, "en")
    set_n(at, 256)
    set_d(at, d)
    assert "t2" not in ticked(at, LESSON)


def test_t3_enough_dimensions():
    def recipe(at):
        set_d(at, 22)
        assert "t3" not in ticked(at, LESSON)  # cosine 0.948
        set_d(at, 24)  # cosine 0.950

    assert_recipe_ticks(PAGE, LESSON, "t3", recipe)


def test_t1_needs_a_slowest_hand():
    """With d_model = 2 there is one hand only, nothing to compare with the fastest."""
    from helpers.apptest import open_page

    at = open_page(PAGE, "en")
    set_d(at, 2)
    set_n(at, 256)
    assert "t1" not in ticked(at, LESSON)
    set_d(at, 4)
    assert "t1" in ticked(at, LESSON)


def test_t2_is_not_solved_by_the_default_positions():
    """At the default 50 positions one hand already shows positions 0 and 44 almost
    on one mark: setting d_model to 2 alone must not tick t2 (the learner has to
    add positions past a view without such a pair)."""
    from helpers.apptest import open_page

    at = open_page(PAGE, "en")
    set_d(at, 2)
    assert "t2" not in ticked(at, LESSON)
    set_n(at, 256)
    assert "t2" not in ticked(at, LESSON)  # more positions, but never a view without a near pair
    set_n(at, 30)
    assert "t2" not in ticked(at, LESSON)  # no near pair among 30 positions
    set_n(at, 50)
    assert "t2" in ticked(at, LESSON)
