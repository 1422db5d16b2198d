"""Layer 3: "the code behind this figure". Under a lesson's central figure a
fold shows a snippet, the call with the learner's current values, and the
source of each lesson_core function it uses. Run as a learner would paste it,
the snippet must print the numbers the page's figure draws, at the defaults
and after the learner has moved the controls; the sources shown must be the
modules' own.

The test never asks the app what the numbers are: it executes the text the
page shows and looks for its printed values in the charts' data.
"""

from __future__ import annotations

import ast
import contextlib
import importlib
import inspect
import io
from collections.abc import Callable

import numpy as np
import pytest
from helpers.apptest import all_text, assert_clean, chart_frames, open_page
from streamlit.testing.v1 import AppTest

from course_app.i18n import LANGS, catalog
from course_app.session import fold as fold_key
from lesson_core.examples import PRONOUN

IT, CAT = PRONOUN.index("それ"), PRONOUN.index("猫")


def moved_attention(at: AppTest) -> None:
    """Another query, no mask, a hotter softmax and an edited query vector."""
    at.selectbox(key="at_query").set_value(CAT).run()
    at.toggle(key="at_mask").set_value(False)
    at.slider(key="at_temp").set_value(2.5).run()
    at.slider(key=f"at_q{CAT}_animal").set_value(-2.0).run()


def moved_causal_mask(at: AppTest) -> None:
    """A sliding window of 2 for それ, and a cooler softmax."""
    at.radio(key="cm_mask").set_value(2)  # the sliding window
    at.slider(key="cm_temp").set_value(0.5).run()
    at.slider(key="cm_window").set_value(2).run()


def moved_scaling(at: AppTest) -> None:
    """Another seed of the random vectors, another d_k marked."""
    at.slider(key="sc_dk_seed").set_value(7).run()
    at.select_slider(key="sc_dk").set_value(16).run()


def moved_multi_head(at: AppTest) -> None:
    """猫 as the query, the look-back head three tokens back."""
    at.selectbox(key="mh_query").set_value(CAT).run()
    at.select_slider(key="mh_offset").set_value(3).run()


def moved_bigram(at: AppTest) -> None:
    """A sentence of the learner's own in the corpus, then another prefix."""
    at.text_input(key="bg_new").input("いぬ は さかな が すき")
    at.button(key="bg_add").click().run()
    at.slider(key="bg_read").set_value(3).run()


def moved_positional(at: AppTest) -> None:
    """Fewer positions, one hand only (d = 2)."""
    at.slider(key="pe_n").set_value(12).run()
    at.select_slider(key="pe_d").set_value(2).run()


def moved_todays_llms(at: AppTest) -> None:
    """The other prompt, read two tokens further."""
    at.selectbox(key="llm_prompt").set_value("いぬ は").run()
    at.slider(key="llm_step").set_value(4).run()


def trained(at: AppTest) -> None:
    """The capstone's model trained at its defaults."""
    at.button(key="gpt_train").click().run()


def moved_capstone(at: AppTest) -> None:
    """One block, another seed, then trained."""
    at.radio(key="gpt_blocks").set_value(1).run()
    at.number_input(key="gpt_seed").set_value(3).run()
    trained(at)


def unchanged(at: AppTest) -> None:
    """The page as it first opens."""


# (page, the code fold's name, what the learner does first)
CASES = {
    "bigram-default": ("pages/1_bigram.py", "bigram_code", unchanged),
    "bigram-moved": ("pages/1_bigram.py", "bigram_code", moved_bigram),
    "attention-default": ("pages/2_attention.py", "attention_code", unchanged),
    "attention-moved": ("pages/2_attention.py", "attention_code", moved_attention),
    "causal_mask-default": ("pages/4_causal_mask.py", "causal_mask_code", unchanged),
    "causal_mask-moved": ("pages/4_causal_mask.py", "causal_mask_code", moved_causal_mask),
    "scaling-default": ("pages/3_scaling.py", "scaling_code", unchanged),
    "scaling-moved": ("pages/3_scaling.py", "scaling_code", moved_scaling),
    "multi_head-default": ("pages/6_multi_head.py", "multi_head_code", unchanged),
    "multi_head-moved": ("pages/6_multi_head.py", "multi_head_code", moved_multi_head),
    "positional-default": ("pages/5_positional.py", "positional_code", unchanged),
    "positional-moved": ("pages/5_positional.py", "positional_code", moved_positional),
    "todays_llms-default": ("pages/8_todays_llms.py", "todays_llms_code", unchanged),
    "todays_llms-moved": ("pages/8_todays_llms.py", "todays_llms_code", moved_todays_llms),
    "capstone-default": ("pages/7_capstone.py", "capstone_code", trained),
    "capstone-moved": ("pages/7_capstone.py", "capstone_code", moved_capstone),
}


def opened(page: str, name: str, act: Callable[[AppTest], None], lang: str = "en") -> AppTest:
    """The page after ``act``, with its code fold open."""
    at = open_page(page, lang)
    act(at)
    at.session_state[fold_key(name)] = True
    at.run()
    assert_clean(at)
    return at


def the_snippet(at: AppTest) -> str:
    """The one code block that prints something: the call."""
    calls = [code.value for code in at.code if "print(" in code.value]
    assert len(calls) == 1, calls
    return calls[0]


