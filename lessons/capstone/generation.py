"""Text the trained model writes, at a few temperatures."""

from __future__ import annotations

import numpy as np
import streamlit as st

from course_app import bound, md_escape, num, t
from lesson_core.transformer import (
    EOS,
    TrainResult,
    generate,
)
from lessons.capstone.predictions import CAT, PREFIXES, prefix_text, token_select

GEN_SEED, GEN_SAMPLES, TEMPERATURE = 0, 3, (0.0, 2.0, 1.0, 0.1)


def generation_section(result: TrainResult) -> None:
    """A few continuations of a chosen start, sampled at a chosen temperature
    from a generator with a fixed seed (so the same settings give the same text)."""
    left, right = st.columns(2, gap="large")
    with left:
        start = token_select(t("capstone.gen.prefix"), PREFIXES, CAT, "gpt_gen_prefix")
    low, high, default, step = TEMPERATURE
    temperature = bound(
        right.slider,
        t("capstone.gen.temp"),
        low,
        high,
        default,
        step,
        help=t("capstone.gen.temp_help"),
        key="gpt_temp",
    )
    temperature = float(min(high, max(low, temperature)))
    rng = np.random.default_rng(GEN_SEED)
    lines = []
    for k in range(GEN_SAMPLES):
        new = generate(result.params, result.config, result.vocab, start, temperature, rng)
        words = [tok for tok in new if tok != EOS]
        tail = t("capstone.gen.end") if new[-1:] == (EOS,) else t("capstone.gen.more")
        said = f" **{md_escape(' '.join(words))}**" if words else ""
        lines.append(f"{k + 1}. {md_escape(prefix_text(start))}{said} {tail}")
    st.markdown("\n".join(lines))
    mode = "greedy" if temperature == 0 else "sampled"
    st.caption(t(f"capstone.gen.{mode}", seed=GEN_SEED, n=GEN_SAMPLES, temperature=num(temperature, 1)))
