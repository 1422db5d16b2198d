"""The capstone's "try this" tasks tick only when the learner did what each asks
(tests/task_audit.py).

Training runs only when the Train button is pressed, and a trained setting is
kept in a process-wide cache; so every test starts with an empty cache. The single-change
audit leaves the button out (pressing it at the defaults trains the full model
for seconds); the button is audited on its own at a configuration that trains
fast, and each task's recipe presses it at a fast configuration too.
"""

import pytest
from conftest import open_page
from task_audit import SKIP_KEYS, assert_recipe_ticks, audit_single_changes, ticked

from lesson_core.bigram import total_variation
from lesson_core.transformer import Config, next_token_distribution
from lessons.capstone import training

PAGE, LESSON = "pages/7_capstone.py", "capstone"
NAMES = {
    "t1": {"gpt_heads", "gpt_train"},
    "t2": {"gpt_steps", "gpt_width", "gpt_blocks", "gpt_lr", "gpt_train"},
    "t3": {"gpt_lr", "gpt_train"},
}
# trains in about half a second, reaches neither the target nor a small TV, does not diverge
FAST = {"gpt_width": "8", "gpt_heads": "1", "gpt_blocks": "1", "gpt_steps": "300"}


@pytest.fixture(autouse=True)
def empty_cache():
    """Nothing trained in this process yet, whichever test ran before."""
    training.clear_cache()


def set_widgets(at, values: dict) -> None:
    for key, value in values.items():
        if key == "gpt_blocks":
            at.radio(key=key).set_value(value)
        elif key in ("gpt_heads", "gpt_lr"):
            at.select_slider(key=key).set_value(value)
        else:
            at.slider(key=key).set_value(value)


def train_with(at, values: dict) -> None:
    set_widgets(at, values)
    at.button(key="gpt_train").click().run()


@pytest.mark.slow
def test_single_changes_tick_nothing_without_training():
    audit_single_changes(PAGE, LESSON, NAMES, skip=SKIP_KEYS | {"gpt_train"})


def test_pressing_train_alone_ticks_nothing():
    at = open_page(PAGE, "en", FAST)
    at.button(key="gpt_train").click().run()
    assert not at.exception
    result = training.cached(Config(d_model=8, n_heads=1, n_blocks=1, steps=300))
    assert result is not None and result.status == "finished" and not result.reached_target
    assert ticked(at, LESSON) == set()


def test_t1_one_head_reaches_the_target():

    def recipe(at):
        train_with(at, {"gpt_width": 32, "gpt_heads": 2, "gpt_blocks": 1, "gpt_steps": 100})
        assert "t1" not in ticked(at, LESSON)  # two heads do not count
        train_with(at, {"gpt_heads": 1, "gpt_steps": 60})
        assert "t1" not in ticked(at, LESSON)  # one head, but too few steps to reach the target
        train_with(at, {"gpt_steps": 100})  # reaches it at step 85

    assert_recipe_ticks(PAGE, LESSON, "t1", recipe)
    assert training.cached(Config(d_model=32, n_heads=1, n_blocks=1, steps=100)).reached_target


def test_t2_a_model_that_cannot_tell_yet():

    def recipe(at):
        train_with(at, {"gpt_steps": 60})
        assert "t2" not in ticked(at, LESSON)  # 60 steps already tell them apart
        train_with(at, {"gpt_steps": 20})

    assert_recipe_ticks(PAGE, LESSON, "t2", recipe)
    result = training.cached(Config(steps=20))
    cat = next_token_distribution(result.params, result.config, result.vocab, ["ねこ", "は"])
    dog = next_token_distribution(result.params, result.config, result.vocab, ["いぬ", "は"])
    assert total_variation(cat, dog) < 0.5


def test_t3_a_learning_rate_that_diverges():

    def recipe(at):
        train_with(at, {"gpt_steps": 40, "gpt_lr": 0.02})
        assert "t3" not in ticked(at, LESSON)
        train_with(at, {"gpt_lr": 1.0})

    assert_recipe_ticks(PAGE, LESSON, "t3", recipe)
    assert training.cached(Config(steps=40, learning_rate=1.0)).status == "diverged"
