"""What the positional-encoding lesson draws: the size controls, its tables,
the waves and the matrix heatmaps (no text in the cells: a 256 × 128 matrix has
too many), with specs built once and fed new data on every rerun."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import streamlit as st

from course_app import bound, charts, fold, gloss, num, t, tables, vec
from lesson_core.positional import (
    EncodingSizeError,
    OrderComparison,
    PlacedToken,
    PositionMap,
    pairwise_distances,
    similarity_trend,
    single_hand,
    wavelengths,
)
from lesson_core.rounding import fixed

MIN_POSITIONS, MAX_POSITIONS, DEFAULT_POSITIONS = 2, 256, 50
D_MODELS = tuple(range(2, 129, 2))  # only even widths: sin and cos come in pairs
DEFAULT_D_MODEL = 16
WAVE_DIMS = 4


def size_controls() -> tuple[int, int]:
    """Number of positions (slider) and d_model (even values only), kept in the URL."""
    n = bound(
        st.slider,
        t("positional.explore.n_label"),
        MIN_POSITIONS,
        MAX_POSITIONS,
        DEFAULT_POSITIONS,
        help=t("positional.explore.n_help", lo=MIN_POSITIONS, hi=MAX_POSITIONS),
        key="pe_n",
    )
    d = bound(
        st.select_slider,
        t("positional.explore.d_label"),
        D_MODELS,
        DEFAULT_D_MODEL,
        help=t("positional.explore.d_help"),
        key="pe_d",
    )
    return int(n), int(d)


def mask_switch() -> bool:
    """Whether the word-order comparison uses the causal mask of lesson 4."""
    return bool(
        bound(
            st.toggle,
            t("positional.order.mask_label"),
            False,
            help=t("positional.order.mask_help"),
            key="pe_mask",
        )
    )


LAYERS = (1, 2)


def layers_choice() -> int:
    """How many attention layers the word-order comparison stacks (1 or 2)."""
    layers = bound(
        st.radio,
        t("positional.order.layers_label"),
        LAYERS,
        index=0,
        horizontal=True,
        help=t("positional.order.layers_help"),
        key="pe_layers",
    )
    return int(layers) if layers in LAYERS else LAYERS[0]


def size_error(err: EncodingSizeError) -> None:
    """A size the encoding cannot take, explained in the learner's language."""
    st.error(t(f"positional.error.{err.reason}", max_n=MAX_POSITIONS, max_d=D_MODELS[-1]))


def order_table(tokens_a: Sequence[str], tokens_b: Sequence[str], cmp: OrderComparison) -> None:
    """Both sentences' outputs matched up by token, their largest difference (the
    result) right after the token, so that a phone shows it without scrolling sideways."""
    frame = tables.text_table(
        {
            t("ui.col.token"): [gloss(tok) for tok in tokens_a],
            t("positional.col.difference"): [num(x, 3) for x in cmp.differences],
            t("positional.col.pos_a"): list(range(len(tokens_a))),
            t("positional.col.pos_b"): [int(j) for j in cmp.match],
            t("positional.col.out_a"): [vec(v) for v in cmp.outputs_a],
            t("positional.col.out_b"): [vec(cmp.outputs_b[j]) for j in cmp.match],
        }
    )
    st.dataframe(frame, hide_index=True)


def encoding_table(pe: np.ndarray) -> None:
    """The encoding as numbers: one row per position, one column per dimension."""
    columns = {t("positional.col.position"): [str(p) for p in range(pe.shape[0])]}
    for i in range(pe.shape[1]):
        columns[f"i = {i} ({'sin' if i % 2 == 0 else 'cos'})"] = [num(x, 3) for x in pe[:, i]]
    st.dataframe(tables.text_table(columns), hide_index=True, height="content")


def placed_table(placed: PlacedToken) -> None:
    """The same token at several positions: its vector (said in the text above,
    the same in every row) + position vector = input; three columns, so that a
    phone shows the input without scrolling sideways."""
    frame = tables.text_table(
        {
            t("positional.col.position"): [str(p) for p in placed.positions],
            t("positional.col.position_vector"): [vec(p) for p in placed.position_vectors],
            t("positional.col.input"): [vec(x) for x in placed.inputs],
        }
    )
    st.dataframe(frame, hide_index=True)


def waves(pe: np.ndarray) -> None:
    """The first (up to) four dimensions of the encoding as waves over position."""
    n, d = pe.shape
    dims = min(WAVE_DIMS, d)
    names = tuple(t("positional.explore.series", i=i, fn="sin" if i % 2 == 0 else "cos") for i in range(dims))
    frame = charts.wave_frame(n, wavelengths(d), names)  # smooth between positions
    spec = charts.wave_spec(
        t("positional.col.position"), t("positional.col.value"), t("positional.col.dimension"), names, n <= 64
    )
    charts.show(frame, spec, t("positional.explore.waves_alt", n=n, dims=dims))


