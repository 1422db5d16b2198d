"""Hostile input through AppTest: every value a link can carry for every control
bound to the URL, on every page; the language and progress parameters; crowded
URLs; learner text and unsafe HTML."""

from __future__ import annotations

import math
import re
from pathlib import Path

import numpy as np
import pytest
from helpers.apptest import assert_clean, chart_frames, open_folds, open_page

from course_app.course import EXTRAS, LESSONS
from course_app.i18n import catalog
from course_app.progress import decode
from course_app.url_state import GUARDED
from lesson_core.transformer import MAX_TRAIN_WORK, Config, max_steps, train, training_work
from lessons.capstone import controls, training

ROOT = Path(__file__).resolve().parents[2]
PAGES = [None, *(lesson.page for lesson in LESSONS), *(extra.page for extra in EXTRAS)]
KINDS = ("slider", "select_slider", "selectbox", "radio", "toggle", "checkbox", "number_input", "text_input")
HOSTILE_URL_VALUES = [
    "inf",
    "-inf",
    "Infinity",
    "nan",
    "NaN",
    "1e400",
    "-1e400",
    "9" * 40,
    "-99999",
    "99999",
    "0.15",
    "",
    "abc",
    "<script>alert(1)</script>",
    "x" * 5000,
    ":red[x]",
    "true",
    "ねこ は",
]


def assert_no_error(at) -> None:
    """No exception and nothing non-finite in numbers (a typed sentence may of
    course hold the word "inf")."""
    assert not at.exception, [e.value for e in at.exception]
    for frame in [df.value for df in at.dataframe]:
        numeric = frame.select_dtypes(include="number").to_numpy(dtype=float)
        assert np.all(np.isfinite(numeric)), frame


def page_id(page: str | None) -> str:
    return "home" if page is None else Path(page).stem


def bound_widgets(at) -> list:
    """Every widget on the rendered page that is bound to the URL: by Streamlit,
    or kept there by url_state.shown_choice (a glossed select box)."""
    return [
        w
        for kind in KINDS
        for w in at.get(kind)
        if getattr(w.proto, "query_param_key", "") or w.key in SHOWN_CHOICES
    ]


# the select boxes that show glossed tokens and keep the bare token in the URL themselves
SHOWN_CHOICES = {"at_query", "cm_query", "mh_query", "llm_prompt"}
_FOUND: dict[str | None, list[str]] = {}


def bound_keys(page: str | None) -> list[str]:
    """The URL keys of the page's bound widgets, read from the rendered page
    (with every default, then with the capstone's model trained, whose
    prediction and generation controls appear only then), every fold open."""
    if page not in _FOUND:
        at = open_page(page, "en", folds=True)
        keys = [w.key for w in bound_widgets(at)]
        if at.get("button") and any(b.key == "gpt_train" for b in at.button):
            open_folds(at.button(key="gpt_train").click().run())
            keys += [w.key for w in bound_widgets(at) if w.key not in keys]
        _FOUND[page] = keys
    return _FOUND[page]


def widget_by_key(at, key: str):
    for kind in KINDS:
        for w in at.get(kind):
            if w.key == key:
                return w
    return None


GLOSS = re.compile(r" \([^)]*\)")  # "それ (it)" -> "それ": a glossed select box's URL value


def url_label(widget, shown: str) -> str:
    """The URL value of an option shown as ``shown``."""
    return GLOSS.sub("", shown) if widget.key in SHOWN_CHOICES else shown


def labels_of(widget) -> list[str]:
    return [url_label(widget, str(o)) for o in getattr(widget, "options", [])]


def valid_url_value(widget, text: str) -> bool:
    """Could the rendered ``widget`` hold ``text`` as its URL value?"""
    if widget.type == "text_input":
        return True
    if widget.type in ("select_slider", "selectbox", "radio"):
        return text in labels_of(widget)
    if widget.type in ("toggle", "checkbox"):
        return text in ("true", "false")
    try:
        number = float(text)
    except ValueError:
        return False
    low, high = limits(widget)
    return math.isfinite(number) and low <= number <= high


