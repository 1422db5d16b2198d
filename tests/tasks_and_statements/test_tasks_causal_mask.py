"""The "try this" tasks of the causal-mask lesson tick only when the learner did
what each asks (tests/helpers/task_audit.py), and each task's action ticks it.

Expected values are worked out here with plain NumPy, never read from the page."""

import numpy as np
import pytest
from helpers.apptest import open_page
from helpers.task_audit import assert_recipe_ticks, audit_single_changes, ticked

from lesson_core.examples import DECODER, PRONOUN

PAGE, LESSON = "pages/4_causal_mask.py", "causal_mask"
KINDS = {"none": 0, "causal": 1, "window": 2}  # the mask radio's options, in order
NONE, CAUSAL, WINDOW = KINDS.values()
NAMES = {
    "tightest_fill": {"cm_fill"},
    "window_fish": {"cm_mask", "cm_window", "cm_query"},
    "mask_no_effect": {"cm_mask", "cm_query"},
}
IT, FISH, FRESH = (PRONOUN.index(tok) for tok in ("それ", "魚", "新鮮"))
LAST = len(PRONOUN.tokens) - 1


def leak(fill: float) -> np.ndarray:
    """Per row of わたし は きょう 本 を 読む (Q = K = V), the weight on keys right of the query."""
    x = DECODER.vectors
    s = x @ x.T / np.sqrt(3) + np.where(np.triu(np.ones((6, 6), dtype=bool), k=1), fill, 0.0)
    e = np.exp(s - s.max(axis=1, keepdims=True))
    return np.triu(e / e.sum(axis=1, keepdims=True), k=1).sum(axis=1)


def test_course_lists_exactly_these_tasks():
    from course_app.course import BY_ID

    assert set(BY_ID[LESSON].tasks) == set(NAMES)


@pytest.mark.slow
def test_no_single_change_of_another_control_ticks_a_task():
    audit_single_changes(PAGE, LESSON, NAMES)


def test_tightest_fill_is_minus_1e9():
    # −10 still lets a little through; −1e9 lets nothing through (e^−1e9 rounds to 0)
    assert np.all(leak(-1e9) == 0) and leak(-10.0)[0] > 0
    for fill in (-np.inf, -10.0, -1.0, 0.0):
        at = open_page(PAGE, "en", folds=True)
        at.radio(key="cm_fill").set_value(fill).run()
        assert "tightest_fill" not in ticked(at, LESSON), fill
    assert_recipe_ticks(
        PAGE, LESSON, "tightest_fill", lambda at: at.radio(key="cm_fill").set_value(-1e9).run()
    )


def sliding(at, window: int, query: int = IT) -> None:
    at.radio(key="cm_mask").set_value(WINDOW)
    at.slider(key="cm_window").set_value(window)
    at.selectbox(key="cm_query").set_value(query).run()


def test_window_fish_needs_the_smallest_window():
    # それ is 4 places right of 魚, so it needs itself and 4 tokens to its left: a window of 5
    smallest = IT - FISH + 1
    assert smallest == 5
    for window, query in ((smallest - 1, IT), (smallest + 1, IT), (smallest, FRESH)):
        at = open_page(PAGE, "en")
        sliding(at, window, query)
        assert "window_fish" not in ticked(at, LESSON), (window, query)
    at = open_page(PAGE, "en")  # the right window with the causal mask is not the task
    at.slider(key="cm_window").set_value(smallest).run()
    assert "window_fish" not in ticked(at, LESSON)
    assert_recipe_ticks(PAGE, LESSON, "window_fish", lambda at: sliding(at, smallest))


@pytest.mark.parametrize(
    ("kind", "query"), [("none", FRESH), ("none", IT), ("causal", LAST), ("window", LAST)]
)
def test_mask_no_effect_needs_no_mask_and_the_last_token(kind, query):
    at = open_page(PAGE, "en")
    at.radio(key="cm_mask").set_value(KINDS[kind])
    at.selectbox(key="cm_query").set_value(query).run()
    assert "mask_no_effect" not in ticked(at, LESSON)


def test_mask_no_effect_recipe(lang):
    def recipe(at):
        at.radio(key="cm_mask").set_value(NONE)
        at.selectbox(key="cm_query").set_value(LAST).run()

    assert_recipe_ticks(PAGE, LESSON, "mask_no_effect", recipe, lang)


def test_tasks_stay_done_and_reach_the_url():
    at = open_page(PAGE, "en", folds=True)
    at.radio(key="cm_fill").set_value(-1e9).run()
    at.radio(key="cm_fill").set_value(0.0).run()
    assert "tightest_fill" in ticked(at, LESSON)
    assert at.query_params["p"]
