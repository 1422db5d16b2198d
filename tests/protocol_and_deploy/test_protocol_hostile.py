"""Hostile clients at the websocket: messages a browser never sends, spoken with
Streamlit's own protocol (tests/benchmarks/streamlit_protocol.py) to the real
app. Each test sends what an attacker can, then checks that the sender's page
runs without an error (no stack trace reaches it), that its session recovers
by itself, and that nothing it sent reached another learner.

The rules are course_app/wire_guard.py's, the playground's table check and the
server's message limit (.streamlit/config.toml)."""

from __future__ import annotations

import json
import math
import re
import sys
import time
import urllib.request
from pathlib import Path

import pytest
from helpers.apprun import running_app

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg
from streamlit_protocol import StreamlitSession
from websockets.exceptions import ConnectionClosed

FINISHED = ForwardMsg.ScriptFinishedStatus


@pytest.fixture(scope="module")
def app():
    with running_app() as url:
        yield url


class Attacker(StreamlitSession):
    """A session that also sends what no browser would, and reads what comes back."""

    def element_id(self, suffix: str) -> str:
        return next(i for i in self.element_ids if i.endswith(suffix))

    def open(self, page: str, query: str) -> float:
        self.element_ids: list[str] = []
        self.opened: list[str] = []  # the folds this session opened (open_folds)
        seconds = super().open(page, query)
        self.send_states({})  # once more, reading every element's id this time
        return seconds

    def open_folds(self) -> None:
        """Open every fold (course_app/folds.py) as a click would, so that the
        controls inside them are drawn; their ids join ``element_ids``."""
        folds = [i for i in self.element_ids if "fold_" in i]
        clean(self.send_states({i: _bool(True) for i in folds}))
        self.opened = folds

    def send_states(self, changes: dict, fragment_id: str = "") -> dict:
        return self._send(changes | {i: _bool(True) for i in self.opened}, fragment_id)

    def _send(self, changes: dict, fragment_id: str = "") -> dict:
        """A rerun with every known widget's state, ``changes`` (id -> a function
        filling a WidgetState proto) replacing or adding some. Returns what the
        run drew: exceptions, texts, element ids and how it finished."""
        msg = BackMsg()
        state = msg.rerun_script
        state.query_string, state.page_script_hash, state.fragment_id = (
            self.query,
            self.page_hash,
            fragment_id,
        )
        for widget in self.widgets.values():
            if widget.id not in changes and widget.value is not None:
                widget.state(state.widget_states.widgets.add())
        for wid, fill in changes.items():
            proto = state.widget_states.widgets.add()
            proto.id = wid
            fill(proto)
        self.ws.send(msg.SerializeToString())
        return self.read_run()

    def read_run(self, timeout: float = 60) -> dict:
        seen = {"exceptions": [], "texts": [], "ids": [], "status": None, "runs": 0}
        deadline = time.monotonic() + timeout
        while True:
            fwd = ForwardMsg()
            fwd.ParseFromString(self.ws.recv(timeout=max(0.1, deadline - time.monotonic())))
            kind = fwd.WhichOneof("type")
            if kind == "page_info_changed":
                self.query = fwd.page_info_changed.query_string
            elif kind == "new_session":
                seen["runs"] += 1
            elif kind == "delta" and fwd.delta.HasField("new_element"):
                _note_element(fwd.delta.new_element, seen)
            elif kind == "delta" and fwd.delta.add_block.expandable.id:  # a fold: a widget too
                seen["ids"].append(fwd.delta.add_block.expandable.id)
            elif kind == "script_finished" and fwd.script_finished != FINISHED.FINISHED_EARLY_FOR_RERUN:
                seen["status"] = FINISHED.Name(fwd.script_finished)
                self.element_ids = list(dict.fromkeys(self.element_ids + seen["ids"]))
                return seen


def _note_element(element, seen: dict) -> None:
    kind = element.WhichOneof("type")
    proto = getattr(element, kind)
    if kind == "exception":
        seen["exceptions"].append((proto.type, proto.message, list(proto.stack_trace)))
    elif kind in ("markdown", "alert"):
        seen["texts"].append(proto.body)
    if getattr(proto, "id", ""):
        seen["ids"].append(proto.id)


def attacker(app: str, page: str) -> Attacker:
    session = Attacker(app, timeout=60)
    session.open(page, "lang=en")
    return session


def clean(run: dict) -> None:
    """The run went to its end and drew no error at all."""
    assert run["exceptions"] == [], run["exceptions"]
    assert run["status"] in ("FINISHED_SUCCESSFULLY", "FINISHED_FRAGMENT_RUN_SUCCESSFULLY"), run["status"]


def recovers(session: Attacker) -> None:
    """The next ordinary rerun (what a browser sends) is healthy too."""
    clean(session.send_states({}))


def _string(value: str):
    return lambda p: setattr(p, "string_value", value)


