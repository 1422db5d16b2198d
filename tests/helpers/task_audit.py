"""Audit of a page's "try this" tasks, shared by the task tests of every lesson.

A task must tick only when the learner did what it asks. So, for one page:

1. the page as it opens, at its defaults, satisfies no task's check (a check
   that held already would tick nothing: see below);
2. every *single* change of one control (each slider at its two ends, every
   option of a select box, radio or select slider, each switch flipped, each
   button pressed once) ticks at most the tasks that name that control;
3. the action a task names (a recipe, written per lesson) ticks it.

Every step starts from the page's defaults (a URL with nothing but the
language), never from values in the URL: a check that already holds on the
page's first run ticks nothing by design (course_app.page.made_true), since
those values came from a link, not from the learner.

Each lesson's test file declares, per task, the widget keys the task names
and a recipe; ``audit_single_changes`` and ``assert_recipe_ticks`` do the rest;
``away_and_back`` plays a receiver who moves the shared controls off and on.
Both audits open every fold first (``open_folds``): a control inside a fold is
still a control, and a task that names it must be completable once the fold is
open.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator, Mapping

from streamlit.testing.v1 import AppTest

from helpers.apptest import open_page

SKIP_KEYS = frozenset({"lang_choice", "lang_choice_top"})  # the language switches
KINDS = ("slider", "select_slider", "selectbox", "radio", "toggle", "checkbox", "number_input", "button")

Recipe = Callable[[AppTest], None]


def ticked(at: AppTest, lesson_id: str) -> set[str]:
    """The lesson's task ids the learner's progress holds."""
    prefix = f"{lesson_id}."
    tasks = at.session_state["progress"].tasks
    return {task.removeprefix(prefix) for task in tasks if task.startswith(prefix)}


def _widgets(at: AppTest, skip: frozenset[str]):
    for kind in KINDS:
        for widget in at.get(kind):
            if widget.key and widget.key not in skip and not widget.disabled:
                yield widget


def single_changes(at: AppTest, skip: frozenset[str] = SKIP_KEYS) -> Iterator[tuple[str, str, Recipe]]:
    """(widget key, what is changed, a function that makes that change on a
    freshly opened copy of the page) for every single change of one control."""
    for widget in list(_widgets(at, skip)):
        key = widget.key
        if widget.type == "button":
            yield key, "press", lambda at, key=key: at.button(key=key).click()
        elif widget.type in ("toggle", "checkbox"):
            flipped = not widget.value
            yield (
                key,
                f"set {flipped}",
                lambda at, key=key, kind=widget.type, v=flipped: at.get(kind)[
                    _index(at, kind, key)
                ].set_value(v),
            )
        elif widget.type in ("slider", "number_input"):
            lo, hi = widget.min, widget.max
            for end in (lo, hi):
                if end is not None and end != widget.value:
                    yield (
                        key,
                        f"= {end}",
                        lambda at, key=key, kind=widget.type, v=end: at.get(kind)[
                            _index(at, kind, key)
                        ].set_value(v),
                    )
        elif widget.type == "selectbox":
            for i in range(len(widget.options)):
                if widget.index != i:
                    yield key, f"option {i}", lambda at, key=key, i=i: at.selectbox(key=key).select_index(i)
        else:  # radio, select_slider: AppTest keeps only the formatted labels
            value = widget.value
            current = -1 if value is None else widget.options.index(str(widget.format_func(value)))
            for i, label in enumerate(widget.options):
                if i != current:
                    choose = lambda at, key=key, k=widget.type, i=i: _choose(at, k, key, i)  # noqa: E731
                    yield key, f"option {label}", choose


def _index(at: AppTest, kind: str, key: str) -> int:
    return next(i for i, w in enumerate(at.get(kind)) if w.key == key)


def _choose(at: AppTest, kind: str, key: str, i: int) -> None:
    """Choose the i-th option of a radio or select slider by its label."""
    widget = at.get(kind)[_index(at, kind, key)]
    label = widget.options[i]
    values = [label, i]
    for text in (label, label.replace("−", "-").replace(",", "")):
        for cast in (int, float):
            with contextlib.suppress(ValueError):
                values.append(cast(text))
    for value in values:
        try:
            if str(widget.format_func(value)) == label:
                widget.set_value(value)
                return
        except Exception:
            continue
    raise AssertionError(f"could not choose option {i} ({label}) of {kind} {key}")


def audit_single_changes(
    page: str,
    lesson_id: str,
    names: Mapping[str, set[str]],
    lang: str = "en",
    skip: frozenset[str] = SKIP_KEYS,
) -> None:
    """Steps 1 and 2 above. ``names`` maps every task id of the lesson to the
    widget keys whose change may tick it (the controls the task names)."""
    at = open_page(page, lang, folds=True)
    assert not at.exception, [e.value for e in at.exception]
    assert ticked(at, lesson_id) == set(), "a task is ticked on a freshly opened page"
    held = {task for task, ok in at.session_state["tasks_seen"].items() if ok}
    assert not held, f"the defaults already satisfy {sorted(held)}"
    changes = list(single_changes(at, skip))
    assert changes, "the page was expected to have controls"
    for key, what, change in changes:
        fresh = open_page(page, lang, folds=True)
        change(fresh)
        fresh.run()
        assert not fresh.exception, (key, what, [e.value for e in fresh.exception])
        allowed = {task for task, keys in names.items() if key in keys}
        wrong = ticked(fresh, lesson_id) - allowed
        assert not wrong, f"changing {key} ({what}) alone ticked {sorted(wrong)}"


def assert_recipe_ticks(page: str, lesson_id: str, task: str, recipe: Recipe, lang: str = "en") -> AppTest:
    """Step 3: the named action ticks the task (and the page is still clean)."""
    at = open_page(page, lang, folds=True)
    assert task not in ticked(at, lesson_id)
    recipe(at)
    assert not at.exception, [e.value for e in at.exception]
    assert task in ticked(at, lesson_id), f"{lesson_id}.{task} did not tick after its recipe"
    return at


def away_and_back(at: AppTest, keys: Mapping[str, object], off: Mapping[str, object]) -> None:
    """The learner moves each control in ``keys`` to its value in ``off`` (one
    run), then back to its value in ``keys`` (another run)."""
    for values in (off, keys):
        for key, value in values.items():
            kind = next(k for k in KINDS if any(w.key == key for w in at.get(k)))
            at.get(kind)[_index(at, kind, key)].set_value(value)
        at.run()
        assert not at.exception, [e.value for e in at.exception]
