"""Hardening sweep: every page, both languages, widget settings chosen
by hypothesis with every extreme included, through AppTest. No exception, and
no NaN or infinity in any table or chart; hostile text in every text input."""

from __future__ import annotations

import math
from pathlib import Path

import pytest
from helpers.apptest import assert_clean, open_page
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from course_app.course import EXTRAS, LESSONS
from course_app.i18n import LANGS

ROOT = Path(__file__).resolve().parents[2]
PAGES = [None, *(lesson.page for lesson in LESSONS), *(extra.page for extra in EXTRAS)]


def has_text_input(page: str | None) -> bool:
    """Whether the rendered page has a text box (found in its element tree,
    wherever in the code it is drawn)."""
    at = open_page(page, "en")
    return bool([w for w in [*at.text_input, *at.text_area, *at.get("chat_input")] if not w.disabled])


# The pages with a text box, named here rather than found by rendering every
# page while the tests are collected (each test worker collects);
# test_text_inputs_are_where_the_sweep_looks keeps the list true.
TEXT_PAGES = ["pages/1_bigram.py", "pages/10_glossary.py", "pages/9_playground.py", "pages/11_teacher.py"]
SKIP_KEYS = {"lang_choice", "lang_choice_top"}  # switching language is covered by the page tests
HOSTILE = [
    "",
    "   ",
    " ".join(["ねこ"] * 500),
    "x" * 10_000,
    "<script>alert(1)</script>",
    "<img src=x onerror=alert(1)>",
    "**bold** [link](javascript:alert(1)) # title",
    "$\\frac{1}{0}$ \\begin{matrix} x \\end{matrix}",
    "🐱 が 🐟 を たべた 👍🏽",
    "مرحبا שלום ‮abc",
    "a\x00b",
]


def page_id(page: str | None) -> str:
    return "home" if page is None else Path(page).stem


def candidates(widget, i: int):
    """Values that may be the i-th option of a radio or select slider, whose
    original options AppTest does not keep (only their formatted labels)."""
    label = widget.options[i]
    yield i
    yield label
    number = label.replace("−", "-").replace("∞", "inf").replace(",", "")
    try:
        yield float(number)
        yield int(number)
    except ValueError:
        pass


def choose(widget, i: int) -> None:
    """Select the i-th option of a selectbox, radio or select slider."""
    if widget.type == "selectbox":
        widget.select_index(i)
        return
    for value in candidates(widget, i):
        widget.set_value(value)
        try:
            index = widget.options.index(str(widget.format_func(value)))
        except Exception:
            continue
        if index == i:
            return
    pytest.fail(f"could not select option {i} of {widget.type} {widget.key}")


def widgets(at):
    """Every settable widget on the page (buttons and uploads excluded)."""
    found = []
    for kind in ("slider", "select_slider", "selectbox", "radio", "toggle", "checkbox", "number_input"):
        found += [w for w in at.get(kind) if w.key not in SKIP_KEYS and not w.disabled]
    return found


def settle(at, draw_index, draw_float) -> None:
    """Give every widget a value: draw_index(n) picks an option, draw_float(lo, hi) a number."""
    for w in widgets(at):
        if w.type in ("toggle", "checkbox"):
            w.set_value(bool(draw_index(2)))
        elif w.type == "slider":
            lo, hi = w.min, w.max
            value = draw_float(float(lo), float(hi))
            step = float(w.step) if w.step else 0
            if step:
                value = lo + round((value - lo) / step) * step
            value = type(lo)(min(max(value, lo), hi)) if isinstance(lo, int) else min(max(value, lo), hi)
            w.set_value(value)
        elif w.type == "number_input":
            lo = w.min if w.min is not None else -1e6
            hi = w.max if w.max is not None else 1e6
            w.set_value(type(w.value)(draw_float(float(lo), float(hi))) if w.value is not None else lo)
        elif w.options:
            choose(w, draw_index(len(w.options)))


@pytest.mark.parametrize("page", PAGES, ids=page_id)
@pytest.mark.parametrize("extreme", ["low", "high"])
def test_every_widget_at_its_extreme(page, extreme, lang):
    at = open_page(page, lang)
    pick_high = extreme == "high"
    settle(at, lambda n: n - 1 if pick_high else 0, lambda lo, hi: hi if pick_high else lo)
    at.run()
    assert_clean(at)


@pytest.mark.slow
@pytest.mark.parametrize("page", PAGES, ids=page_id)
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), lang=st.sampled_from(LANGS))
def test_random_widget_settings(page, data, lang):
    at = open_page(page, lang)
    extremes = st.sampled_from(["low", "high", "any"])

    def draw_index(n: int) -> int:
        return data.draw(st.integers(0, n - 1))

    def draw_float(lo: float, hi: float) -> float:
        where = data.draw(extremes)
        if where == "low" or math.isclose(lo, hi):
            return lo
        return hi if where == "high" else data.draw(st.floats(lo, hi))

    settle(at, draw_index, draw_float)
    at.run()
    assert_clean(at)


@pytest.mark.parametrize("page", PAGES, ids=page_id)
def test_text_inputs_are_where_the_sweep_looks(page):
    """A page has a text box exactly when TEXT_PAGES names it."""
    assert has_text_input(page) == (page in TEXT_PAGES), page


@pytest.mark.parametrize("page", TEXT_PAGES, ids=page_id)
@pytest.mark.parametrize("text", HOSTILE, ids=range(len(HOSTILE)))
def test_hostile_text_in_every_text_input(page, text):
    at = open_page(page, "en")
    inputs = [w for w in [*at.text_input, *at.text_area] if not w.disabled]
    assert inputs, "the page was expected to have a text input"
    for box in inputs:
        box.input(text)
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    shown = "\n".join(str(e.value) for kind in ("markdown", "caption", "subheader") for e in at.get(kind))
    assert "<script>" not in shown.replace("\\<script\\>", "")
