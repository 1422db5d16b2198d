"""Controls kept in the URL, with the URL's value checked before Streamlit sees it.

This is the one module that keeps a lesson's state in the URL: widgets
through ``bound``, and the few values no widget holds (an edited query
vector, the learner's own sentences, the glossary entry a link leads to)
through ``read_vector`` / ``vector_text``, ``read_list``, ``read_choice`` and
``keep``, so their formats live here too.
(The page frame keeps the language, the progress and a class seat; all of
them, and these, read and write the URL through ``course_app.url``.)

Every control bound to the URL is created through ``bound``:

    bound(st.slider, label, 0.1, 5.0, 1.0, 0.1, key="temp")
    bound(column.select_slider, label, options, default, key="d_k")

``bound`` reads the control's range or options from the same arguments the
widget gets, checks the value a link carries for its key, and before the widget
exists replaces a bad value: a number inside the range but between two steps is
snapped to the nearest step; anything else unusable (a number outside the
range, text, NaN, infinity, an unknown option, an empty value) is removed so
that the control starts at its default. The learner
is told in their own language; the URL then holds the corrected value. A link
can carry anything, so this is the one place that decides what it may set.
"""

from __future__ import annotations

import functools
import inspect
import logging
import math
from collections.abc import Callable, Collection
from typing import Any, NoReturn

import numpy as np
import streamlit as st
from streamlit.errors import StreamlitValueAboveMaxError, StreamlitValueBelowMinError

from course_app import session, url
from course_app.i18n import md_escape, t
from course_app.streamlit_private import correct_url_value, forget_url_value, url_params

GUARDED: set[str] = set()  # every key that went through ``bound`` in this process (tests read it)
SHOWN_VALUE_CHARS = 24  # how much of a bad value the message repeats
_LOGGER = logging.getLogger(__name__)
NUMERIC = ("slider", "number_input")
CHOICE = ("select_slider", "selectbox", "radio", "segmented_control", "pills")
SWITCH = ("toggle", "checkbox")


@functools.cache
def _signature(kind: str, widget: Callable) -> inspect.Signature:
    return inspect.signature(widget)


def bound(widget: Callable, *args: Any, limits: tuple[float, float] | None = None, **kwargs: Any) -> Any:
    """Create ``widget`` (st.slider, column.selectbox, ...) bound to the URL under
    its ``key``, after making the URL's value for that key a valid one.

    ``limits`` gives the range of a number input created without min/max (the
    page then checks typed values itself, in the learner's language)."""
    kind = widget.__name__
    key = kwargs["key"]
    spec = _signature(kind, widget).bind(*args, **kwargs).arguments
    if limits is not None:
        spec = spec | {"min_value": limits[0], "max_value": limits[1]}
    forget_stale_value(kind, spec, str(key))
    check_url_value(kind, spec, str(key))
    GUARDED.add(str(key))
    try:
        value = widget(*args, bind="query-params", **kwargs)
    except (StreamlitValueAboveMaxError, StreamlitValueBelowMinError) as error:
        start_again(str(key), error)
    session.pop(session.retried(key), None)
    return value


def start_again(key: str, error: Exception) -> NoReturn:
    """The last line of defence behind ``forget_stale_value``: Streamlit refused
    the value it holds for ``key`` as out of range (a load test met this twice in
    17,551 actions without a way to replay it). Forget the value and run the app
    again, once, so the control starts from its default instead of the learner
    seeing an error; a second refusal in a row is a real bug and is raised."""
    retried = session.retried(key)
    if session.get(retried):
        raise error
    _LOGGER.warning("%s refused for %r; starting the control again from its default", error, key)
    _forget(key)
    session.put(retried, True)
    st.rerun()


# --- what a URL value may be --------------------------------------------------------


def _number(text: str) -> float | None:
    try:
        value = float(text)
    except (ValueError, OverflowError):
        return None
    return value if math.isfinite(value) else None


def _format_number(value: float, integer: bool) -> str:
    if integer:
        return str(int(value))
    value = round(value, 10)
    return str(int(value)) if value == int(value) else repr(value)


