"""Section 4, long context: the measured time of full attention, and attention
computed block by block (online softmax)."""

from __future__ import annotations

import itertools

import numpy as np
import streamlit as st

from course_app import bound, charts, gloss, num, t, tables
from lesson_core import causal_mask
from lesson_core import scaled_dot_product_attention as attention
from lesson_core.examples import PRONOUN, PRONOUN_QUERY
from lesson_core.kv_cache import (
    GPT2_SMALL,
    HALF_PRECISION,
)
from lesson_core.long_context import (
    BlockTrace,
    Timing,
    blockwise_attention,
    score_matrix_bytes,
    time_attention,
)
from lessons.todays_llms.kv_cache import megabytes

TIMED_SIZES = (64, 128, 256, 512, 1024, 2048)

TIMING_REPEATS, TIMING_D = 3, 64


@st.cache_resource(show_spinner=False, max_entries=len(TIMED_SIZES))
def measured(n: int) -> Timing:
    """The measured time of plain attention up to n tokens, once per process."""
    sizes = [s for s in TIMED_SIZES if s <= n]
    return time_attention(sizes, TIMING_D, np.random.default_rng(0), repeats=TIMING_REPEATS)


def long_section() -> None:
    """The text's length, the size of every score matrix at that length, and
    the measured time of one head up to it."""
    n = bound(
        st.select_slider,
        t("todays_llms.long.n"),
        TIMED_SIZES,
        value=512,
        help=t("todays_llms.long.n_help"),
        key="llm_long_n",
    )
    n = n if n in TIMED_SIZES else 512
    st.markdown(
        t(
            "todays_llms.long.result",
            n=f"{n:,}",
            cells=f"{n * n:,}",
            layers=GPT2_SMALL.layers,
            heads=GPT2_SMALL.q_heads,
            bytes=HALF_PRECISION,
            all_size=megabytes(score_matrix_bytes(n, GPT2_SMALL.q_heads, GPT2_SMALL.layers, HALF_PRECISION)),
        )
    )
    growth_chart(measured(n), n)


def growth_chart(timing: Timing, n: int) -> None:
    """How the work grows with n, each as a multiple of its value at the smallest n:
    the exact multiply-adds of one head (2 · n² · d: the scores Q Kᵀ, then the
    weights times V), and the measured time as an illustration only."""
    sizes = np.asarray(timing.sizes, dtype=float)
    ops = 2 * sizes**2 * TIMING_D
    spec = charts.line_spec(
        t("todays_llms.long.chart_x"),
        t("todays_llms.long.chart_y"),
        t("todays_llms.long.series"),
        log_x=True,
        log_y=True,
        height=240,
        x_ticks=tuple(timing.sizes),  # the measured lengths, and the axis from the first to the last
        y_ticks=growth_ticks(ops / ops[0], timing.seconds / timing.seconds[0]),
    )
    series = {
        t("todays_llms.long.series_ops", d=TIMING_D): ops / ops[0],
        t("todays_llms.long.series_time"): timing.seconds / timing.seconds[0],
    }
    charts.show(charts.line_frame(timing.sizes, series), spec, t("todays_llms.long.chart_alt", n=n))
    note = {"repeats": TIMING_REPEATS, "first": int(sizes[0]), "d": TIMING_D}
    if len(sizes) > 1:
        ratio = timing.seconds[-1] / timing.seconds[-2]
        note |= {"a": int(sizes[-2]), "b": int(sizes[-1]), "ratio": num(ratio, 1)}
        st.caption(t("todays_llms.long.timing_note", **note))
    else:
        st.caption(t("todays_llms.long.timing_alone", **note))


def growth_ticks(*ratios: np.ndarray) -> tuple[float, ...]:
    """The y ticks of the growth chart: × 1, 4, 16 … (the exact count doubles n
    per step, so it grows × 4), from the power of 4 at or below the smallest
    ratio to the one at or above the largest, so that the measured time, which
    may grow faster or slower than the count, never runs past the last tick."""
    values = np.concatenate([np.asarray(r, dtype=float) for r in ratios])
    values = values[np.isfinite(values) & (values > 0)]
    if values.size == 0:
        return (1.0, 4.0)
    low = int(np.floor(np.log(min(1.0, values.min())) / np.log(4) + 1e-9))
    high = max(low + 1, int(np.ceil(np.log(values.max()) / np.log(4) - 1e-9)))
    return tuple(4.0**k for k in range(low, high + 1))