def limits(widget) -> tuple[float, float]:
    """The widget's range; a number input the page checks itself has its range
    in the page's code (the capstone's seed: Streamlit's own message is English)."""
    if widget.min is None and widget.key == "gpt_seed":
        return controls.SEEDS
    return widget.min, widget.max


def sane_value(widget) -> bool:
    value = widget.value
    if widget.type in ("toggle", "checkbox"):
        return isinstance(value, bool)
    if widget.type in ("select_slider", "selectbox", "radio"):
        if value is None:  # sane only for a select box that starts with no choice
            return widget.type == "selectbox" and not widget.proto.HasField("default")
        return url_label(widget, widget.format_func(value)) in labels_of(widget)
    if widget.type in ("slider", "number_input"):
        low, high = limits(widget)
        return math.isfinite(float(value)) and low <= value <= high
    return True


def took(widget, text: str) -> bool:
    """Does the control show exactly the value the URL gave (Streamlit drops a
    value equal to the default from the URL, silently and rightly)?"""
    if not valid_url_value(widget, text):
        return False
    if widget.type in ("select_slider", "selectbox", "radio"):
        return url_label(widget, widget.format_func(widget.value)) == text
    if widget.type in ("toggle", "checkbox"):
        return str(widget.value).lower() == text
    if widget.type == "text_input":
        return widget.value == text
    return float(widget.value) == float(text)


# The glossary has no controls; the teacher's page keeps none in the URL (a passcode never goes there).
PAGES_WITH_BOUND = [
    page for page in PAGES if page not in (None, "pages/10_glossary.py", "pages/11_teacher.py")
]


@pytest.mark.slow  # opens every page with bound controls: seconds
def test_the_sweep_finds_bound_controls_on_the_lesson_pages():
    keys = {key for page in PAGES_WITH_BOUND for key in bound_keys(page)}
    assert {"gpt_seed", "gpt_width", "sc_dk", "pe_d", "bg_read", "at_temp"} <= keys, keys
    assert {"gpt_temp", "gpt_gen_prefix", "gpt_prefix_a", "gpt_sentence"} <= keys


@pytest.mark.parametrize("page", PAGES_WITH_BOUND, ids=page_id)
def test_every_bound_control_goes_through_the_url_check(page):
    keys = bound_keys(page)
    assert keys, "a lesson page without controls kept in the URL?"
    assert set(keys) <= GUARDED, set(keys) - GUARDED


@pytest.mark.parametrize("value", HOSTILE_URL_VALUES, ids=range(len(HOSTILE_URL_VALUES)))
@pytest.mark.parametrize("page", PAGES_WITH_BOUND, ids=page_id)
def test_hostile_url_values_for_every_bound_control(page, value):
    """Every bound key of the page carries ``value`` at once: no exception, every
    control at a sane value, the URL holds only valid values, and every value
    the app changed or removed is named in a message."""
    keys = bound_keys(page)
    at = open_page(page, "en", dict.fromkeys(keys, value))
    shown = []  # what the first run and each fold opened said (a toast is shown once)

    def said(at) -> None:
        shown.extend([*(str(toast.value) for toast in at.toast), *(str(w.value) for w in at.warning)])

    said(at)
    open_folds(at, said)  # a control inside a fold reads the URL when its fold opens
    assert_no_error(at)
    messages = "\n".join(shown)
    for key in keys:
        widget = widget_by_key(at, key)
        if widget is None:  # shown only after training (the capstone's predictions)
            continue
        assert sane_value(widget), (key, widget.value)
        kept = at.query_params.get(key)
        if kept is not None:
            assert isinstance(kept, str) and valid_url_value(widget, kept), (key, kept)
        if kept != value and not took(widget, value):
            assert widget.label.splitlines()[0] in messages, (key, value, messages)