def _numeric_repair(spec: dict[str, Any], kind: str, text: str) -> tuple[bool, str | None]:
    low, high = spec.get("min_value"), spec.get("max_value")
    value = spec.get("value", "min")
    integer = all(isinstance(v, int) and not isinstance(v, bool) for v in (low, high) if v is not None)
    if kind == "number_input" and isinstance(value, float):
        integer = False
    if isinstance(spec.get("step"), float):
        integer = False
    number = _number(text)
    outside = number is None or (low is not None and number < low) or (high is not None and number > high)
    if outside:  # like every page's own checks: a value outside the range falls back to the default
        return False, None
    fixed = number
    step = spec.get("step")
    if kind == "slider" and step and low is not None:  # inside the range but between two steps: snap
        fixed = float(low) + round((fixed - float(low)) / float(step)) * float(step)
        fixed = min(fixed, float(high)) if high is not None else fixed
    if integer:
        fixed = float(round(fixed))
    close = abs(fixed - number) <= 1e-9 * max(1.0, abs(number))
    # an integer number input reads only digits ("32", not "32.0"); a slider reads any number
    ok = close and (kind != "number_input" or not integer or text.strip().lstrip("+-").isdigit())
    return ok, _format_number(fixed, integer)


def _labels(spec: dict[str, Any]) -> list[str]:
    options = list(spec.get("options", ()))
    format_func = spec.get("format_func", str) or str
    return [str(format_func(option)) for option in options]


def _choice_repair(spec: dict[str, Any], kind: str, text: str) -> tuple[bool, str | None]:
    labels = _labels(spec)
    if text in labels:
        return True, text
    return False, None


def repair(kind: str, spec: dict[str, Any], value: str | list[str]) -> tuple[bool, str | None]:
    """Is ``value`` (what the URL holds for this control) valid? Returns (ok, what
    the URL should hold: a snapped value, or None to remove it)."""
    values = list(value) if isinstance(value, list) else [value]
    text = values[-1] if values else ""
    if kind in NUMERIC:
        ok, fixed = _numeric_repair(spec, kind, text)
    elif kind in CHOICE:
        ok, fixed = _choice_repair(spec, kind, text)
    elif kind in SWITCH:
        ok = text.lower() in ("true", "false")
        fixed = text.lower() if ok else None
    else:  # text inputs: any text the widget may hold
        limit = spec.get("max_chars")
        ok = limit is None or len(text) <= limit
        fixed = text if ok else None
    return ok and len(values) == 1, fixed


# --- applying it to the URL ---------------------------------------------------------


def forget_stale_value(kind: str, spec: dict[str, Any], key: str) -> None:
    """A control whose range or options follow another control (the tokens read
    of a sentence the learner has just shortened) can hold a value that is no
    longer allowed. Streamlit would refuse it with an error; instead the control
    quietly starts again from its default, in the session and in the URL (no
    message: the learner did nothing wrong)."""
    if kind not in NUMERIC + CHOICE or not session.has(key):
        return
    try:  # a value sent over the websocket can be anything: an option the control never had
        value = session.get(key)
        if isinstance(value, list | tuple | dict) or value is None:
            return
        text = str((spec.get("format_func") or str)(value)) if kind in CHOICE else str(value)
    except (KeyError, IndexError, TypeError, ValueError, OverflowError):
        text = None
    if text is not None and repair(kind, spec, text)[0]:
        return
    _forget(key)


def _forget(key: str) -> None:
    """Drop the control's value from the session and from the URL."""
    session.pop(key, None)
    forget_url_value(key)


def check_url_value(kind: str, spec: dict[str, Any], key: str) -> None:
    """Make what the URL holds for ``key`` valid before the widget reads it: both
    the current query string and the values Streamlit seeds widgets from."""
    with url_params() as found:
        if found is None:
            return
        qp, seeds = found  # seeds: what the widget will be seeded from
        raw = seeds.get(key)
        if raw is None and qp.has_param(key):
            raw = url.get_all(key)
    if raw is None:
        return
    ok, fixed = repair(kind, spec, raw)
    if ok:
        return
    if fixed is None:
        forget_url_value(key)
    else:
        correct_url_value(key, fixed)
    _tell(spec.get("label", key), raw, fixed)


def _shown(value: str | list[str]) -> str:
    text = " & ".join(value) if isinstance(value, list) else value
    text = text if len(text) <= SHOWN_VALUE_CHARS else text[: SHOWN_VALUE_CHARS - 1] + "…"
    return md_escape(text) if text else t("ui.url_empty_value")


