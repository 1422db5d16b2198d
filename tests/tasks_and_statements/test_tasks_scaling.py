"""The "try this" tasks of the scaling lesson tick only when the learner did what
each asks (tests/helpers/task_audit.py), and each task's action ticks it.

Expected values are worked out here with plain NumPy, never read from the page."""

import numpy as np
import pytest
from helpers.apptest import open_page
from helpers.task_audit import assert_recipe_ticks, audit_single_changes, ticked

PAGE, LESSON = "pages/3_scaling.py", "scaling"
D_KS = [2**i for i in range(10)]
NAMES = {
    "raw_one_hot": {"sc_dk"},
    "one_hot": {"sc_spread"},
    "undo_scaling": {"sc_temp"},
}


def softmax(x: np.ndarray) -> np.ndarray:
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def raw_top_weights(seed: int) -> list[float]:
    """Per d_k: the average largest weight of softmax(q·k), one random query against 12
    random keys, 400 tries (the page's generator for that seed)."""
    rng = np.random.default_rng([seed, 1])
    tops = []
    for d in D_KS:
        q, k = rng.standard_normal((400, 1, d)), rng.standard_normal((400, 12, d))
        tops.append(float(np.mean(np.max(softmax(np.einsum("bqd,bkd->bk", q, k)), axis=1))))
    return tops


def smallest_raw_d_k_above(seed: int, target: float = 0.75) -> int:
    return next(d for d, top in zip(D_KS, raw_top_weights(seed), strict=True) if top > target)


def top_weight(spread: float, seed: int) -> float:
    x = np.random.default_rng(seed).standard_normal(12)
    return float(softmax(spread * (x - x.mean()) / x.std()).max())


def test_course_lists_exactly_these_tasks():
    from course_app.course import BY_ID

    assert set(BY_ID[LESSON].tasks) == set(NAMES)


@pytest.mark.slow
def test_no_single_change_of_another_control_ticks_a_task():
    audit_single_changes(PAGE, LESSON, NAMES)


@pytest.mark.slow  # every one of the 100 seeds, twice: seconds
def test_every_seed_agrees_on_the_raw_one_hot_answer():
    # the target (75 %) lies between the largest d_k = 16 average and the smallest d_k = 32
    # average over every seed the slider offers, so the task has one answer: 32
    assert {smallest_raw_d_k_above(seed) for seed in range(100)} == {32}
    # at 90 % the seeds split between 128 and 256 (the average sits on the target at 128)
    assert {smallest_raw_d_k_above(seed, 0.9) for seed in range(100)} == {128, 256}


def test_raw_one_hot_needs_the_smallest_d_k():
    at = open_page(PAGE, "en")
    for wrong in (16, 128):  # below the target, and above it but not the smallest
        at.select_slider(key="sc_dk").set_value(wrong).run()
        assert "raw_one_hot" not in ticked(at, LESSON), wrong
    assert_recipe_ticks(
        PAGE, LESSON, "raw_one_hot", lambda at: at.select_slider(key="sc_dk").set_value(32).run()
    )


def test_raw_one_hot_answer_holds_for_a_seed_that_split_at_90_percent():
    seed = next(s for s in range(100) if smallest_raw_d_k_above(s, 0.9) == 256)

    def recipe(at):
        at.slider(key="sc_dk_seed").set_value(seed)
        at.select_slider(key="sc_dk").set_value(32).run()

    assert_recipe_ticks(PAGE, LESSON, "raw_one_hot", recipe)


def test_one_hot_needs_sigma_stretched_past_99_percent():
    assert top_weight(8.0, 0) < 0.99 < top_weight(12.0, 0)
    at = open_page(PAGE, "en", folds=True)
    at.slider(key="sc_spread").set_value(9.0).run()
    assert top_weight(9.0, 0) < 0.99 and "one_hot" not in ticked(at, LESSON)
    assert_recipe_ticks(PAGE, LESSON, "one_hot", lambda at: at.slider(key="sc_spread").set_value(12.0).run())


def test_one_hot_is_not_ticked_by_a_lucky_seed_alone():
    lucky = next(seed for seed in range(100) if top_weight(8.0, seed) > 0.99)
    at = open_page(PAGE, "en", folds=True)
    at.slider(key="sc_seed").set_value(lucky).run()
    assert "one_hot" not in ticked(at, LESSON)  # the scores were not stretched
    at.slider(key="sc_spread").set_value(9.0).run()
    assert top_weight(9.0, lucky) > 0.99 and "one_hot" in ticked(at, LESSON)


def test_one_hot_does_not_tick_when_sigma_is_lowered():
    # a seed whose scores are one-hot already below the default σ = 8: lowering σ is not stretching
    sigma = 7.0
    lucky = next(seed for seed in range(100) if top_weight(sigma, seed) > 0.99)
    at = open_page(PAGE, "en", folds=True)
    at.slider(key="sc_seed").set_value(lucky)
    at.slider(key="sc_spread").set_value(sigma).run()
    assert "one_hot" not in ticked(at, LESSON)


@pytest.mark.parametrize("temperature", [0.4, 0.6, 2.0])
def test_undo_scaling_needs_one_over_root_d_k(temperature):
    at = open_page(PAGE, "en")
    at.slider(key="sc_temp").set_value(temperature).run()
    assert "undo_scaling" not in ticked(at, LESSON)


def test_undo_scaling_recipe_and_its_sentence(lang):
    # d_k = 4 in example C, so T = 1 / √4 = 0.5 cancels the division
    at = assert_recipe_ticks(
        PAGE, LESSON, "undo_scaling", lambda at: at.slider(key="sc_temp").set_value(0.5).run(), lang
    )
    text = "\n".join(str(e.value) for e in at.markdown)
    assert r"\sqrt{4} \cdot T = 2 \cdot T = 1" in text
