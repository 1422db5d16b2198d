"""What a client may send over the websocket, checked in the one process-wide place
Streamlit reads it (its ``AppSession`` and widget-state mapping), not per page.

A browser's frontend sends only what its widgets allow, but anyone can speak the
protocol (``BackMsg`` protobufs on ``/_stcore/stream``). ``install`` makes the
running server hold these rules for every session:

- ``clear_cache`` is ignored: Streamlit would empty ``st.cache_data`` and
  ``st.cache_resource`` for the whole process (every learner's trained models
  and tables), and the app shows no menu that sends it. ``load_git_info`` is
  ignored too (it runs ``git`` in the server for a deploy button the app hides).
- A widget's value of the wrong kind (a bool for a slider, JSON for a select
  box) or with a number that is not finite is replaced by the widget's default
  when the app reads it, and so is any value Streamlit's own deserializer
  refuses: the run goes on, and nothing stays broken.
- Reruns are spaced per session (a token bucket: ``BURST`` at once, then
  ``RATE`` a second). A rerun asked for too early is not lost: the latest one
  waits and runs when the session's turn comes (as Streamlit itself keeps only
  the latest of several queued reruns), so a flooding client slows only itself.

Each rule has a protocol-level test (tests/test_protocol_hostile.py) that fails
if a Streamlit upgrade moves the place it hooks into.
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
    """One session's token bucket; ``wait`` says how long a rerun asked for now
    must wait (0: run it now)."""

    def __init__(self, rate: float = RATE, burst: float = BURST) -> None:
        self.rate, self.burst = rate, burst
        self.tokens, self.stamp = burst, time.monotonic()
        self.pending: Any = None  # the latest rerun waiting for its turn
        self.timer: asyncio.TimerHandle | None = None

    def wait(self, now: float) -> float:
        self.tokens = min(self.burst, self.tokens + (now - self.stamp) * self.rate)
        self.stamp = now
        if self.tokens >= 1.0:
            self.tokens -= 1.0
            return 0.0
        return (1.0 - self.tokens) / self.rate


def _keep_latest(pending: Any, new: Any) -> Any:
    """Of two waiting reruns keep the newer one (it carries every widget's latest
    state); if either was a whole-page run, so is the one kept."""
    if pending is None or new is None:
        return new
    if not pending.fragment_id and new.fragment_id:
        new.fragment_id = ""
    return new


def _gated_rerun(original: Any) -> Any:
    def handle(self: Any, client_state: Any = None) -> None:
        gate = self.__dict__.setdefault("_course_rerun_gate", RerunGate())
        if gate.timer is None:
            delay = gate.wait(time.monotonic())
            if delay <= 0:
                original(self, client_state)
                return
            try:
                loop = asyncio.get_running_loop()
            except RuntimeError:  # not on the server's event loop: nothing to wait with
                original(self, client_state)
                return
            gate.timer = loop.call_later(delay, _release, self, gate, original)
        gate.pending = _keep_latest(gate.pending, client_state)

    return handle


def _release(session: Any, gate: RerunGate, original: Any) -> None:
    gate.timer = None
    pending, gate.pending = gate.pending, None
    gate.wait(time.monotonic())  # this run spends its token
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
    WStates.__getitem__ = _guarded_getitem(WStates.__getitem__)
    _INSTALLED.append(True)