def test_capstone_seed_inf_is_reset_with_a_message_in_japanese():
    at = open_page("pages/7_capstone.py", "ja", {"gpt_seed": "inf"})
    assert_clean(at)
    assert "gpt_seed" not in at.query_params
    assert at.number_input(key="gpt_seed").value == 0
    assert any("シード" in str(toast.value) and "inf" in str(toast.value) for toast in at.toast)


def test_values_between_steps_are_snapped_and_values_outside_the_range_reset():
    params = {"gpt_width": "41", "gpt_steps": "99999", "gpt_seed": "5000"}
    at = open_page("pages/7_capstone.py", "en", params)
    assert_clean(at)
    assert at.slider(key="gpt_width").value == 40 and at.query_params["gpt_width"] == "40"
    assert at.slider(key="gpt_steps").value == 300 and "gpt_steps" not in at.query_params
    assert at.number_input(key="gpt_seed").value == 0 and "gpt_seed" not in at.query_params
    assert sum("40" in toast.value for toast in at.toast) == 1 and len(at.toast) == 3


# --- the language, the progress and crowded URLs -----------------------------------------


def test_a_crowded_url_keeps_the_language_and_the_progress():
    params = {f"junk{i}": "x" for i in range(1500)} | {"p": "sc.000.000"}
    at = open_page("pages/2_attention.py", "en", params)
    assert_clean(at)
    assert at.title[0].value == catalog("en")["attention.title"]
    assert at.session_state["progress"].visited == {"attention", "scaling"}
    assert set(at.query_params) == {"lang", "p"} and decode(at.query_params["p"])[0].visited == {
        "attention",
        "scaling",
    }
    assert len(at.toast) == 1 and "1502" in at.toast[0].value


def test_the_language_switch_follows_the_url_after_going_back():
    at = open_page("pages/2_attention.py", "en")
    at.query_params["lang"] = "ja"  # the browser's Back button restores an older URL
    at.run()
    assert at.title[0].value == catalog("ja")["attention.title"]
    assert at.session_state["lang_choice"] == "ja"
    assert at.get("button_group")[0].value == "ja"


@pytest.mark.parametrize("value", ["xx", "", "EN", "<script>", "en\x00", "ja" * 5000])
def test_an_unknown_language_is_corrected_with_a_message(value):
    at = open_page("pages/2_attention.py", value)
    assert_clean(at)
    assert at.title[0].value == catalog("ja")["attention.title"]
    assert at.query_params["lang"] == "ja"
    assert any(toast.value == catalog("ja")["ui.lang_unknown"] for toast in at.toast)


@pytest.mark.parametrize(
    "value",
    ["inf", "<script>", "x" * 5000, "at.1111111111.0", "zz.1.1", "at.101.110_at.000.000", "at..", "_" * 3000],
)
def test_a_tampered_progress_parameter_is_put_right(value):
    at = open_page("pages/3_scaling.py", "en", {"p": value})
    assert_clean(at)
    learner = at.session_state["progress"]
    assert decode(at.query_params["p"]) == (learner, True)  # the URL says what the screen says
    assert "scaling" in learner.visited


# --- learner text never reaches raw HTML ----------------------------------------------------

MARKER = "<i>typed-by-learner</i>"


def html_bodies(at) -> list[str]:
    """Everything the page passes to Streamlit as raw HTML."""
    bodies = [m.proto.body for m in at.markdown if m.proto.allow_html]
    bodies += [h.proto.body for h in at.get("html")]
    return bodies


def test_learner_text_never_reaches_unsafe_html():
    at = open_page("pages/9_playground.py", "en")
    at.text_input(key="pg_sentence").input(f"{MARKER} が すき").run()
    at.selectbox(key="pg_query").select_index(0).run()  # the typed token is the query: its name is shown
    assert_clean(at)
    assert MARKER in "".join(str(m.value) for m in at.markdown).replace("\\", "")
    assert not any("typed-by-learner" in body for body in html_bodies(at))
    at = open_page("pages/1_bigram.py", "en")
    at.text_input(key="bg_new").input(f"{MARKER} は ミルク が すき")
    at.button(key="bg_add").click().run()
    assert_clean(at)
    assert not any("typed-by-learner" in body for body in html_bodies(at))


