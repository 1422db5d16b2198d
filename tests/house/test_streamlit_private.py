"""Streamlit's private API: used in one place, and checked against the installed Streamlit."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from course_app import streamlit_private

ROOT = Path(__file__).resolve().parents[2]
ALLOWED = {"course_app/streamlit_private.py", "course_app/wire_guard.py"}
PRIVATE_USE = re.compile(r"streamlit\.runtime|streamlit\.web|get_script_run_ctx|_initial_query_params")


def app_sources() -> list[Path]:
    files = [ROOT / "streamlit_app.py", *(ROOT / "pages").glob("*.py")]
    for folder in ("course_app", "lessons"):
        files += (ROOT / folder).rglob("*.py")
    return files


def test_every_private_name_the_app_relies_on_exists_in_this_streamlit():
    assert streamlit_private.missing_private_names() == []


def test_a_moved_name_is_reported(monkeypatch):
    names = dict(streamlit_private.PRIVATE_NAMES)
    names["streamlit.runtime.app_session"] = ("AppSession._handle_a_message_that_was_renamed",)
    names["streamlit.runtime.no_such_module"] = ("anything",)
    monkeypatch.setattr(streamlit_private, "PRIVATE_NAMES", names)
    assert streamlit_private.missing_private_names() == [
        "streamlit.runtime.app_session.AppSession._handle_a_message_that_was_renamed",
        "streamlit.runtime.no_such_module",
    ]


def test_only_two_modules_touch_streamlits_internals():
    sources = app_sources()
    assert any(path.name == "url_state.py" for path in sources)  # the scan reaches the app's modules
    users = {
        str(path.relative_to(ROOT))
        for path in sources
        if PRIVATE_USE.search(path.read_text(encoding="utf-8"))
    }
    assert users == ALLOWED


def test_every_internal_the_websocket_guard_patches_is_listed():
    guard = (ROOT / "course_app/wire_guard.py").read_text(encoding="utf-8")
    patched = set(re.findall(r"\b(AppSession\.\w+|WStates\.\w+)\s*=", guard))
    listed = {name for names in streamlit_private.PRIVATE_NAMES.values() for name in names}
    assert patched and patched <= listed


# The URL is read and written in course_app/url.py alone (the language, the
# progress and a class seat through its named parameters); every lesson
# control and value goes through url_state, which binds widgets to it; the
# private module reaches the seeds Streamlit keeps beside it.
URL_KEEPERS = {
    "course_app/url.py",
    "course_app/url_state.py",
    "course_app/streamlit_private.py",
}
URL_USE = re.compile(r"\bst\.query_params\b|\bquery_params\(|_initial_query_params|bind\s*=")


def test_no_control_is_kept_in_the_url_outside_the_state_layer():
    sources = app_sources()
    assert any(path.parts[-3:] == ("lessons", "bigram", "parts.py") for path in sources)
    users = {
        str(path.relative_to(ROOT)) for path in sources if URL_USE.search(path.read_text(encoding="utf-8"))
    }
    assert users <= URL_KEEPERS, sorted(users - URL_KEEPERS)


@pytest.mark.parametrize(
    ("source", "uses_the_url"),
    [
        ('lang = st.query_params.get("lang")', True),
        ('st.query_params["p"] = "x"', True),
        ("with ctx.session_state.query_params() as qp:", True),
        ('st.slider("a", 0, 1, key="k", bind="query-params")', True),
        ("st.page_link(page, query_params=params)", False),  # a link's own parameters
        ("url.put(url.LANG, lang)", False),
    ],
)
def test_the_url_check_tells_a_use_of_the_url_from_a_link(source, uses_the_url):
    assert bool(URL_USE.search(source)) is uses_the_url


# The session is read and written in course_app/session.py alone, by names
# that module gives: no other module touches st.session_state, spells one of
# its keys, or hands its accessors a key of its own making.
SESSION_KEEPER = "course_app/session.py"
ACCESSORS = {"get", "put", "pop", "has", "setdefault"}


def session_misuses(source: str, keys: set[str]) -> list[str]:
    """What in ``source`` reaches the session other than through course_app.session's names."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Attribute) and node.attr == "session_state":
            if getattr(node.value, "id", "") == "st":
                found.append(f"line {node.lineno}: st.session_state")
        elif isinstance(node, ast.ImportFrom) and node.module == "streamlit":
            if any(alias.name == "session_state" for alias in node.names):
                found.append(f"line {node.lineno}: imports session_state")
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value in keys:
            found.append(f"line {node.lineno}: spells the key {node.value!r}")
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and getattr(node.func.value, "id", "") == "session"
            and node.func.attr in ACCESSORS
            and node.args
            and isinstance(node.args[0], ast.Constant | ast.JoinedStr | ast.BinOp)
        ):
            found.append(f"line {node.lineno}: session.{node.func.attr} given a key of its own")
    return found


def test_no_session_key_is_touched_or_spelled_outside_the_state_layer():
    from course_app import session

    keys = set(session.named().values())
    assert {"progress", "bg_added", "classroom_seat", "gpt_heads"} <= keys  # the list is read
    sources = app_sources()
    assert any(str(path.relative_to(ROOT)) == SESSION_KEEPER for path in sources)
    misuses = {
        str(path.relative_to(ROOT)): found
        for path in sources
        if str(path.relative_to(ROOT)) != SESSION_KEEPER
        and (found := session_misuses(path.read_text(encoding="utf-8"), keys))
    }
    assert misuses == {}


def test_every_session_key_is_named_once():
    from course_app import session

    named = session.named()
    assert len(named) >= 40
    source = ast.parse((ROOT / SESSION_KEEPER).read_text(encoding="utf-8"))
    spelled = [node.value for node in ast.walk(source) if isinstance(node, ast.Constant)]
    assert {key: spelled.count(key) for key in named.values() if spelled.count(key) != 1} == {}


@pytest.mark.parametrize(
    ("source", "misuses"),
    [
        ('x = st.session_state["bg_added"]', 2),  # st.session_state, and the key spelled
        ("st.session_state.progress = learner", 1),
        ("from streamlit import session_state", 1),
        ('st.text_input("label", key="bg_new")', 1),  # a widget key named here, not in session.py
        ('session.put("bg_notice", ("added", {}))', 2),
        ('session.get(f"{prefix}_edits")', 1),
        ('session.pop("url_state_retried_" + key)', 1),
        ("session.put(session.BG_ADDED, added)", 0),
        ("session.get(session.fold(name))", 0),
        ("session.pop(key, None)", 0),  # a key handed in by the caller
        ('st.text_input("label", key="pg_sentence")', 0),  # a key only its widget reads
        ('t("progress.file_label")', 0),
    ],
)
def test_the_session_check_finds_each_way_round_the_state_layer(source, misuses):
    keys = {"progress", "bg_added", "bg_new", "bg_notice"}
    assert len(session_misuses(source, keys)) == misuses