def _bool(value: bool):
    return lambda p: setattr(p, "bool_value", value)


def _int(value: int):
    return lambda p: setattr(p, "int_value", value)


def _double(value: float):
    return lambda p: setattr(p, "double_value", value)


def _doubles(*values: float):
    return lambda p: p.double_array_value.data.extend(values)


def _json(value: str):
    return lambda p: setattr(p, "json_value", value)


# --- 5 and 7: options a control never had, values of the wrong kind -----------------

UNKNOWN_OPTIONS = [
    ("attention", "at_query", _string("NOPE")),
    ("attention", "at_query", _string("99")),
    ("causal_mask", "cm_query", _string("NOPE")),
    ("causal_mask", "cm_fill", _string("NOPE")),
    ("causal_mask", "cm_mask", _string("-1")),
    ("multi_head", "mh_query", _string("NOPE")),
]

WRONG_KINDS = [
    ("causal_mask", "cm_window", _bool(True)),  # a bool for a slider
    ("causal_mask", "cm_temp", _string("hot")),  # text for a slider
    ("causal_mask", "cm_query", _json("{}")),  # JSON for a select box
    ("causal_mask", "cm_query", _int(99)),  # a number for a select box
    ("causal_mask", "cm_mask", _doubles(1.0)),  # numbers for a radio
    ("causal_mask", "cm_temp", _doubles(math.nan)),
    ("causal_mask", "cm_temp", _doubles(math.inf, -math.inf)),
    ("attention", "at_query", _bool(False)),
]


@pytest.mark.parametrize(("page", "key", "fill"), UNKNOWN_OPTIONS + WRONG_KINDS)
def test_a_value_no_control_can_hold_starts_the_control_again(app, page, key, fill):
    session = attacker(app, page)
    try:
        widget = next((w for w in session.widgets.values() if w.id.endswith(key)), None)
        if widget is None:  # a control inside a fold: open the folds, then send it
            session.open_folds()
            clean(session.send_states({session.element_id(key): fill}))
            recovers(session)
            return
        clean(session.send_states({widget.id: fill}, widget.fragment_id))
        recovers(session)
    finally:
        session.close()


# --- 6: the capstone's seed --------------------------------------------------------


@pytest.mark.parametrize("fill", [_double(math.nan), _double(math.inf), _double(-math.inf), _string("7")])
def test_a_seed_that_is_no_number_is_the_default_seed(app, fill):
    session = attacker(app, "capstone")
    try:
        seed = session.element_id("gpt_seed")
        clean(session.send_states({seed: fill}))
        recovers(session)
        assert "gpt_seed=" not in session.query or re.search(r"gpt_seed=\d+(&|$)", session.query)
    finally:
        session.close()


# --- 4: the playground's vector table ------------------------------------------------


def _editor(edits: dict):
    base = {"edited_rows": {}, "added_rows": [], "deleted_rows": []}
    return _string(json.dumps(base | edits))


ROW = {"animal": 0.5, "food": 0.5, "action": 0.5, "function word": 0.5}  # the English axis names


@pytest.mark.parametrize(
    "edits",
    [
        {"added_rows": [ROW] * 1500},
        {"added_rows": [ROW]},
        {"deleted_rows": [0, 1]},
        {"edited_rows": {"99": ROW}},
        {"edited_rows": {"-1": ROW}},
        {"edited_rows": {"0": {"no such column": 1}}},
        {"edited_rows": {"0": {"animal": "text"}}},
    ],
)
def test_the_vector_table_refuses_rows_and_cells_it_does_not_have(app, edits):
    session = attacker(app, "playground")
    try:
        editor = next(i for i in session.element_ids if "pg_editor_" in i)
        kept = session.send_states({editor: _editor({"edited_rows": {"0": {"animal": 0.25}}})})
        clean(kept)
        run = session.send_states({editor: _editor(edits)})
        clean(run)
        assert any("does not have" in text for text in run["texts"]), run["texts"]
        recovers(session)
    finally:
        session.close()


def test_a_table_state_streamlit_cannot_read_is_dropped(app):
    """Row names that are no numbers: Streamlit's own reading of the table's
    state fails, and the table simply shows the numbers it held."""
    session = attacker(app, "playground")
    try:
        editor = next(i for i in session.element_ids if "pg_editor_" in i)
        clean(session.send_states({editor: _editor({"edited_rows": {"zero": ROW}})}))
        clean(session.send_states({editor: _string("not json")}))
        recovers(session)
    finally:
        session.close()


def test_the_vector_table_keeps_the_learners_edit(app):
    """A learner's own edit (an existing row, a number column) is accepted as is."""
    session = attacker(app, "playground")
    try:
        editor = next(i for i in session.element_ids if "pg_editor_" in i)
        run = session.send_states({editor: _editor({"edited_rows": {"0": {"animal": 0.25}}})})
        clean(run)
        assert not any("does not have" in text for text in run["texts"])
    finally:
        session.close()


