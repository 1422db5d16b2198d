"""Pieces of the scaling lesson: the d_k sweep (measured once per seed) and its
charts, sentences and table. The numbers come from lesson_core.scaling."""

from __future__ import annotations

import functools

import numpy as np
import streamlit as st

from course_app import charts, num, pct, pct_label, t, tables
from lesson_core.scaling import (
    DotProductSpread,
    SpreadSoftmax,
    TopWeights,
    dot_product_spread,
    entropy,
    max_entropy,
    mean_jacobian_size,
    mean_top_weight,
    spread_grid,
)

D_KS = tuple(2**i for i in range(10))  # 1, 2, 4, ..., 512
N_SAMPLES = 4000  # pairs (q, k) per d_k
N_SCORES = 12  # scores in the softmax demo
CLOSE_PAIR_TOP = 0.9  # below this top weight at the largest σ, a seed's two largest scores (nearly) tie
N_KEYS, TOP_DRAWS = 12, 400  # keys per query, and queries per d_k, for the largest weight
GRID = spread_grid(0.25, 16.0)  # spreads of the gradient curve, log-spaced
TYPICAL_DRAWS, TYPICAL_SEED = 1000, 0
Y_TICKS = (0.5, 1, 2, 4, 8, 16, 32)  # ticks of the logarithmic spread axis


@functools.lru_cache(maxsize=128)
def dk_sweep(seed: int) -> DotProductSpread:
    """The d_k sweep for one seed: about 8 million random numbers, so measured once per seed."""
    sweep = dot_product_spread(np.array(D_KS), N_SAMPLES, np.random.default_rng(seed))
    for field in (sweep.d_k, sweep.expected, sweep.std_raw, sweep.std_scaled):
        field.flags.writeable = False  # shared by every session through the cache
    return sweep


@functools.lru_cache(maxsize=128)
def dk_top_weights(seed: int) -> TopWeights:
    """The average largest softmax weight with and without ÷√d_k, for every d_k of the sweep."""
    tops = mean_top_weight(np.array(D_KS), N_KEYS, TOP_DRAWS, np.random.default_rng([seed, 1]))
    for field in (tops.d_k, tops.raw, tops.scaled):
        field.flags.writeable = False
    return tops


@functools.lru_cache(maxsize=1)
def typical_gradient() -> np.ndarray:
    """‖J‖_F averaged over many random score patterns, on ``GRID`` (the same for every seed)."""
    curve = mean_jacobian_size(GRID, N_SCORES, TYPICAL_DRAWS, np.random.default_rng(TYPICAL_SEED))
    curve.flags.writeable = False
    return curve


def spread_result(sweep: DotProductSpread, tops: TopWeights, d_k: int) -> None:
    """The figures of the chosen d_k: its measured spreads, and the largest softmax weight
    with and without ÷√d_k."""
    i = D_KS.index(d_k)
    st.markdown(
        t(
            "scaling.growth.result",
            d_k=d_k,
            raw=num(sweep.std_raw[i]),
            expected=num(sweep.expected[i]),
            scaled=num(sweep.std_scaled[i]),
        )
    )
    st.markdown(
        t(
            "scaling.growth.top_result",
            d_k=d_k,
            n_keys=N_KEYS,
            draws=TOP_DRAWS,
            raw_top=pct(tops.raw[i]),
            scaled_top=pct(tops.scaled[i]),
        )
    )


def spread_chart(sweep: DotProductSpread, d_k: int) -> None:
    """√d_k, std(q·k) and std(q·k / √d_k) over d_k, both axes logarithmic, the chosen d_k marked."""
    names = (
        t("scaling.growth.series_expected"),
        t("scaling.growth.series_raw"),
        t("scaling.growth.series_scaled"),
        t("scaling.growth.series_chosen"),
    )
    spec = charts.log_line_spec(
        t("scaling.growth.x_title"),
        t("scaling.growth.y_title"),
        t("scaling.growth.series"),
        names,
        D_KS,
        Y_TICKS,
    )
    i = D_KS.index(d_k)
    measured = {names[0]: sweep.expected, names[1]: sweep.std_raw, names[2]: sweep.std_scaled}
    chosen = (names[3], sweep.d_k[i], sweep.std_raw[i])
    charts.show(charts.line_frame(sweep.d_k, measured, chosen), spec, t("scaling.growth.alt"))


