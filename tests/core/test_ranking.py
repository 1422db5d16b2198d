"""The largest item(s) as the screen shows them (lesson_core.ranking), and the
sentence that names them (course_app.ranking): a tie reads as a tie.

Expected values are written out by hand."""

import numpy as np
from helpers.apptest import all_text, open_page

from lesson_core.ranking import is_tie, ranks, tops


def test_one_leader():
    assert tops(np.array([0.2, 0.5, 0.3])).tolist() == [1]
    assert not is_tie(np.array([0.2, 0.5, 0.3]))


def test_an_exact_tie_names_every_tied_item():
    assert tops(np.array([0.25, 0.25, 0.25, 0.25])).tolist() == [0, 1, 2, 3]
    assert tops(np.array([0.0, 0.5, 0.5])).tolist() == [1, 2]


def test_values_that_print_the_same_are_tied():
    # 50.04% and 49.96% both print as 50.0%: a reader sees two equal numbers
    assert tops(np.array([0.5004, 0.4996])).tolist() == [0, 1]
    # 50.1% against 49.9% print apart: one leader
    assert tops(np.array([0.501, 0.499])).tolist() == [0]
    # shown as whole numbers, 0.6 and 0.9 both print as 1
    assert tops(np.array([0.6, 0.9, 0.2]), scale=1, digits=0).tolist() == [0, 1]


def test_ranks_group_ties_largest_first():
    groups = ranks(np.array([0.1, 0.4, 0.1, 0.4, 0.0]))
    assert [g.tolist() for g in groups] == [[1, 3], [0, 2], [4]]


def test_explorer_reads_a_zero_query_as_a_tie(lang):
    # それ's query at 0: every score is 0, so the 7 tokens it sees (mask on) get 1/7 each
    at = open_page("pages/2_attention.py", lang)
    for axis in ("animal", "food", "action", "function"):
        at.slider(key=f"at_q6_{axis}").set_value(0.0)
    at.run()
    text = all_text(at)
    said = {"ja": "同点", "en": "a tie"}[lang]
    assert said in text
    assert "14.3%" in text  # 1/7
    most = {"ja": "「それ（it）」がいちばん注目しているのは", "en": "attends most to"}[lang]
    assert most not in text


def test_top_k_whole_never_cuts_inside_a_tie():
    from lesson_core.ranking import top_k_whole

    p = np.array([2, 1, 1, 1, 1, 0, 4]) / 10
    assert list(top_k_whole(p, 1)) == [6]
    assert list(top_k_whole(p, 2)) == [6, 0]
    assert list(top_k_whole(p, 3)) == [6, 0, 1, 2, 3, 4]  # the four at 10.0% stay together
    assert list(top_k_whole(p, 9)) == [6, 0, 1, 2, 3, 4]  # never a zero
    assert list(top_k_whole(np.array([0.1234, 0.1225, 0.1]), 1)) == [0, 1]  # both print 12.3%