def _tell(label: str, raw: str | list[str], fixed: str | None) -> None:
    control = str(label).splitlines()[0] if label else ""
    if fixed is None:
        message = t("ui.url_reset", control=control, value=_shown(raw))
    else:
        message = t("ui.url_clamped", control=control, value=_shown(raw), now=md_escape(fixed))
    st.toast(message, icon="⚠️")


# --- values kept in the URL without a widget ------------------------------------------


def vector_text(values: np.ndarray) -> str:
    """A vector as the URL keeps it: "1,1.5,0,-1", each to one decimal."""
    return ",".join(f"{float(v):g}" for v in np.round(values, 1))


def parse_vector(text: str | None, d: int, bound: float) -> np.ndarray | None:
    """A vector kept in the URL as "1,1.5,0,-1": d numbers, each clipped to
    ±``bound`` and rounded to 0.1. None when the text is not that (a hostile
    or damaged URL value is ignored, never an error)."""
    if not text or len(text) > 20 * d:
        return None
    try:
        values = np.array([float(part) for part in text.split(",")])
    except ValueError:
        return None
    if values.shape != (d,) or not np.all(np.isfinite(values)):
        return None
    return np.round(np.clip(values, -bound, bound), 1)


def read_vector(param: str, d: int, bound: float) -> np.ndarray | None:
    """The vector the URL holds under ``param`` (None when absent); a damaged
    or hostile value is removed from the URL, as a bad widget value is."""
    if not url.has(param):
        return None
    parsed = parse_vector(url.get(param), d, bound)
    if parsed is None:
        url.drop(param)
    return parsed


def read_list(param: str) -> list[str]:
    """Every value the URL holds under ``param`` (each checked by the caller)."""
    return url.get_all(param)


def read_choice(param: str, options: Collection[str], refused: str) -> str | None:
    """The one of ``options`` the URL holds under ``param`` (None when absent).
    Anything else is removed from the URL and the learner is told with the
    catalog entry ``refused`` (its ``{value}``: what the link carried)."""
    raw = url.get(param)
    if raw is None or raw in options:
        return raw
    url.drop(param)
    st.toast(t(refused, value=_shown(raw)), icon="⚠️")
    return None


def keep(param: str, value: str | list[str] | None) -> None:
    """Make the URL hold ``value`` under ``param`` (a list: one value each),
    or nothing when ``value`` is None or empty; the URL is written only when
    it disagrees."""
    if not value:
        url.drop(param)
    else:
        url.put(param, value)


# --- a choice shown with glosses but kept in the URL by its bare value ----------------


def shown_choice(
    widget: Callable,
    label: str,
    options: list[Any],
    url_labels: list[str],
    shown: list[str],
    index: int,
    key: str,
    in_url: bool = True,
    **kwargs: Any,
) -> Any:
    """A choice (st.selectbox, ...) among ``options``, returning the chosen
    option. The learner sees ``shown`` (in English a token with its gloss:
    "それ (it)"); the URL keeps ``url_labels`` (the bare token, the same in both
    languages, so a shared link reads the same whatever the language).

    Streamlit's URL binding writes what the widget shows, so this control reads
    and writes the URL itself, checked as ``bound`` checks a choice: an unknown
    value is removed and the learner told. With ``in_url`` False the choice is
    kept for the session only."""
    options = list(options)
    show = dict(zip(options, shown, strict=True)).__getitem__
    if not in_url:
        kwargs["persist_state"] = "session"
        return widget(label, options, index=index, format_func=show, key=key, **kwargs)
    spec = {"options": options, "format_func": dict(zip(options, url_labels, strict=True)).__getitem__}
    kind = widget.__name__
    forget_stale_value(kind, spec | {"label": label}, key)
    check_url_value(kind, spec | {"label": label}, key)
    GUARDED.add(key)
    starts = session.setdefault(session.URL_SHOWN_START, {})
    if not session.has(key):  # no widget yet: it starts at the link's choice, else the default
        linked = url.get(key)
        starts[key] = url_labels.index(linked) if linked in url_labels else index
    # The start is passed as the widget's index, so the browser draws it from
    # the first run on (a value seeded in the session instead was sometimes
    # drawn as the first option while the page used the seeded one), and it
    # stays the same index for the session: an index that changed from one run
    # to the next would make the widget a new one, back to its start.
    chosen = widget(label, options, index=starts.get(key, index), format_func=show, key=key, **kwargs)
    at = options.index(chosen) if chosen in options else index
    keep(key, None if at == index else url_labels[at])
    return options[at]