# --- what a learner typed survives a reload or a server restart -----------------------------


def test_added_bigram_sentences_come_back_from_the_url():
    at = open_page("pages/1_bigram.py", "en")
    at.text_input(key="bg_new").input("ねこ は ミルク が すき")
    at.button(key="bg_add").click().run()
    assert at.query_params["bg_add"] == "ねこ は ミルク が すき"
    fresh = open_page("pages/1_bigram.py", "en", dict(at.query_params))  # a new session: the server restarted
    assert_clean(fresh)
    assert fresh.session_state["bg_added"] == ["ねこ は ミルク が すき"]
    assert "ねこ は ミルク が すき" in fresh.selectbox(key="bg_sentence").options


def test_hostile_sentences_in_the_url_are_checked_like_typed_ones():
    linked = [
        "ねこ は ミルク が すき",
        "x",
        "",
        "a\x00b c",
        "y " * 400,
        "ねこ は ミルク が すき",
        "<b>x</b> y",
    ]
    at = open_page("pages/1_bigram.py", "ja", {"bg_add": linked})
    assert_clean(at)
    assert at.session_state["bg_added"] == ["ねこ は ミルク が すき", "<b>x</b> y"]
    assert at.query_params["bg_add"] == ["ねこ は ミルク が すき", "<b>x</b> y"]
    assert any("5" in w.value for w in at.warning)


def test_the_playground_sentence_comes_back_from_the_url():
    at = open_page("pages/9_playground.py", "en")
    assert at.text_input(key="pg_sentence").proto.query_param_key == "pg_sentence"  # the browser keeps it
    fresh = open_page("pages/9_playground.py", "en", {"pg_sentence": "猫 が 魚 を 食べた"})
    assert_clean(fresh)
    assert fresh.text_input(key="pg_sentence").value == "猫 が 魚 を 食べた"
    assert chart_frames(fresh)[0]["label"].iloc[0].startswith("猫")


# --- the capstone's training budget ----------------------------------------------------------


def test_training_beyond_the_budget_is_refused_with_a_message(lang):
    params = {"gpt_width": "64", "gpt_blocks": "2", "gpt_steps": "600", "gpt_heads": "8"}
    at = open_page("pages/7_capstone.py", lang, params)
    at.button(key="gpt_train").click().run()
    assert_clean(at)
    allowed = max_steps(64, 2)
    (warning,) = [w for w in at.warning if str(allowed) in w.value]
    assert "600" in warning.value
    assert training.cached(Config(d_model=64, n_heads=8, n_blocks=2, steps=600)) is None
    assert not at.get("vega_lite_chart")  # no loss curve: nothing was trained


def test_the_core_refuses_more_work_than_the_budget():
    with pytest.raises(ValueError, match="at most"):
        train(config=Config(d_model=64, n_heads=8, n_blocks=2, steps=600))
    assert training_work(Config()) <= MAX_TRAIN_WORK  # the default run is well inside


@pytest.mark.parametrize("typed", [5000, -3])
def test_a_typed_seed_out_of_range_gets_the_apps_own_message_in_japanese(typed):
    at = open_page("pages/7_capstone.py", "ja")
    seed = at.number_input(key="gpt_seed")
    assert seed.min is None and seed.max is None  # Streamlit's own range message is English only
    seed.set_value(typed).run()
    assert_clean(at)
    assert at.number_input(key="gpt_seed").value == (999 if typed > 0 else 0)
    assert any("シード" in w.value and str(typed) in w.value for w in at.warning)


def test_the_progress_uploader_takes_any_file_and_names_the_type_itself():
    at = open_page(None, "ja")
    uploader = at.get("file_uploader")[0]
    assert not list(uploader.proto.type)  # Streamlit's own wrong-type message is English only
    at.file_uploader(key="progress_file").set_value(("p.txt", b"{}", "text/plain")).run()
    assert at.error[0].value == catalog("ja")["home.import_problem.wrong_type"]
