"""The multi-head lesson's "try this" tasks tick only when the learner did what
each asks (tests/helpers/task_audit.py)."""

import numpy as np
import pytest
from helpers.task_audit import assert_recipe_ticks, audit_single_changes, ticked

from lesson_core import causal_mask
from lesson_core.examples import PRONOUN
from lesson_core.multihead import offset_head, parallel_heads, top_keys

PAGE, LESSON = "pages/6_multi_head.py", "multi_head"
NAMES = {"t1": {"mh_query", "mh_offset"}, "t2": {"mh_offset"}, "t3": {"mh_query", "mh_offset"}}
IT = PRONOUN.index("それ")


def choose(at, query: int | None = None, offset: int | None = None) -> None:
    if offset is not None:
        at.select_slider(key="mh_offset").set_value(offset)
    if query is not None:
        at.selectbox(key="mh_query").set_value(query)
    at.run()


def agreeing_query() -> tuple[int, int]:
    """A (query, k) where both hand-made heads look most at the same token and the
    query has a token k back, found here from the example's own vectors."""
    for k in (1, 2, 3):
        back_q, back_k = offset_head(len(PRONOUN.tokens), k)
        heads = parallel_heads(
            [PRONOUN.queries, back_q], [PRONOUN.vectors, back_k], [PRONOUN.vectors] * 2, mask=causal_mask(10)
        )
        tops = top_keys(heads.weights)
        for q in range(k, len(PRONOUN.tokens)):
            if tops[0, q] == tops[1, q] and q != IT:
                return q, k
    raise AssertionError("no query where the two heads agree")


@pytest.mark.slow
def test_single_changes_tick_only_the_tasks_that_name_the_control():
    audit_single_changes(PAGE, LESSON, NAMES)


def test_t1_both_heads_agree():
    query, k = agreeing_query()
    at = assert_recipe_ticks(PAGE, LESSON, "t1", lambda at: choose(at, query, k))
    assert "t3" not in ticked(at, LESSON)


def test_t1_not_for_the_first_token_or_an_even_spread():
    from helpers.apptest import open_page

    at = open_page(PAGE, "en")
    choose(at, 0, 1)  # 猫: both heads can only look at 猫 itself
    choose(at, 1, 2)  # が, k = 2: nothing two back, the look-back head is even
    assert "t1" not in ticked(at, LESSON)


def test_t2_look_two_back_from_sore():
    def recipe(at):
        choose(at, offset=3)
        assert "t2" not in ticked(at, LESSON)  # three back from それ is を
        choose(at, offset=2)  # two back: 食べた

    assert_recipe_ticks(PAGE, LESSON, "t2", recipe)


def test_t2_with_it_as_the_query():
    """t2 asks for それ as the query (it used to tick with any query)."""
    at = assert_recipe_ticks(PAGE, LESSON, "t2", lambda at: choose(at, query=IT, offset=2))
    assert "t2" in ticked(at, LESSON)


def test_t3_a_query_with_nothing_that_far_back():
    def recipe(at):
        choose(at, query=1, offset=1)
        assert "t3" not in ticked(at, LESSON)
        choose(at, offset=3)  # が has nothing three back

    assert_recipe_ticks(PAGE, LESSON, "t3", recipe)


def test_the_hand_made_look_back_head_spreads_evenly_without_a_token_k_back():
    back_q, back_k = offset_head(10, 3)
    w = parallel_heads([back_q], [back_k], [PRONOUN.vectors], mask=causal_mask(10)).weights[0]
    np.testing.assert_allclose(w[1, :2], [0.5, 0.5])
    np.testing.assert_allclose(w[2, :3], [1 / 3] * 3)


def test_t2_needs_it_as_the_query():
    """k = 2 makes the look-back head land two back from every query; t2 asks for
    it with それ as the query, so another query must not tick it."""
    from helpers.apptest import open_page

    at = open_page(PAGE, "en")
    choose(at, query=PRONOUN.index("魚"))
    choose(at, offset=2)
    assert "t2" not in ticked(at, LESSON)
    choose(at, query=IT)
    assert "t2" in ticked(at, LESSON)


def test_t1_does_not_count_a_tie():
    """が with k = 3 has no token three back: the look-back head splits 50/50
    between 猫 and が; that is not "looking most" at either."""
    from helpers.apptest import open_page

    at = open_page(PAGE, "en")
    choose(at, query=PRONOUN.index("が"), offset=3)
    assert "t1" not in ticked(at, LESSON)