def run_snippet(text: str) -> list[np.ndarray]:
    """Execute ``text`` as a fresh Python session would, and return the values
    of the expressions it prints, in order."""
    namespace: dict[str, object] = {}
    with contextlib.redirect_stdout(io.StringIO()) as out:
        exec(compile(text, "<snippet>", "exec"), namespace)
    printed = [
        ast.unparse(node.args[0])
        for node in ast.walk(ast.parse(text))
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "print"
    ]
    assert printed and out.getvalue().strip(), text
    return [np.asarray(eval(expr, namespace), dtype=float) for expr in printed]


def drawn_columns(at: AppTest) -> list[np.ndarray]:
    """Every numeric column of every chart on the page; for a chart sampled
    between whole positions (a wave), its column at the whole positions too."""
    columns = []
    for frame in chart_frames(at):
        numeric = frame.select_dtypes("number").columns
        columns += [frame[c].to_numpy() for c in numeric]
        if "whole" in frame:
            columns += [frame.loc[frame["whole"], c].to_numpy() for c in numeric]
    return columns


def drawn(values: np.ndarray, columns: list[np.ndarray]) -> bool:
    """Whether ``values`` (flattened) run, in order, through one chart column:
    a chart in long form holds each series as one stretch of its column. A
    column sent as float32 (a large chart) is compared at that precision."""
    values = values.ravel()
    for column in columns:
        tolerance = {"rtol": 1e-6, "atol": 1e-6} if column.dtype == np.float32 else {"rtol": 1e-12, "atol": 0}
        column = column.astype(float)
        for start in range(len(column) - len(values) + 1):
            if np.allclose(column[start : start + len(values)], values, **tolerance):
                return True
    return False


@pytest.mark.parametrize("case", list(CASES))
def test_the_snippet_prints_the_numbers_the_figure_draws(case):
    page, name, act = CASES[case]
    at = opened(page, name, act)
    columns = drawn_columns(at)
    for values in run_snippet(the_snippet(at)):
        assert drawn(values, columns), values


def test_the_snippet_follows_the_controls():
    """Moving the controls changes the snippet and what it prints (else the
    second setting above would test nothing new)."""
    page, name, _ = CASES["attention-default"]
    before = the_snippet(opened(page, name, unchanged))
    after = the_snippet(opened(page, name, moved_attention))
    assert before != after
    assert not np.allclose(run_snippet(before)[0], run_snippet(after)[0])


@pytest.mark.parametrize("case", ["attention-default", "causal_mask-moved"])
def test_the_sources_shown_are_the_modules_own(case):
    page, name, act = CASES[case]
    at = opened(page, name, act)
    snippet = the_snippet(at)
    imported = [
        (node.module, alias.name)
        for node in ast.walk(ast.parse(snippet))
        if isinstance(node, ast.ImportFrom)
        for alias in node.names
    ]
    assert imported and all(module.startswith("lesson_core") for module, _ in imported)
    shown = [code.value.rstrip("\n") for code in at.code if code.value != snippet]
    expected = [inspect.getsource(getattr(importlib.import_module(m), f)).rstrip("\n") for m, f in imported]
    assert shown == expected


def test_a_closed_code_fold_draws_no_code():
    at = open_page("pages/2_attention.py", "en")
    assert not [code for code in at.code if "scaled_dot_product_attention" in code.value]


@pytest.mark.parametrize("lang", LANGS)
def test_the_fold_speaks_the_learners_language(lang):
    """The fold's label and words come from the learner's catalog, not the other's."""
    at = opened("pages/2_attention.py", "attention_code", unchanged, lang)
    other = next(x for x in LANGS if x != lang)
    labels = [e.label for e in at.expander]
    assert catalog(lang)["ui.code.label"] in labels and catalog(other)["ui.code.label"] not in labels
    text = all_text(at)
    assert catalog(lang)["ui.code.body"] in text and catalog(other)["ui.code.body"] not in text


@pytest.mark.parametrize("lang", LANGS)
def test_a_notebook_is_valid_and_holds_the_snippet_and_its_chart(lang):
    """The notebook a lesson offers (built as its download builds it): valid
    nbformat 4, the snippet as the page shows it, a chart cell that names the
    snippet's values, and its words in the learner's language only."""
    import nbformat

    from course_app import notebooks
    from lessons.scaling.page import spread_code

    page, name, act = CASES["scaling-moved"]
    at = opened(page, name, act, lang)
    shown = the_snippet(at)
    snippet = spread_code(7)  # as the page builds it at seed 7 (its chart titles aside)
    assert snippet.text().rstrip("\n") == shown.rstrip("\n")
    book = nbformat.reads(
        notebooks.build("scaling", lang, snippet.text(), snippet.plot.code()).decode("utf-8"), as_version=4
    )
    nbformat.validate(book)
    code = [cell.source for cell in book.cells if cell.cell_type == "code"]
    assert code[0] == shown.rstrip("\n")
    assert "sweep.std_raw" in code[1] and "alt.Chart" in code[1]
    markdown = "\n".join(cell.source for cell in book.cells if cell.cell_type == "markdown")
    other = next(x for x in LANGS if x != lang)
    assert catalog(lang)["scaling.title"] in markdown and catalog(other)["scaling.title"] not in markdown
