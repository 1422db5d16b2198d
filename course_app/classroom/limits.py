"""How often a wrong class code or passcode may be tried (no Streamlit).

A ``Limiter`` counts failures per key (a session, a class code, the whole
process) in a sliding window. A key with ``allowed`` failures in the last
``window`` seconds is refused until the oldest of them leaves the window.
"""

from __future__ import annotations

import threading
import time
from collections import defaultdict, deque
from collections.abc import Callable


class Limiter:
    def __init__(self, allowed: int, window: float, clock: Callable[[], float] = time.monotonic):
        self.allowed, self.window, self._clock = allowed, window, clock
        self._failures: defaultdict[str, deque[float]] = defaultdict(deque)
        self._lock = threading.Lock()

    def _recent(self, key: str) -> deque[float]:
        times, limit = self._failures[key], self._clock() - self.window
        while times and times[0] <= limit:
            times.popleft()
        return times

    def wait_for(self, key: str) -> float:
        """Seconds until ``key`` may try again (0: it may now)."""
        with self._lock:
            times = self._recent(key)
            if len(times) < self.allowed:
                return 0.0
            return max(0.0, times[0] + self.window - self._clock())

    def failed(self, key: str) -> None:
        with self._lock:
            self._recent(key).append(self._clock())
            if len(self._failures) > 10_000:  # forget keys with nothing recent
                limit = self._clock() - self.window
                for stale in [k for k, v in self._failures.items() if not v or v[-1] <= limit]:
                    del self._failures[stale]
