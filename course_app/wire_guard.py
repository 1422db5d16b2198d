"""What a client may send over the websocket, checked in the one process-wide place
Streamlit reads it (its ``AppSession`` and widget-state mapping), not per page.

A browser's frontend sends only what its widgets allow, but anyone can speak the
protocol (``BackMsg`` protobufs on ``/_stcore/stream``). ``install`` makes the
running server hold these rules for every session:

- ``clear_cache`` is ignored: Streamlit would empty ``st.cache_data`` and
  ``st.cache_resource`` for the whole process (every learner's trained models
  and tables), and the app shows no menu that sends it. ``load_git_info`` is
  ignored too (it runs ``git`` in the server for a deploy button the app hides).
- A rerun carries at most ``MAX_WIDGET_STATES`` widget states and a request for
  upload addresses at most ``MAX_FILE_URLS`` names; the rest is dropped.
- A widget's value of the wrong kind (a bool for a slider, JSON for a select
  box) or with a number that is not finite is replaced by the widget's default
  when the app reads it, and so is any value Streamlit's own deserializer
  refuses: the run goes on, and nothing stays broken.
- Reruns are spaced per session (``RerunGate``): a learner's pace (``BURST``
  at once, ``RATE`` a second) goes straight through; beyond it, a session's
  next run waits for its run in progress to end and then rests three times as
  long as that run took (at most a quarter of a core). A rerun asked for too
  early is not lost: the latest one waits and runs when the session's turn
  comes (as Streamlit itself keeps only the latest of several queued reruns),
  so a flooding client slows mostly itself.

The protocol-level tests (tests/protocol_and_deploy/test_protocol_hostile.py) fail if a Streamlit
upgrade moves the places these rules hook into.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
import time
from typing import Any

_LOGGER = logging.getLogger(__name__)
RATE = 4.0  # reruns a second a session may keep up (a learner stepping a slider by keyboard: ~3)
BURST = 8.0  # reruns a session may send at once before it has to wait
_NUMBERS = {"int_value", "double_value"}  # a number input's value comes as either
_INSTALLED: list[bool] = []


def value_fits(state: Any, value_type: str | None) -> bool:
    """Whether a WidgetState proto carries the kind of value its widget reads,
    with every number finite."""
    kind = state.WhichOneof("value")
    if kind is None or value_type is None:
        return True  # a cleared value, or a widget Streamlit has not described
    if kind != value_type and not {kind, value_type} <= _NUMBERS:
        return False
    if kind == "double_value":
        return math.isfinite(state.double_value)
    if kind == "double_array_value":
        return all(math.isfinite(x) for x in state.double_array_value.data)
    return True


class RerunGate:
    """One session's share of the server. Within its budget (a token bucket) a
    rerun goes straight to Streamlit, which stops the run in progress and starts
    the new one, as for any learner. Beyond it, the latest rerun waits (``pending``)
    until the session's run in progress has finished and then ``REST`` times as
    long as that run took: a flooding session can use at most a quarter of one
    core's time, and never restarts a run mid-way."""

    def __init__(self, rate: float = RATE, burst: float = BURST) -> None:
        self.rate, self.burst = rate, burst
        self.tokens, self.stamp = burst, time.monotonic()
        self.pending: Any = None  # the latest rerun waiting for its turn
        self.waiting = False  # a poll is scheduled for ``pending``
        self.started = 0.0  # when the gate last let a waiting run start (0: not watched)
        self.not_before = 0.0

    def refill(self, now: float) -> None:
        self.tokens = min(self.burst, self.tokens + (now - self.stamp) * self.rate)
        self.stamp = now

    def take(self, now: float) -> bool:
        """Spend a token if there is one."""
        self.refill(now)
        if self.tokens >= 1.0:
            self.tokens -= 1.0
            return True
        return False


MAX_WIDGET_STATES = 300
MAX_FILE_URLS = 10  # upload addresses one request may ask for (the app's uploader takes one file)
POLL = 0.02  # seconds between two looks at a waiting session's run
REST = 3.0  # beyond its budget a session rests 3 times as long as its last run took...
MAX_REST = 3.0  # ...but never more than 3 seconds