# --- 2: clear_cache -------------------------------------------------------------------


def _trainings(app: str) -> int:
    """How often the server has trained lesson 8's model (its cache misses)."""
    with urllib.request.urlopen(f"{app}/_stcore/metrics", timeout=30) as response:
        text = response.read().decode()
    misses = re.findall(r'cache_lookups_total\{cache="[^"]*trained_model"[^}]*result="miss"\} (\d+)', text)
    return sum(int(m) for m in misses)


def test_no_client_can_clear_the_shared_caches(app):
    learner = attacker(app, "todays_llms")
    learner.close()
    trained = _trainings(app)
    assert trained >= 1
    session = attacker(app, "attention")
    try:
        msg = BackMsg()
        msg.clear_cache = True
        session.ws.send(msg.SerializeToString())
        recovers(session)
    finally:
        session.close()
    later = attacker(app, "todays_llms")  # the next learner on lesson 8
    later.close()
    assert _trainings(app) == trained


# --- 9: message size ------------------------------------------------------------------


def test_a_message_larger_than_the_app_needs_closes_its_websocket(app):
    session = attacker(app, "attention")
    try:
        msg = BackMsg()
        state = msg.rerun_script
        state.query_string, state.page_script_hash = session.query, session.page_hash
        big = state.widget_states.widgets.add()
        big.id, big.string_value = "x", "a" * 2_000_000  # 2 MB
        session.ws.send(msg.SerializeToString())
        with pytest.raises(ConnectionClosed):
            session.read_run(timeout=30)
    finally:
        session.close()
    other = attacker(app, "attention")  # the server is fine for everyone else
    try:
        recovers(other)
    finally:
        other.close()


# --- 10: a rerun flood ----------------------------------------------------------------


def test_a_rerun_flood_runs_the_page_at_a_fair_rate_and_keeps_the_last_request(app):
    """60 reruns, one every 50 ms (a script, not a learner): each would start
    the page anew (a run another learner waits for), so the page runs a bounded
    number of times instead, and the last request, with its value, is the one
    the page ends with."""
    session = attacker(app, "attention")
    try:
        slider = next(w for w in session.widgets.values() if w.id.endswith("at_q6_food"))  # kept in the URL
        start = time.monotonic()
        for i in range(60):
            value = 2.0 if i == 59 else 1.0 + 0.1 * (i % 5)
            session.ws.send(_rerun(session, {slider.id: _doubles(value)}).SerializeToString())
            time.sleep(0.05)
        runs, last = 0, None
        while time.monotonic() - start < 7:
            try:
                fwd = ForwardMsg()
                fwd.ParseFromString(session.ws.recv(timeout=0.5))
            except TimeoutError:
                continue
            kind = fwd.WhichOneof("type")
            runs += kind == "new_session"
            if kind == "page_info_changed":
                last = fwd.page_info_changed.query_string
        assert runs <= 30, runs  # 60 without a limit; a fair share is a few runs a second
        assert last is not None and "at_q6=1%2C2%2C0%2C-1" in last, last  # food 2, the rest as they were
    finally:
        session.close()


def _rerun(session: Attacker, changes: dict) -> BackMsg:
    msg = BackMsg()
    state = msg.rerun_script
    state.query_string, state.page_script_hash = session.query, session.page_hash
    for wid, fill in changes.items():
        proto = state.widget_states.widgets.add()
        proto.id = wid
        fill(proto)
    return msg


# --- 8: per-session memory ------------------------------------------------------------


def test_a_session_keeps_the_vectors_of_a_bounded_number_of_sentences():
    """Each sentence's vectors are kept for the session (to come back to), but
    not without bound: after 60 distinct sentences the oldest are forgotten, the
    ones used last are kept (least recently used first)."""
    from helpers.apptest import open_page

    at = open_page("pages/9_playground.py", "en")
    first = "ねこ が いる"
    at.text_input(key="pg_sentence").input(first).run()
    for i in range(60):
        at.text_input(key="pg_sentence").input(f"w{i} x{i}").run()
        if i % 10 == 9:  # the first sentence is used again now and then: it stays
            at.text_input(key="pg_sentence").input(first).run()
    kept = at.session_state["pg_vectors"]
    assert len(kept) < 60
    assert ("w59", "x59") in kept and ("ねこ", "が", "いる") in kept
    assert ("w0", "x0") not in kept


# --- found on the second attack ----------------------------------------------------------


def test_a_request_for_thousands_of_upload_addresses_is_cut_short(app):
    """5,000 file names in one request made an answer larger than the message
    limit, an error in the sender's page; the app's uploader takes one file."""
    session = attacker(app, "attention")
    try:
        msg = BackMsg()
        msg.file_urls_request.request_id = "1"
        msg.file_urls_request.file_names.extend(f"f{i}.json" for i in range(5000))
        session.ws.send(msg.SerializeToString())
        recovers(session)
    finally:
        session.close()
