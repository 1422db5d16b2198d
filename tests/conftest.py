"""Shared helpers for the page tests (AppTest) and the browser tests."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from streamlit import dataframe_util
from streamlit.testing.v1 import AppTest

ROOT = Path(__file__).resolve().parent.parent
HOME = ROOT / "streamlit_app.py"
PAGE_TIMEOUT = 60


def open_page(page: str | None, lang: str = "ja", params: dict[str, str] | None = None) -> AppTest:
    """Run the home page, then switch to ``page`` (e.g. "pages/2_attention.py"),
    with ?lang= and any other query parameters set, as a learner's link would."""
    at = AppTest.from_file(str(HOME), default_timeout=PAGE_TIMEOUT)
    at.query_params.update({"lang": lang, **(params or {})})
    at.run()
    if page:
        at.query_params.update({"lang": lang, **(params or {})})
        at.switch_page(page).run()
    return at


def chart_frames(at: AppTest) -> list[pd.DataFrame]:
    """The data of every Vega-Lite chart on the page, read from its proto."""
    frames = []
    for chart in at.get("vega_lite_chart"):
        frames.append(dataframe_util.convert_arrow_bytes_to_pandas_df(chart.proto.data.data))
        frames += [dataframe_util.convert_arrow_bytes_to_pandas_df(d.data.data) for d in chart.proto.datasets]
    return frames


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


@pytest.fixture(params=["ja", "en"])
def lang(request) -> str:
    return request.param