def _keep_latest(pending: Any, new: Any) -> Any:
    """Of two waiting reruns keep the newer one (it carries every widget's latest
    state); if either was a whole-page run, so is the one kept."""
    if pending is None or new is None:
        return new
    if not pending.fragment_id and new.fragment_id:
        new.fragment_id = ""
    return new


def _trimmed(client_state: Any) -> Any:
    """A rerun keeps at most MAX_WIDGET_STATES widget states (a page of the app
    has a few dozen widgets; each state costs the server work before the run)."""
    if client_state is not None and len(client_state.widget_states.widgets) > MAX_WIDGET_STATES:
        del client_state.widget_states.widgets[MAX_WIDGET_STATES:]
    return client_state


def _gated_rerun(original: Any) -> Any:
    def handle(self: Any, client_state: Any = None) -> None:
        client_state = _trimmed(client_state)
        gate = self.__dict__.setdefault("_course_rerun_gate", RerunGate())
        if not gate.waiting and gate.take(time.monotonic()):
            gate.started = 0.0  # within its budget: no rest to owe
            original(self, client_state)
            return
        gate.pending = _keep_latest(gate.pending, client_state)
        if not gate.waiting:
            try:
                loop = asyncio.get_running_loop()
            except RuntimeError:  # not on the server's event loop: nothing to wait with
                original(self, gate.pending)
                gate.pending = None
                return
            gate.waiting = True
            loop.call_later(POLL, _poll, self, gate, original, loop)

    return handle


def _poll(session: Any, gate: RerunGate, original: Any, loop: Any) -> None:
    """Start the waiting rerun once the session's own run is over, it has rested
    as long as that run took, and it has a token; else look again shortly."""
    now = time.monotonic()
    running = getattr(getattr(session, "_state", None), "name", "") == "APP_IS_RUNNING"
    if gate.started and not running:  # the run we let start has ended: rest as long
        gate.not_before, gate.started = now + min(REST * (now - gate.started), MAX_REST), 0.0
    gate.refill(now)
    if running or now < gate.not_before or gate.tokens < 1.0:
        loop.call_later(POLL, _poll, session, gate, original, loop)
        return
    gate.tokens -= 1.0
    pending, gate.pending, gate.waiting, gate.started = gate.pending, None, False, now
    with contextlib.suppress(Exception):  # a session shut down meanwhile
        original(session, pending)


def _guarded_getitem(original: Any) -> Any:
    from streamlit.runtime.state.session_state import Serialized, Value

    def getitem(self: Any, k: str) -> Any:
        state = self.states.get(k)
        metadata = self.widget_metadata.get(k)
        if not isinstance(state, Serialized) or metadata is None:
            return original(self, k)
        try:
            if value_fits(state.value, metadata.value_type):
                return original(self, k)
            _LOGGER.info("dropped a %s sent for a widget that reads %s", state.value.WhichOneof("value"), k)
        except Exception as error:  # Streamlit's deserializer refused it
            _LOGGER.info("dropped a widget value its deserializer refused (%s)", type(error).__name__)
        default = metadata.deserializer(None)  # the widget's default, as Streamlit computes it
        self.states[k] = Value(default)  # replaced, not deleted: Streamlit may be iterating over states
        return default

    return getitem


def _few_file_urls(original: Any) -> Any:
    def handle(self: Any, request: Any) -> None:
        del request.file_names[MAX_FILE_URLS:]
        original(self, request)

    return handle


def _ignored(self: Any, *args: Any) -> None:
    """A message no learner needs, answered with nothing."""


def install() -> None:
    """Apply the rules to the running Streamlit (once per process)."""
    if _INSTALLED:
        return
    from streamlit.runtime.app_session import AppSession
    from streamlit.runtime.state.session_state import WStates

    AppSession._handle_clear_cache_request = _ignored
    AppSession._handle_git_information_request = _ignored
    AppSession._handle_rerun_script_request = _gated_rerun(AppSession._handle_rerun_script_request)
    AppSession._handle_file_urls_request = _few_file_urls(AppSession._handle_file_urls_request)
    WStates.__getitem__ = _guarded_getitem(WStates.__getitem__)
    _INSTALLED.append(True)