def spread_table(sweep: DotProductSpread) -> None:
    """One row per d_k: √d_k and the two measured spreads."""
    frame = tables.text_table(
        {
            "d_k": [str(d) for d in sweep.d_k],
            "√d_k": [num(x) for x in sweep.expected],
            t("scaling.growth.col_raw"): [num(x) for x in sweep.std_raw],
            t("scaling.growth.col_scaled"): [num(x) for x in sweep.std_scaled],
        }
    )
    st.dataframe(frame, hide_index=True)


def compare_chart(pair: SpreadSoftmax) -> None:
    """The weights of the same scores at the chosen spread and at the reference spread
    (``pair`` rows 0 and 1), side by side."""
    labels = [str(i + 1) for i in range(pair.weights.shape[1])]
    series = {
        t("scaling.onehot.series_chosen", spread=num(pair.spreads[0])): pair.weights[0],
        t("scaling.onehot.series_reference", spread=num(pair.spreads[1], 0)): pair.weights[1],
    }
    spec = charts.grouped_bar_spec(
        t("scaling.onehot.x_title"), t("ui.col.weight"), t("scaling.onehot.series")
    )
    frame = charts.grouped_bar_frame(labels, series, lambda w: pct_label(w, 0))
    charts.show(
        frame, spec, t("scaling.onehot.alt", spread=num(pair.spreads[0]), ref=num(pair.spreads[1], 0))
    )


def compare_result(pair: SpreadSoftmax, at_max: SpreadSoftmax) -> None:
    """The top weights of the chosen and the reference spread, in a sentence; and,
    when even the largest spread (``at_max``) leaves the top weight under 90 %
    (the two largest scores almost equal), a note that this seed never goes one-hot."""
    st.markdown(
        t(
            "scaling.onehot.result",
            spread=num(pair.spreads[0]),
            top=pct(pair.top[0]),
            ref=num(pair.spreads[1], 0),
            ref_top=pct(pair.top[1]),
        )
    )
    if at_max.top[0] < CLOSE_PAIR_TOP:
        first, second = np.sort(at_max.scores[0] / at_max.spreads[0])[::-1][:2]
        st.info(
            t(
                "scaling.onehot.close_pair",
                n=at_max.scores.shape[1],
                gap=num(first - second, 3),
                max_spread=num(at_max.spreads[0], 0),
                top_at_max=pct(at_max.top[0]),
            )
        )


def gradient_chart(curve: SpreadSoftmax, typical: np.ndarray, chosen: SpreadSoftmax) -> None:
    """‖J‖_F over the spread on average and for these scores, with the chosen spread marked
    (``chosen`` rows: the chosen spread, the reference spread), and both sizes in a sentence."""
    names = (
        t("scaling.gradient.series_typical", draws=TYPICAL_DRAWS),
        t("scaling.gradient.series_these", n=curve.weights.shape[1]),
        t("scaling.gradient.series_chosen"),
    )
    ticks = tuple(float(x) for x in curve.spreads[:: len(curve.spreads) // 6])
    spec = charts.log_line_spec(
        t("scaling.gradient.x_title"),
        t("scaling.gradient.y_title"),
        t("scaling.gradient.series"),
        names,
        ticks,
    )
    lines = {names[0]: typical, names[1]: curve.jacobian_size}
    point = (names[2], chosen.spreads[0], chosen.jacobian_size[0])
    charts.show(charts.line_frame(curve.spreads, lines, point), spec, t("scaling.gradient.alt"))
    st.markdown(
        t(
            "scaling.gradient.result",
            spread=num(chosen.spreads[0]),
            size=num(chosen.jacobian_size[0], 3),
            ref=num(chosen.spreads[1], 0),
            ref_size=num(chosen.jacobian_size[1], 3),
        )
    )


def temperature_summary(
    weights: np.ndarray, unscaled: np.ndarray, h: float, visible: int, d_k: int, undone: bool
) -> None:
    """Entropy and top weight of the weights at the chosen temperature, and the same
    without the ÷√d_k for comparison; ``undone`` when the temperature cancels the ÷√d_k."""
    st.markdown(
        t(
            "scaling.temperature.entropy",
            entropy=num(h),
            visible=visible,
            max=num(max_entropy(visible)),
            top=pct(np.max(weights)),
        )
    )
    st.markdown(
        t(
            "scaling.temperature.unscaled",
            raw_top=pct(np.max(unscaled)),
            raw_entropy=num(entropy(unscaled)),
        )
    )
    if undone:
        st.markdown(t("scaling.temperature.undone", d_k=d_k, root=num(np.sqrt(d_k), 0)))
