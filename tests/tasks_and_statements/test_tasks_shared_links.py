"""A shared link gives its receiver the sharer's view, never the sharer's tasks:
a task whose check already holds when the page opens with the link's values
ticks nothing, and ticks once the receiver makes it true themselves (moving
the control away and back). One rule in course_app/page.py for every lesson;
tests/helpers/task_audit.py plays the away and back."""

import pytest
from helpers.apptest import open_page
from helpers.task_audit import KINDS, away_and_back, ticked

from lesson_core.examples import PRONOUN

IT = PRONOUN.index("それ")
WINDOW = 2  # the causal-mask lesson's mask radio: none, causal, sliding window

# (page, lesson, task, a link whose values satisfy the task, those values as the controls hold them)
CASES = [
    (
        "pages/2_attention.py",
        "attention",
        "equal",
        {"at_q6": "3,2,0,-1"},
        {"at_q6_animal": 3.0, "at_q6_food": 2.0},
    ),
    ("pages/3_scaling.py", "scaling", "undo_scaling", {"sc_temp": "0.5"}, {"sc_temp": 0.5}),
    (
        "pages/4_causal_mask.py",
        "causal_mask",
        "window_fish",
        {"cm_mask": "sliding window", "cm_window": "5", "cm_query": "それ"},
        {"cm_mask": WINDOW, "cm_window": 5, "cm_query": IT},
    ),
    ("pages/5_positional.py", "positional", "t1", {"pe_n": "200"}, {"pe_n": 200}),
    ("pages/6_multi_head.py", "multi_head", "t2", {"mh_offset": "2"}, {"mh_offset": 2}),
    (
        "pages/8_todays_llms.py",
        "todays_llms",
        "t4",
        {"llm_masked": "true", "llm_block": "2"},
        {"llm_masked": True, "llm_block": 2},
    ),
]
IDS = [f"{lesson}.{task}" for _, lesson, task, _, _ in CASES]


def widget(at, key: str):
    return next(w for kind in KINDS for w in at.get(kind) if w.key == key)


def set_controls(at, values: dict) -> None:
    for key, value in values.items():
        widget(at, key).set_value(value)
    at.run()
    assert not at.exception, [e.value for e in at.exception]


def test_the_links_satisfy_their_tasks_when_the_learner_sets_them():
    for page, lesson, task, _, values in CASES:
        at = open_page(page, "en", folds=True)
        set_controls(at, values)
        assert task in ticked(at, lesson), f"{lesson}.{task}"


@pytest.mark.parametrize(("page", "lesson", "task", "link", "values"), CASES, ids=IDS)
def test_a_shared_link_ticks_nothing_until_the_receiver_moves_the_control(page, lesson, task, link, values):
    receiver = open_page(page, "en", link, folds=True)
    assert not receiver.exception, [e.value for e in receiver.exception]
    assert {key: widget(receiver, key).value for key in values} == values  # the link brought the view
    assert ticked(receiver, lesson) == set()
    receiver.run()  # a rerun with nothing moved is no move either
    assert ticked(receiver, lesson) == set()
    defaults = open_page(page, "en", folds=True)
    off = {key: widget(defaults, key).value for key in values}
    away_and_back(receiver, values, off)
    assert task in ticked(receiver, lesson)


def test_moving_another_control_of_a_shared_view_does_not_tick():
    page, lesson, task, link, _ = CASES[-1]  # todays_llms.t4: small masked blocks
    receiver = open_page(page, "en", link, folds=True)
    receiver.slider(key="llm_m").set_value(6).run()  # another section's control
    receiver.slider(key="llm_block").set_value(1).run()  # still small and masked: no false -> true
    assert task not in ticked(receiver, lesson)


def test_coming_back_to_the_page_judges_the_checks_afresh():
    # what a check was is forgotten on another page: coming back with the link's
    # values still in the URL (the browser's Back button) ticks nothing either
    page, lesson, _, link, _ = CASES[1]  # scaling.undo_scaling
    at = open_page(page, "en")
    at.switch_page("streamlit_app.py").run()
    assert at.session_state["tasks_seen"] == {}
    at.query_params.update(link)
    at.switch_page(page).run()
    assert at.slider(key="sc_temp").value == 0.5 and ticked(at, lesson) == set()
