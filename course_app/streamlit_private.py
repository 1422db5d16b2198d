"""Every use of Streamlit's private API outside the websocket guard, in one place.

Streamlit gives no public way to change the values a URL seeds its widgets
with, to read the raw query string it refused for its size, or to name the
session a run belongs to. These few functions do it through Streamlit's
internals; nothing else in the app touches them. ``PRIVATE_NAMES`` lists
every internal name the app relies on (here and in ``wire_guard``), and
``missing_private_names`` says which of them a Streamlit upgrade has moved:
a test calls it, so an upgrade fails loudly instead of silently turning a
check off.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from streamlit.runtime.scriptrunner_utils.script_run_context import get_script_run_ctx

# module -> names (a dotted name is an attribute of an attribute)
PRIVATE_NAMES: dict[str, tuple[str, ...]] = {
    "streamlit.runtime.scriptrunner_utils.script_run_context": ("get_script_run_ctx",),
    "streamlit.runtime.state.query_params": (
        "QueryParams._initial_query_params",
        "QueryParams.set_corrected_value",
        "QueryParams.has_param",
        "QueryParams.remove_param",
    ),
    "streamlit.runtime.state.session_state": (
        "SessionState.query_params",
        "Serialized",
        "Value",
        "WStates.__getitem__",
    ),
    "streamlit.runtime.app_session": (
        "AppSession._handle_clear_cache_request",
        "AppSession._handle_git_information_request",
        "AppSession._handle_rerun_script_request",
        "AppSession._handle_file_urls_request",
    ),
}


def _has(module: Any, dotted: str) -> bool:
    obj = module
    for part in dotted.split("."):
        if part == "_initial_query_params":  # an instance attribute: a dataclass field
            fields = getattr(obj, "__dataclass_fields__", {})
            if part not in fields:
                return False
            continue
        if not hasattr(obj, part):
            return False
        obj = getattr(obj, part)
    return True


def missing_private_names() -> list[str]:
    """The internal names in PRIVATE_NAMES that this Streamlit no longer has."""
    missing = []
    for module_name, names in PRIVATE_NAMES.items():
        try:
            module = importlib.import_module(module_name)
        except ImportError:
            missing.append(module_name)
            continue
        missing += [f"{module_name}.{name}" for name in names if not _has(module, name)]
    return missing


def session_id() -> str:
    """The id of the browser session this run belongs to ("?" outside a run)."""
    ctx = get_script_run_ctx()
    return ctx.session_id if ctx else "?"


def raw_query_string() -> str:
    """The query string as the browser sent it, even one Streamlit refused."""
    ctx = get_script_run_ctx()
    return getattr(ctx, "query_string", "") or ""


@contextmanager
def url_params() -> Iterator[tuple[Any, dict[str, list[str]]] | None]:
    """The run's query parameters and the values widgets are seeded from
    (None outside a run): ``with url_params() as found: qp, seeds = found``."""
    ctx = get_script_run_ctx()
    if ctx is None:
        yield None
        return
    with ctx.session_state.query_params() as qp:
        yield qp, qp._initial_query_params


def forget_url_value(key: str) -> None:
    """Drop ``key`` from the URL and from the values widgets are seeded from."""
    with url_params() as found:
        if found is None:
            return
        qp, seeds = found
        seeds.pop(key, None)
        if qp.has_param(key):
            qp.remove_param(key)


def correct_url_value(key: str, text: str) -> None:
    """Make the URL and the widget's seed for ``key`` hold ``text``."""
    with url_params() as found:
        if found is None:
            return
        qp, seeds = found
        seeds[key] = [text]
        qp.set_corrected_value(key, text, "string_value")