def block_section() -> tuple[int, bool]:
    """Example C computed block by block against the plain computation, with
    the running maximum and sum for それ. Returns (block size, masked)."""
    x, n = PRONOUN.vectors, len(PRONOUN.tokens)
    block, masked = block_controls(n)
    mask = causal_mask(n) if masked else None
    plain = attention(PRONOUN.queries, x, x, mask=mask)
    res = blockwise_attention(PRONOUN.queries, x, x, block, mask=mask, traced=PRONOUN_QUERY)
    it = gloss(PRONOUN.tokens[PRONOUN_QUERY])
    st.caption(t("todays_llms.long.trace_caption", it=it))
    trace_table(res.trace, block, n)
    rescale_text(res.trace, block)
    diff = float(np.abs(res.output - plain.output).max())
    rows, cols = res.largest
    if cols == n:
        st.markdown(t("todays_llms.long.block_result_full", diff=f"{diff:.1e}", n=n))
    else:
        st.markdown(t("todays_llms.long.block_result", diff=f"{diff:.1e}", rows=rows, cols=cols, n=n))
    return block, masked


def block_controls(n: int) -> tuple[int, bool]:
    """The block size (1 to ``n`` keys) and the causal-mask switch, side by side."""
    left, right = st.columns([2, 1])
    with left:
        block = bound(
            st.slider,
            t("todays_llms.long.block"),
            1,
            n,
            n,
            help=t("todays_llms.long.block_help", n=n),
            key="llm_block",
        )
    with right:
        masked = bound(st.toggle, t("todays_llms.long.masked"), value=False, key="llm_masked")
    return block, masked


def trace_table(tr: BlockTrace, block: int, n: int) -> None:
    """One row per block of keys: its tokens, and the running maximum and sum after it."""
    stops = [min(s + block, n) for s in tr.starts]
    st.dataframe(
        tables.text_table(
            {
                t("todays_llms.long.col_block"): np.arange(1, len(tr.starts) + 1),
                t("todays_llms.long.col_keys"): [
                    " ".join(PRONOUN.tokens[s:e]) for s, e in zip(tr.starts, stops, strict=True)
                ],
                t("todays_llms.long.col_max"): [num(v, 3) if np.isfinite(v) else "−∞" for v in tr.maxima],
                t("todays_llms.long.col_sum"): [num(v, 3) for v in tr.sums],
                t("todays_llms.long.col_rescale"): [
                    "—" if f is None else num(f, 3) for f in rescale_factors(tr.maxima)
                ],
            }
        ),
        hide_index=True,
    )


def rescale_factors(maxima: np.ndarray) -> list[float | None]:
    """exp(old largest − new largest) by which each block shrinks what was summed
    before it; None for the first block and while nothing was summed (−∞)."""
    out: list[float | None] = [None]
    for old, new in itertools.pairwise(maxima):
        out.append(float(np.exp(old - new)) if np.isfinite(old) else None)
    return out


def rescale_text(tr: BlockTrace, block: int) -> None:
    """Name the first block where the largest score rose and what was summed
    shrank; or say that with these blocks nothing ever is rescaled."""
    factors = rescale_factors(tr.maxima)
    first = next((i for i, f in enumerate(factors) if f is not None and f < 1), None)
    it = gloss(PRONOUN.tokens[PRONOUN_QUERY])
    if first is None:
        st.markdown(t("todays_llms.long.no_rescale", it=it, block=block))
        return
    st.markdown(
        t(
            "todays_llms.long.rescale",
            it=it,
            block=first + 1,
            old=num(tr.maxima[first - 1], 3),
            new=num(tr.maxima[first], 3),
            factor=num(factors[first] or 0.0, 3),
        )
    )
