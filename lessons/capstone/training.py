"""The capstone's training, served to many learners by one process.

What this module guarantees:

- At most one training runs at a time in a server process (``TRAINING_SLOTS``);
  a learner who presses "Train" while another trains is told how many wait,
  and waits for the slot, so a class pressing the button together cannot
  starve everyone else's slider moves of the cores.
- A configuration's result is kept once it ran to its end (all steps, or a
  blow-up: "finished" or "diverged"), in one cache shared by every session of
  the process (``CACHE_SIZE`` configurations, the least recently used dropped
  first); a slider move never trains, only the button does.
- An interrupted run is never cached: Streamlit stops a run by raising an
  exception at the next Streamlit call, i.e. inside the training callback (a
  redraw), so ``remember`` is never reached; and ``remember`` refuses a
  "stopped" result anyway.
"""

from __future__ import annotations

import contextlib
import dataclasses
import threading
import time
from collections import OrderedDict
from collections.abc import Iterator

import numpy as np
import streamlit as st
from streamlit.delta_generator import DeltaGenerator

from course_app import MAIN_FIGURE, num, session, snippets, t
from lesson_core.examples import CORPUS
from lesson_core.transformer import Config, TrainResult, train
from lessons.capstone import curve

CACHE_SIZE = 48
REDRAW_SECONDS = 0.25  # how often the loss chart and the progress bar are redrawn while training
WAIT_POLL_SECONDS = 0.2


class ResultCache:
    """Finished or diverged results by configuration, at most ``size`` of them,
    the least recently used dropped first; safe to share between threads."""

    def __init__(self, size: int) -> None:
        """An empty cache that keeps at most ``size`` results."""
        self.size = size
        self._results: OrderedDict[Config, TrainResult] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, config: Config) -> TrainResult | None:
        """The result of this exact configuration, if kept (it becomes the most recent)."""
        with self._lock:
            result = self._results.get(config)
            if result is not None:
                self._results.move_to_end(config)
        return result

    def put(self, result: TrainResult) -> None:
        """Keep a result that ran to its end (all steps, or a blow-up); never a stopped one."""
        if result.status not in ("finished", "diverged"):
            return
        with self._lock:
            self._results[result.config] = result
            self._results.move_to_end(result.config)
            while len(self._results) > self.size:
                self._results.popitem(last=False)

    def clear(self) -> None:
        """Forget every result."""
        with self._lock:
            self._results.clear()


_CACHE = ResultCache(CACHE_SIZE)


def cached(config: Config) -> TrainResult | None:
    """The finished (or diverged) result of this exact configuration, if any."""
    return _CACHE.get(config)


def remember(result: TrainResult) -> None:
    """Keep a result that ran to its end (all steps, or a blow-up); never a stopped one."""
    _CACHE.put(result)


def clear_cache() -> None:
    """Forget every trained result of this process."""
    _CACHE.clear()


# One training at a time per server process: the others wait their turn (and are
# told so). A module attribute, so that a benchmark can widen it.
TRAINING_SLOTS = threading.BoundedSemaphore(1)
_WAITING_LOCK = threading.Lock()
_waiting = [0]  # learners waiting for the slot (for the message)


@contextlib.contextmanager
def training_slot(bar: DeltaGenerator) -> Iterator[None]:
    """Hold the training slot; while another session trains, say so on ``bar`` and
    wait (each redraw is also where Streamlit may stop a run the learner left)."""
    if not TRAINING_SLOTS.acquire(blocking=False):
        with _WAITING_LOCK:
            _waiting[0] += 1
        try:
            while not TRAINING_SLOTS.acquire(timeout=WAIT_POLL_SECONDS):
                bar.progress(0.0, text=t("capstone.train.waiting", n=_waiting[0]))
        finally:
            with _WAITING_LOCK:
                _waiting[0] -= 1
    try:
        yield
    finally:
        TRAINING_SLOTS.release()


def _train_live(config: Config) -> TrainResult:
    """Train with a progress bar and a loss chart, redrawn every REDRAW_SECONDS
    (each redraw is also where Streamlit may stop the run)."""
    bar = st.progress(0.0, text=t("capstone.train.starting"))
    chart = st.container(key=MAIN_FIGURE).empty()
    with chart:
        curve.loss_chart(np.zeros(0), config.steps, save=None)
    losses: list[float] = []
    last = [time.perf_counter()]

    def show(step: int, loss: float) -> None:
        """The training callback: record the loss, redraw now and then."""
        time.sleep(0)  # let other learners' reruns have the interpreter between steps
        losses.append(loss)
        now = time.perf_counter()
        if now - last[0] >= REDRAW_SECONDS or step == config.steps:
            last[0] = now
            text = t("capstone.train.progress", step=step, steps=config.steps, loss=num(loss, 3))
            bar.progress(step / config.steps, text=text)
            with chart:
                curve.loss_chart(np.array(losses), config.steps, save=None)

    with training_slot(bar):
        result = train(CORPUS, config, show)
    bar.empty()
    with chart.container():  # the placeholder holds one element: the chart and its PNG download
        curve.loss_chart(result.losses, config.steps)
    return result


def train_or_reuse(config: Config, pressed: bool) -> TrainResult | None:
    """The result for ``config``: from the cache when it was trained before, from a
    live training run when the button was pressed, else None (nothing trained yet,
    or more work than one training may do)."""
    if curve.over_budget(config):
        return None
    result = cached(config)
    if result is None and not pressed:
        st.info(t("capstone.train.not_yet"))
        return None
    if result is None:
        result = _train_live(config)
        remember(result)
        session.put(session.GPT_TRAIN_RUNS, session.get(session.GPT_TRAIN_RUNS, 0) + 1)
    else:
        with st.container(key=MAIN_FIGURE):
            curve.loss_chart(result.losses, config.steps)
        st.caption(t("capstone.train.cached", seconds=num(result.seconds, 1)))
    curve.reference_caption()
    curve.training_status(result)
    snippets.code_fold("capstone_code", lambda: train_code(config), "capstone")
    return result


def train_code(config: Config) -> snippets.Snippet:
    """The code behind the loss curve: the one training call, with the
    learner's settings written in (those that differ from Config's defaults)."""
    default = Config()
    changed = [
        f"{field.name}={snippets.literal(getattr(config, field.name))}"
        for field in dataclasses.fields(Config)
        if getattr(config, field.name) != getattr(default, field.name)
    ]
    lines = [f"result = train(CORPUS, Config({', '.join(changed)}))"]
    data = [("lesson_core.examples", "CORPUS"), ("lesson_core.transformer", "Config")]
    series = [(t("capstone.chart.loss"), "result.losses")]
    x = "range(1, len(result.losses) + 1)"
    plot = snippets.Plot("lines", x, series, t("capstone.chart.x"), t("capstone.chart.y"))
    return snippets.Snippet(uses=[train], lines=lines, shows=["result.losses"], data=data, plot=plot)
