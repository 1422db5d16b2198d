"""The loss curve, the reference losses beside it, and one sentence on how training went."""

from __future__ import annotations

from typing import Literal

import numpy as np
import streamlit as st

from course_app import charts, num, t, t_count
from lesson_core.capstone import (
    rate_advice,
    reference_losses,
    step_budget,
)
from lesson_core.transformer import (
    LOSS_TARGET,
    Config,
    TrainResult,
)
from lessons.capstone.controls import DEFAULT, lr_text

FEW_POINTS = 40  # loss curves shorter than this get a dot per step


def loss_chart(losses: np.ndarray, steps: int, save: Literal["below"] | None = "below") -> None:
    """The loss at every step so far, and the target as a flat second line;
    its PNG download under it (the Train button is above it), or none
    (``save=None``) while it is redrawn during a training run."""
    x = np.arange(1, len(losses) + 1)
    frame = charts.line_frame(
        x,
        {
            t("capstone.chart.loss"): np.asarray(losses, dtype=float),
            t("capstone.chart.target", target=num(LOSS_TARGET)): np.full(len(x), LOSS_TARGET),
        },
    )
    spec = charts.line_spec(  # x fixed to the whole run: the curve grows from left to right
        t("capstone.chart.x"),
        t("capstone.chart.y"),
        t("capstone.chart.series"),
        points=len(losses) < FEW_POINTS,  # a run that diverged after a step or two still shows
        x_domain=(0, steps),
    )
    alt_text = t_count("capstone.chart.alt", len(losses), steps=len(losses), target=num(LOSS_TARGET))
    charts.show(frame, spec, alt_text, save=save)


def reference_caption() -> None:
    """What the loss can be read against: the bigram's, a model's that cannot tell
    ねこ は from いぬ は, and the best possible, with the target among them."""
    ref = reference_losses()
    st.caption(
        t(
            "capstone.chart.reference",
            bigram=num(ref.bigram, 3),
            blind=num(ref.blind, 3),
            best=num(ref.best, 3),
            target=num(LOSS_TARGET),
        )
    )


def over_budget(config: Config) -> bool:
    """Too much work for one training: say how many steps this size allows."""
    budget = step_budget(config)
    if budget.over:
        st.warning(
            t(
                "capstone.train.over_budget",
                steps=config.steps,
                d=config.d_model,
                blocks=config.n_blocks,
                max_steps=budget.max_steps,
            )
        )
    return budget.over


def training_status(result: TrainResult) -> None:
    """One clear sentence on how training went; no NaN can reach it (the
    result's losses are the finite ones)."""
    first = num(result.losses[0], 3) if len(result.losses) else "—"
    last = num(result.final_loss, 3) if result.final_loss is not None else "—"
    if result.status == "diverged":
        st.error(
            t(
                "capstone.train.diverged",
                step=result.step,
                rate=lr_text(result.config.learning_rate),
                first=first,
                last=last,
                default=lr_text(DEFAULT.learning_rate),
            )
        )
    elif result.reached_target:
        st.success(
            t(
                "capstone.train.reached",
                target=num(LOSS_TARGET),
                target_step=result.target_step,
                target_seconds=num(result.seconds_to_target or 0.0, 1),
                steps=result.step,
                seconds=num(result.seconds, 1),
                first=first,
                last=last,
            )
        )
    else:
        advice = rate_advice(result.config.learning_rate)
        st.warning(
            t(
                f"capstone.train.short_{advice}",
                steps=result.step,
                first=first,
                last=last,
                target=num(LOSS_TARGET),
                rate=lr_text(result.config.learning_rate),
            )
        )
