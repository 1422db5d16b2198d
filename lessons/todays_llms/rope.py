"""Section 2, RoPE: the score of a rotated query and key depends only on how far apart
they are."""

from __future__ import annotations

import numpy as np
import streamlit as st

from course_app import bound, charts, fold, num, session, t, tables
from lesson_core.rope import RopeScore, frequencies, rope_score, score_by_offset

ROPE_POSITIONS = (0, 31)


def rope_section(q: np.ndarray, k: np.ndarray) -> bool:
    """Two position sliders, the score, the score as a function of m − n, and the
    angles of each pair. Returns True when the learner has now seen two
    different pairs with the same m − n."""
    m, n = rope_positions()
    res = rope_score(q, k, m, n)
    st.markdown(t("todays_llms.rope.result", m=m, n=n, offset=f"{res.offset:+d}", score=num(res.score, 3)))
    rope_chart(q, k, res)
    st.markdown(t("todays_llms.rope.why"))
    if box := fold(t("todays_llms.rope.angles_expander"), "todays_llms_rope_angles"):
        with box:
            rope_angles(res, len(q))
    return seen_same_offset(res.offset, m, n)


def rope_positions() -> tuple[int, int]:
    """The query's position m and the key's position n, side by side."""
    low, high = ROPE_POSITIONS
    left, right = st.columns(2)
    with left:
        m = bound(
            st.slider, t("todays_llms.rope.m"), low, high, 5, help=t("todays_llms.rope.pos_help"), key="llm_m"
        )
    with right:
        n = bound(
            st.slider, t("todays_llms.rope.n"), low, high, 2, help=t("todays_llms.rope.pos_help"), key="llm_n"
        )
    return m, n


def rope_chart(q: np.ndarray, k: np.ndarray, res: RopeScore) -> None:
    """The score for every offset m − n in the sliders' range, the learner's own marked."""
    low, high = ROPE_POSITIONS
    offsets = np.arange(low - high, high - low + 1)
    spec = charts.line_spec(
        t("todays_llms.rope.chart_x"), t("todays_llms.rope.chart_y"), t("todays_llms.rope.series"), height=240
    )
    frame = charts.line_frame(
        offsets,
        {t("todays_llms.rope.series_all"): score_by_offset(q, k, offsets)},
        (t("todays_llms.rope.series_you"), res.offset, res.score),
    )
    charts.show(frame, spec, t("todays_llms.rope.alt"))


def rope_angles(res: RopeScore, d: int) -> None:
    """Each pair's rate and its angles in q and k: the difference depends on m − n only."""
    theta = frequencies(d)
    st.dataframe(
        tables.text_table(
            {
                t("todays_llms.rope.col_pair"): np.arange(len(theta)),
                t("todays_llms.rope.col_rate"): [f"{x:.4g}" for x in theta],
                t("todays_llms.rope.col_q"): [num(a, 3) for a in res.angles_q],
                t("todays_llms.rope.col_k"): [num(a, 3) for a in res.angles_k],
                t("todays_llms.rope.col_diff"): [num(a, 3) for a in res.angles_q - res.angles_k],
            }
        ),
        hide_index=True,
    )
    st.caption(t("todays_llms.rope.angles_note", q_len=num(np.linalg.norm(res.q_rot), 3)))


def seen_same_offset(offset: int, m: int, n: int) -> bool:
    """Remember (m, n) for this session; True once two different pairs share ``offset``."""
    seen: dict[int, set[tuple[int, int]]] = session.setdefault(session.LLM_ROPE_SEEN, {})
    pairs = seen.setdefault(offset, set())
    pairs.add((m, n))
    return len(pairs) >= 2
