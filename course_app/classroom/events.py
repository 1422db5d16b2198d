"""The event writer: a learner's events go into a bounded in-process queue
and one background thread writes them, so a slow or absent database never
delays a page (no Streamlit here; tested alone).

``put`` never waits: when the queue is full the event is dropped and
counted. The thread writes what is queued in batches; when a write fails
(the database is down, restarting, locked) it keeps the batch and tries
again, waiting a little longer each time (up to ``max_wait`` seconds).
Events older than ``keep_for`` seconds are dropped and counted instead of
retried forever. The counts, per class, are written with the next batch
that succeeds, so the teacher sees them once the database is back.
"""

from __future__ import annotations

import logging
import queue
import threading
import time
from collections import Counter
from collections.abc import Callable

from course_app.classroom.store import Event

log = logging.getLogger(__name__)

QUEUE_SIZE = 50_000  # a class of 100 doing the whole course sends about 8,000 events
KEEP_FOR = 300.0  # seconds an event is retried before it is dropped ("a few minutes")
BATCH = 500


class Writer:
    """``write(batch, dropped)`` is the database write (store.write_events bound to an engine)."""

    def __init__(
        self,
        write: Callable[[list[Event], dict[int, int]], None],
        size: int = QUEUE_SIZE,
        keep_for: float = KEEP_FOR,
        max_wait: float = 5.0,
        clock: Callable[[], float] = time.time,
    ):
        self._write, self._keep_for, self._max_wait, self._clock = write, keep_for, max_wait, clock
        self._queue: queue.Queue[Event] = queue.Queue(maxsize=size)
        self._dropped: Counter[int] = Counter()  # per class, not yet written
        self._lock = threading.Lock()
        self._pending: list[Event] = []  # taken from the queue, not yet written
        self._idle = threading.Event()
        self._idle.set()
        self.written = 0
        self.dropped_total = 0  # since the process started, written or not
        self.failures = 0  # failed writes since the process started
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="classroom-writer", daemon=True)
        self._thread.start()

    def put(self, event: Event) -> bool:
        """Queue an event without waiting; False when the queue is full (dropped, counted)."""
        try:
            with self._lock:
                self._queue.put_nowait(event)
                self._idle.clear()
            return True
        except queue.Full:
            self._drop([event])
            return False

    def _drop(self, lost: list[Event]) -> None:
        with self._lock:
            self._dropped.update(e.class_id for e in lost)
            self.dropped_total += len(lost)

    def _take(self) -> list[Event]:
        """Up to BATCH events: the pending batch topped up from the queue (waits a little when empty)."""
        batch = self._pending
        try:
            if not batch:
                batch.append(self._queue.get(timeout=0.2))
            while len(batch) < BATCH:
                batch.append(self._queue.get_nowait())
        except queue.Empty:
            pass
        return batch

    def _expire(self, batch: list[Event]) -> list[Event]:
        """Drop (and count) the events older than keep_for."""
        limit = self._clock() - self._keep_for
        old = [e for e in batch if e.at < limit]
        if old:
            self._drop(old)
            log.warning("classroom: %d events dropped (%.0f s of failed writes)", len(old), self._keep_for)
        return [e for e in batch if e.at >= limit]

    def _run(self) -> None:
        wait = 0.1
        while not self._stop.is_set():
            batch = self._pending = self._take()
            with self._lock:
                dropped = dict(self._dropped)
            if not batch and not dropped:
                with self._lock:
                    if self._queue.empty():
                        self._idle.set()
                continue
            try:
                self._write(batch, dropped)
            except Exception as error:  # the database is away: keep the batch, try again
                self.failures += 1
                log.debug("classroom: write failed (%s), retrying", type(error).__name__)
                self._pending = self._expire(batch)
                self._stop.wait(wait)
                wait = min(wait * 2, self._max_wait)
                continue
            wait = 0.1
            self.written += len(batch)
            self._pending = []
            with self._lock:
                self._dropped.subtract(dropped)
                self._dropped = +self._dropped  # keep only counts still to write

    def flush(self, timeout: float = 10.0) -> bool:
        """Wait until everything queued is written (or ``timeout``); True when it was."""
        return self._idle.wait(timeout)

    @property
    def queued(self) -> int:
        return self._queue.qsize() + len(self._pending)

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(timeout=5)
