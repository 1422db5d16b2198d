"""Server time of one slider move on every lesson page, against a bare app.

    python tests/benchmarks/interaction.py [--repeats 40]

Each page is run through AppTest (the same script runner the server uses,
without a browser); the first slider of its interactive demo is moved back
and forth and every rerun is timed. The bare app is one slider and one
Altair chart. Two figures per page:

- slider move: what the server runs when a learner moves a slider. The
  demo sits in an ``@st.fragment``, so the server reruns that fragment only.
  AppTest has no public way to ask for a fragment rerun, so this script
  passes the fragment's id to the runner as the browser would (private API:
  adjust it if Streamlit changes).
- full page: the whole script, as on first load or a quiz answer.

Prints medians and the ratio to the bare app (goal for a slider move: ≤ 1.5).
Compare numbers from one run only: the machine is shared and noisy.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parent), str(HERE.parent.parent)]

from helpers.apptest import HOME
from streamlit.runtime.scriptrunner_utils.script_requests import RerunData
from streamlit.testing.v1 import AppTest
from streamlit.testing.v1 import local_script_runner as lsr

from course_app.course import LESSONS

BARE_APP = """
import altair as alt
import numpy as np
import pandas as pd
import streamlit as st

x = st.slider("x", 0.0, 5.0, 1.0, 0.1, key="x")
frame = pd.DataFrame({"i": np.arange(10), "y": np.arange(10) * x})
st.altair_chart(alt.Chart(frame).mark_bar().encode(x="i:O", y="y:Q"))
"""


FRAGMENT_QUEUE: list[str] = []
_plain_rerun_data = RerunData


def _rerun_data(**kwargs):
    """RerunData that, while FRAGMENT_QUEUE is set, asks for a fragment rerun."""
    return _plain_rerun_data(**kwargs, fragment_id_queue=list(FRAGMENT_QUEUE))


lsr.RerunData = _rerun_data


def fragment_of(at: AppTest, key: str) -> str:
    """The id of the fragment that draws the widget ``key``: rerun each of the
    page's fragments alone and see which one draws it."""
    for fragment_id in list(at._fragment_storage._fragments):
        FRAGMENT_QUEUE[:] = [fragment_id]
        at.run()
        if any(s.key == key for s in at.slider):
            FRAGMENT_QUEUE.clear()
            return fragment_id
    FRAGMENT_QUEUE.clear()
    raise AssertionError(f"no fragment draws the slider {key!r}: a slider move would rerun the whole page")


def time_slider(at: AppTest, repeats: int, fragment: bool = False) -> float:
    """Median seconds of a rerun after moving the page's first slider; with
    ``fragment``, only the page's fragment reruns (as in the server)."""
    slider = at.slider[0]
    lo, hi = slider.min, slider.max
    values = [lo + (hi - lo) * f for f in (0.25, 0.75)]
    if isinstance(lo, int):
        values = [round(v) for v in values]
    for value in values * 3:  # warm caches and imports
        at.slider(key=slider.key).set_value(value).run()
    FRAGMENT_QUEUE[:] = [fragment_of(at, slider.key)] if fragment else []
    times = []
    for i in range(repeats):
        at.slider(key=slider.key).set_value(values[i % 2])
        start = time.perf_counter()
        at.run()
        times.append(time.perf_counter() - start)
        assert not at.exception, at.exception
    FRAGMENT_QUEUE.clear()
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=40)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        bare = Path(tmp) / "bare_app.py"
        bare.write_text(BARE_APP)
        bare_time = time_slider(AppTest.from_file(str(bare), default_timeout=60).run(), args.repeats)
    ms = bare_time * 1000
    print(f"{'page':<16}{'slider move ms':>15}{'ratio':>7}{'full page ms':>14}{'ratio':>7}")
    print(f"{'bare app':<16}{ms:>15.1f}{1:>7.2f}{ms:>14.1f}{1:>7.2f}")
    for lesson in LESSONS:
        at = AppTest.from_file(str(HOME), default_timeout=60).run()
        at.switch_page(lesson.page).run()
        move = time_slider(at, args.repeats, fragment=True)
        full = time_slider(at, args.repeats)
        print(
            f"{lesson.id:<16}{move * 1000:>15.1f}{move / bare_time:>7.2f}"
            f"{full * 1000:>14.1f}{full / bare_time:>7.2f}"
        )


if __name__ == "__main__":
    main()
