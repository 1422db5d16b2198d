"""The "try this" tasks of the lesson on today's LLMs tick only when the
learner does what they ask (shared audit: tests/helpers/task_audit.py)."""

import pytest
from helpers.task_audit import assert_recipe_ticks, audit_single_changes, ticked

PAGE, LESSON = "pages/8_todays_llms.py", "todays_llms"

NAMES = {
    "t1": {"llm_step"},
    "t2": {"llm_m", "llm_n"},
    "t3": {"llm_kv", "llm_model", "llm_tokens"},
    "t4": {"llm_block", "llm_masked"},
}


@pytest.mark.slow
def test_no_single_change_of_another_control_ticks_a_task():
    audit_single_changes(PAGE, LESSON, NAMES)


def step_to_the_end(at):
    slider = at.slider(key="llm_step")
    slider.set_value(slider.max).run()


def two_pairs_same_offset(at):
    # the page opens at m = 5, n = 2 (m − n = 3); (6, 2) has offset 4, then (6, 3) has 3 again
    at.slider(key="llm_m").set_value(6).run()
    at.slider(key="llm_n").set_value(3).run()


def share_key_value_heads(at):
    at.select_slider(key="llm_kv").set_value(3).run()  # 12 → 3 KV heads: 9.4 MB at 1,024 tokens


def small_masked_blocks(at):
    at.toggle(key="llm_masked").set_value(True).run()
    at.slider(key="llm_block").set_value(2).run()


@pytest.mark.parametrize(
    ("task", "recipe"),
    [
        ("t1", step_to_the_end),
        ("t2", two_pairs_same_offset),
        ("t3", share_key_value_heads),
        ("t4", small_masked_blocks),
    ],
)
def test_the_named_action_ticks_the_task(task, recipe):
    at = assert_recipe_ticks(PAGE, LESSON, task, recipe)
    assert ticked(at, LESSON) == {task}


def test_two_pairs_with_different_offsets_do_not_tick():
    from helpers.apptest import open_page

    at = open_page(PAGE, "en", folds=True)
    for m, n in ((6, 2), (7, 2), (7, 1)):  # offsets 4, 5, 6 after the opening 3
        at.slider(key="llm_m").set_value(m).run()
        at.slider(key="llm_n").set_value(n).run()
    assert "t2" not in ticked(at, LESSON)


def test_gpt2_cache_target_needs_the_named_length():
    from helpers.apptest import open_page

    at = open_page(PAGE, "en", folds=True)
    at.select_slider(key="llm_tokens").set_value(2048).run()
    at.select_slider(key="llm_kv").set_value(3).run()  # 18.9 MB at 2,048 tokens: not under 10 MB
    assert "t3" not in ticked(at, LESSON)
    at.select_slider(key="llm_kv").set_value(1).run()  # 6.3 MB, but not at 1,024 tokens
    assert "t3" not in ticked(at, LESSON)
    at.select_slider(key="llm_tokens").set_value(1024).run()
    assert "t3" in ticked(at, LESSON)


def test_masked_large_blocks_do_not_tick():
    from helpers.apptest import open_page

    at = open_page(PAGE, "en", folds=True)
    at.toggle(key="llm_masked").set_value(True).run()
    at.slider(key="llm_block").set_value(4).run()
    assert "t4" not in ticked(at, LESSON)


def test_blocks_that_never_rescale_do_not_tick():
    """Blocks of 3: 魚, the top score of それ, is in the first block (猫 が 魚), so the
    running maximum never changes and the demo shows no rescaling: t4 must not tick."""
    from helpers.apptest import open_page

    at = open_page(PAGE, "en", folds=True)
    at.toggle(key="llm_masked").set_value(True).run()
    at.slider(key="llm_block").set_value(3).run()
    assert "t4" not in ticked(at, LESSON)


def test_t2_text_asks_for_the_same_offset(lang):
    """Any two pairs with the same q·k would not do: the check wants the same m − n."""
    from helpers.apptest import all_text, open_page

    text = all_text(open_page(PAGE, lang, folds=True))
    assert ("m − n が同じになる **異なる** 2 つの位置の組" if lang == "ja" else "with the same m − n") in text
