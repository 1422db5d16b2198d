"""What the AppTest page tests share: the app's paths and sources, opening a
page as a learner's link would, opening its folds, and reading what it drew."""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pandas as pd
from streamlit import dataframe_util
from streamlit.testing.v1 import AppTest

from course_app.session import fold as fold_key

ROOT = Path(__file__).resolve().parents[2]
HOME = ROOT / "streamlit_app.py"
# Every Python file of the app itself (what the catalog and layout checks read).
APP_SOURCES = sorted(
    [
        HOME,
        *(
            path
            for floor in ("pages", "lessons", "course_app", "lesson_core")
            for path in ROOT.glob(f"{floor}/**/*.py")
        ),
    ]
)
PAGE_TIMEOUT = 60


def _scan_components_once() -> None:
    """Each new AppTest scans every installed distribution's metadata for
    Streamlit components (``manifest_scanner.scan_component_manifests``): about
    0.5 s, nine tenths of opening a page in a test, and the same answer every
    time within one test process. Scan once per process instead."""
    try:
        from streamlit.components.v2 import manifest_scanner
    except ImportError:  # a Streamlit without it has nothing to scan
        return
    scan = manifest_scanner.scan_component_manifests
    if not hasattr(scan, "cache_info"):
        manifest_scanner.scan_component_manifests = functools.cache(scan)


_scan_components_once()


def open_page(
    page: str | None, lang: str = "ja", params: dict[str, str] | None = None, folds: bool = False
) -> AppTest:
    """Run the home page, then switch to ``page`` (e.g. "pages/2_attention.py"),
    with ?lang= and any other query parameters set, as a learner's link would;
    with ``folds``, every fold is then opened (see ``open_folds``)."""
    at = AppTest.from_file(str(HOME), default_timeout=PAGE_TIMEOUT)
    at.query_params.update({"lang": lang, **(params or {})})
    at.run()
    if page:
        at.query_params.update({"lang": lang, **(params or {})})
        at.switch_page(page).run()
    return open_folds(at) if folds else at


def open_folds(at: AppTest, each_run: Callable[[AppTest], object] | None = None) -> AppTest:
    """Open every fold of the page (course_app/folds.py), and any fold an open
    one reveals, as a learner's clicks would; a closed fold's body is never
    drawn, so a test that reads it opens it first. ``each_run`` sees the page
    after each of the reruns (what a rerun shows once, like a toast)."""
    for _ in range(4):
        closed = [k for k in at.session_state if k.startswith(fold_key("")) and not at.session_state[k]]
        if not closed:
            break
        for key in closed:
            at.session_state[key] = True
        at.run()
        if each_run is not None:
            each_run(at)
    return at


def chart_frames(at: AppTest) -> list[pd.DataFrame]:
    """The data of every Vega-Lite chart on the page, read from its proto."""
    frames = []
    for chart in at.get("vega_lite_chart"):
        frames.append(dataframe_util.convert_arrow_bytes_to_pandas_df(chart.proto.data.data))
        frames += [dataframe_util.convert_arrow_bytes_to_pandas_df(d.data.data) for d in chart.proto.datasets]
    return frames


def without_maths(text: str) -> str:
    """``text`` with its inline maths ($…$) taken out: a formula's braces
    ($d_{model}$) are not placeholders left unfilled."""
    return re.sub(r"\$[^$]*\$", "", text)


def all_text(at: AppTest) -> str:
    """Every piece of visible text the page rendered (markdown, headers, captions...)."""
    kinds = ("title", "header", "subheader", "markdown", "caption", "info", "success", "error", "warning")
    return "\n".join(str(e.value) for kind in kinds for e in at.get(kind))


def assert_clean(at: AppTest) -> None:
    """No exception, no NaN or infinity in any table or chart data, no raw key."""
    assert not at.exception, [e.value for e in at.exception]
    for frame in [df.value for df in at.dataframe] + chart_frames(at):
        numeric = frame.select_dtypes(include="number").to_numpy(dtype=float)
        assert np.all(np.isfinite(numeric)), frame
        text = frame.select_dtypes(exclude="number").astype(str).to_numpy()
        assert not np.isin(text, ["nan", "NaN", "inf", "-inf"]).any(), frame