def matrix_map(
    values: np.ndarray, x_key: str, y_key: str, colour_key: str, alt_text: str, unit_range: bool = False
) -> None:
    """Draw a matrix heatmap with catalog axis titles."""
    spec = charts.matrix_spec(t(x_key), t(y_key), t(colour_key), unit_range)
    charts.show(charts.matrix_frame(values), spec, alt_text)


def waves_chart(view: PositionMap) -> None:
    """The first dimensions as waves, under their subheader."""
    st.subheader(t("positional.explore.waves_header", dims=min(WAVE_DIMS, view.pe.shape[1])))
    waves(view.pe)


def hands_text(view: PositionMap) -> None:
    """How fast the fastest and slowest hands turn; with a single hand, how close
    one turn and many turns bring two marks."""
    d = view.pe.shape[1]
    lam, turns = view.wavelengths, view.turns
    if d == 2:
        hand = single_hand(view)
        i, j = view.closest
        st.markdown(
            t(
                "positional.explore.hands_single",
                fast=num(hand.wavelength, 2),
                fast_turns=num(turns[0], 1),
                one_turn=hand.one_turn,
                one_turn_distance=num(hand.one_turn_distance, 3),
            )
        )
        many = hand.closest_distance < hand.one_turn_distance  # some gap beats one turn
        st.markdown(
            t(
                "positional.explore.hands_many" if many else "positional.explore.hands_few",
                i=i,
                j=j,
                turns_apart=num(hand.turns_apart, 3),
                distance=num(hand.closest_distance, 3),
            )
        )
        return
    st.markdown(
        t(
            "positional.explore.hands",
            fast=num(lam[0], 1),
            fast_turns=num(turns[0], 1),
            slow_dims=f"{d - 2}, {d - 1}",
            slow=fixed(lam[-1], 1, grouped=True),  # thousands grouped, like 1,024 elsewhere
            slow_turns=num(turns[-1], 4),
        )
    )


def maps_section(view: PositionMap) -> None:
    """The whole encoding, then PE PEᵀ, each as a heatmap with its numbers in
    words, each in a fold named after it; the closest pair stays open (a task
    asks for it)."""
    n, d = view.pe.shape
    if box := fold(t("positional.explore.matrix_header"), "positional_matrix", icon=":material/grid_on:"):
        with box:
            matrix_map(
                view.pe,
                "positional.col.dimension",
                "positional.col.position",
                "positional.col.value",
                t("positional.explore.matrix_alt", n=n, d=d),
                unit_range=True,
            )
    label = t("positional.explore.similarity_header")
    if box := fold(label, "positional_similarity", icon=":material/grid_on:"):
        with box:
            similarity_section(view)
    i, j = view.closest
    st.markdown(t("positional.explore.closest", i=i, j=j, distance=num(view.closest_distance, 3)))


def similarity_section(view: PositionMap) -> None:
    """PE PEᵀ as a heatmap, and what it shows near and far from the diagonal."""
    n, d = view.pe.shape
    s = view.similarity
    matrix_map(
        s,
        "positional.col.position",
        "positional.col.position",
        "positional.col.similarity",
        t("positional.explore.similarity_alt", n=n),
    )
    st.markdown(
        t(
            "positional.explore.similarity_body",
            itself=num(s[0, 0]),
            half=d // 2,
            near=num(s[0, 1]),
            far_pos=n - 1,
            far=num(s[0, -1]),
        )
    )
    trend = similarity_trend(s)
    if trend.falls:
        st.markdown(t("positional.explore.similarity_falls"))
    else:
        low, high = distinct(trend.low, trend.high or 0.0)
        st.markdown(
            t(
                "positional.explore.similarity_wavy",
                low_at=trend.low_at,
                low=low,
                high_at=trend.high_at,
                high=high,
            )
        )
    st.markdown(t("positional.explore.similarity_offset"))


def distinct(low: float, high: float) -> tuple[str, str]:
    """Two numbers with as many decimals (2 to 4) as it takes for them to read
    differently, so that "back up to" never shows the same number twice."""
    digits = 2
    while num(low, digits) == num(high, digits) and digits < 4:
        digits += 1
    return num(low, digits), num(high, digits)


def same_token_section(placed: PlacedToken) -> None:
    """One token vector at several positions: the table and how far apart the inputs end up."""
    st.markdown(
        t(
            "positional.same.body",
            token=vec(placed.token, 1),
            positions=", ".join(map(str, placed.positions)),
            d=len(placed.token),
        )
    )
    placed_table(placed)
    st.markdown(
        t(
            "positional.same.result",
            count=len(placed.positions),
            first=placed.positions[0],
            last=placed.positions[-1],
            distance=num(pairwise_distances(placed.inputs)[0, -1]),
        )
    )
