"""The mini GPT's controls (width, heads, blocks, steps, learning rate, seed) and its
parameter table: what a configuration may be comes from ``lesson_core.capstone``."""

from __future__ import annotations

import math
from collections.abc import Sequence

import streamlit as st

from course_app import bound, session, t, t_count, tables
from lesson_core.capstone import (
    BLOCKS,
    LEARNING_RATES,
    MAX_HEADS,
    SEEDS,
    STEPS,
    WIDTH,
    head_options,
    nearest_heads,
    parameter_groups,
    snap,
)
from lesson_core.examples import CORPUS
from lesson_core.transformer import (
    Config,
    Vocab,
)

DEFAULT = Config()

VOCAB = Vocab.from_sentences(CORPUS)


def config_controls() -> Config:
    """Width, heads (only divisors of the width), blocks, steps, learning rate and
    seed, all kept in the URL. Returns the chosen configuration."""
    d, h = _width_and_heads()
    blocks = bound(
        st.radio,
        t("capstone.lab.blocks"),
        BLOCKS,
        index=BLOCKS.index(DEFAULT.n_blocks),
        horizontal=True,
        help=t("capstone.lab.blocks_help"),
        key="gpt_blocks",
    )
    steps = _slider(t("capstone.lab.steps"), STEPS, DEFAULT.steps, t("capstone.lab.steps_help"), "gpt_steps")
    rate = bound(
        st.select_slider,
        t("capstone.lab.rate"),
        LEARNING_RATES,
        value=DEFAULT.learning_rate,
        format_func=lr_text,
        help=t("capstone.lab.rate_help"),
        key="gpt_lr",
    )
    seed = _seed_input()
    return Config(
        d_model=d,
        n_heads=h,
        n_blocks=int(blocks or DEFAULT.n_blocks),
        steps=snap(steps, STEPS[0], STEPS[1], 1),
        learning_rate=float(rate),
        seed=snap(seed if seed is not None else DEFAULT.seed, *SEEDS, 1),
    )


def _slider(label: str, limits: tuple[int, int, int], default: int, help_text: str, key: str) -> int:
    """An integer slider over ``limits`` (min, max, step), kept in the URL."""
    low, high, step = limits
    return bound(st.slider, label, low, high, default, step, help=help_text, key=key)


def _width_and_heads() -> tuple[int, int]:
    """The width slider, then the heads (only the divisors of the width; a head
    count the new width does not divide becomes the nearest that does) and a
    note on each head's share. Returns (d_model, n_heads)."""
    width = _slider(
        t("capstone.lab.width"), WIDTH, DEFAULT.d_model, t("capstone.lab.width_help"), "gpt_width"
    )
    d = snap(width, *WIDTH)
    heads = head_options(d)
    fixed = session.get(session.GPT_HEADS, heads[0]) not in heads
    if fixed:  # the width changed and the old head count does not divide it
        session.put(session.GPT_HEADS, nearest_heads(heads, int(session.get(session.GPT_HEADS))))
    h = bound(
        st.select_slider,
        t("capstone.lab.heads"),
        heads,
        value=None if fixed else nearest_heads(heads, DEFAULT.n_heads),
        help=t("capstone.lab.heads_help", max_heads=MAX_HEADS),
        key=session.GPT_HEADS,
    )
    st.caption(
        t_count(
            "capstone.lab.heads_note", d // h, d=d, h=h, d_head=d // h, options=", ".join(map(str, heads))
        )
    )
    return d, int(h)


def _seed_input() -> int | None:
    """The seed, typed; one outside SEEDS is put back in range with a warning."""
    seed = bound(  # no min/max for the widget: its own range message would be in English
        st.number_input,
        t("capstone.lab.seed"),
        value=DEFAULT.seed,
        step=1,
        help=t("capstone.lab.seed_help"),
        key=session.GPT_SEED,
        limits=SEEDS,
        on_change=_seed_in_range,
    )
    if notice := session.pop(session.GPT_SEED_NOTICE, None):
        st.warning(t("capstone.lab.seed_range", typed=notice, low=SEEDS[0], high=SEEDS[1]))
    return seed if seed is None or math.isfinite(seed) else None


def _seed_in_range() -> None:
    """A typed seed outside SEEDS is put back in range, and the learner told."""
    typed = session.get(session.GPT_SEED)
    if typed is not None and not math.isfinite(typed):  # NaN or infinity, sent over the websocket
        typed = None
    if typed is None or not SEEDS[0] <= typed <= SEEDS[1]:
        seed = DEFAULT.seed if typed is None else min(SEEDS[1], max(SEEDS[0], int(typed)))
        session.put(session.GPT_SEED, seed)
        session.put(session.GPT_SEED_NOTICE, "—" if typed is None else str(typed))


def lr_text(rate: float) -> str:
    """0.0005 -> '0.0005', 1.0 -> '1' (also the URL value: language-independent)."""
    return f"{rate:g}"


def _shape_text(shapes: Sequence[tuple[int, ...]]) -> str:
    """'4 × (32 × 32)' for four 32 × 32 matrices; parts with different shapes joined by '+'."""
    parts: list[tuple[tuple[int, ...], int]] = []
    for shape in shapes:
        if parts and parts[-1][0] == shape:
            parts[-1] = (shape, parts[-1][1] + 1)
        else:
            parts.append((shape, 1))
    texts = []
    for shape, count in parts:
        dims = " × ".join(map(str, shape))
        texts.append(dims if count == 1 else f"{count} × ({dims})" if len(shape) > 1 else f"{count} × {dims}")
    return " + ".join(texts)


def parameter_total(config: Config) -> int:
    """The model's number of parameters in all."""
    return parameter_groups(config.d_model, config.n_blocks, len(VOCAB)).total


def parameter_table(config: Config) -> int:
    """What the model is made of, with the number of parameters in each part and
    in all. Returns the total."""
    found = parameter_groups(config.d_model, config.n_blocks, len(VOCAB))
    rows = [(g.part, _shape_text(g.shapes), g.size, g.times) for g in found.groups]
    positions = ("positions", f"n × {config.d_model}", 0, 1)
    rows = [rows[0], positions, *rows[1:], ("total", "", found.total, 1)]
    frame = tables.text_table(
        {
            t("capstone.table.col_part"): [
                t(f"capstone.table.{part}", blocks=config.n_blocks) for part, *_ in rows
            ],
            t("capstone.table.col_shape"): [shape for _, shape, _, _ in rows],
            t("capstone.table.col_count"): [_count_text(size, times) for _, _, size, times in rows],
        }
    )
    st.table(frame, hide_index=True, border="horizontal")  # a static table: long names wrap
    return found.total


def _count_text(size: int, times: int) -> str:
    """'26,711' once; '2 × 4,096 = 8,192' for a part in every block."""
    return f"{size * times:,}" if times == 1 else f"{times} × {size:,} = {size * times:,}"
