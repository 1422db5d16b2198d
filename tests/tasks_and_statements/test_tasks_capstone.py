"""The capstone's "try this" tasks tick only when the learner did what each asks
(tests/helpers/task_audit.py).

Training runs only when the Train button is pressed, and a trained setting is
kept in a process-wide cache; so every test starts with an empty cache. The single-change
audit leaves the button out (pressing it at the defaults trains the full model
for seconds); the button is audited on its own at a configuration that trains
fast, and each task's recipe presses it at a fast configuration too.
"""

import numpy as np
import pytest
from helpers.apptest import open_folds, open_page
from helpers.task_audit import SKIP_KEYS, assert_recipe_ticks, audit_single_changes, ticked

from lesson_core.bigram import total_variation
from lesson_core.examples import CORPUS
from lesson_core.transformer import Config, attention_maps, next_token_distribution, train
from lessons.capstone import training

PAGE, LESSON = "pages/7_capstone.py", "capstone"
NAMES = {
    "t1": {"gpt_heads", "gpt_train"},
    "t2": {"gpt_steps", "gpt_width", "gpt_blocks", "gpt_lr", "gpt_train"},
    "t3": {"gpt_lr", "gpt_train"},
    "t4": {"gpt_head_pick", "gpt_train"},
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


# two heads that differ: head 1 looks from は at its subject far harder than head 2
TWO_HEADS = {"gpt_width": 16, "gpt_heads": 2, "gpt_blocks": 1, "gpt_steps": 40}
TWO_HEADS_CONFIG = Config(d_model=16, n_heads=2, n_blocks=1, steps=40)


def subject_means(config: Config) -> np.ndarray:
    """Per head (block-major, as the select box lists them), は's weight on the token
    before it averaged over the corpus sentences with は after their first word."""
    result = training.cached(config)
    rows = []
    for sentence in CORPUS:
        labels = ("<s>", *sentence)
        if "は" in labels[2:]:
            i = labels.index("は", 2)
            rows.append(attention_maps(result.params, config, result.vocab, sentence)[:, :, i, i - 1].ravel())
    assert len(rows) == 11
    return np.mean(rows, axis=0)


def pick(at, index: int) -> None:
    at.selectbox(key="gpt_head_pick").select_index(index).run()


def test_t4_picking_the_head_that_tells_cat_from_dog():

    def recipe(at):
        train_with(at, TWO_HEADS)
        open_folds(at)  # the pick is in section 5's fold
        means = subject_means(TWO_HEADS_CONFIG)
        assert means[0] > means[1] + 0.1  # one clear best head, no tie
        assert at.selectbox(key="gpt_head_pick").value is None  # no choice at first
        assert "t4" not in ticked(at, LESSON)
        pick(at, 1)
        assert "t4" not in ticked(at, LESSON)  # the wrong head
        pick(at, 0)

    assert_recipe_ticks(PAGE, LESSON, "t4", recipe)


def test_t4_a_wrong_pick_never_ticks():
    at = open_page(PAGE, "en")
    train_with(at, TWO_HEADS)
    open_folds(at)
    means = subject_means(TWO_HEADS_CONFIG)
    wrong = int(np.argmin(means))
    assert means[wrong] < means.max() - 0.1
    pick(at, wrong)
    assert not at.exception
    assert "t4" not in ticked(at, LESSON)
    at.run()
    assert "t4" not in ticked(at, LESSON)


def test_t4_needs_this_learners_training_and_this_learners_pick():
    """Another learner's kept run, or a pick that came with a link, ticks nothing:
    the learner presses Train and chooses the head themselves."""
    training.remember(train(CORPUS, TWO_HEADS_CONFIG))  # as after another learner's training
    url = {k: str(v) for k, v in TWO_HEADS.items()}
    at = open_folds(open_page(PAGE, "en", url))
    best = int(np.argmax(subject_means(TWO_HEADS_CONFIG)))
    pick(at, best)
    assert "t4" not in ticked(at, LESSON)  # the run is not this learner's
    linked = open_folds(
        open_page(PAGE, "en", url | {"gpt_head_pick": at.selectbox(key="gpt_head_pick").options[best]})
    )
    assert linked.selectbox(key="gpt_head_pick").value == best
    linked.button(key="gpt_train").click().run()
    assert not linked.exception
    assert "t4" not in ticked(linked, LESSON)  # trained here, but the pick came with the link
    pick(linked, 1 - best)
    pick(linked, best)
    assert "t4" in ticked(linked, LESSON)
