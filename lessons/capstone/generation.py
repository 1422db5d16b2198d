"""Text the trained model writes: how one next token is chosen (temperature, top-k,
top-p, each stage drawn), the text grown one drawn token at a time, and a few
whole continuations at once."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import streamlit as st

from course_app import bound, charts, gloss, md_escape, num, pct, session, t
from lesson_core.sampling import Stages, nucleus_size
from lesson_core.transformer import (
    BOS,
    EOS,
    MAX_SEQUENCE,
    TrainResult,
    generate,
    next_token_stages,
)
from lessons.capstone.controls import VOCAB
from lessons.capstone.predictions import CAT, PREFIXES, prefix_text, token_select

GEN_SEED, GEN_SAMPLES, TEMPERATURE = 0, 3, (0.0, 2.0, 1.0, 0.1)
TOP_P = (0.05, 1.0, 1.0, 0.05)  # low, high, default (off), step
STAGE_HEIGHT = 130  # each stage chart's plot: three stacked, each still readable on a laptop
MAX_TOKENS = 12  # new tokens in one continuation (generate's default)
CANDIDATES = tuple(i for i, tok in enumerate(VOCAB.tokens) if tok != BOS)  # "<s>" is never drawn


@dataclass(frozen=True)
class Sampling:
    """The three settings, as the page uses them (clamped to their ranges)."""

    temperature: float
    top_k: int
    top_p: float


def sampling_controls(column) -> Sampling:
    """Temperature (``gpt_temp``), top-k (``gpt_topk``, 1..V, V = off) and top-p
    (``gpt_topp``, 1 = off), each kept in the URL through ``bound``."""
    low, high, default, step = TEMPERATURE
    temperature = bound(
        column.slider,
        t("capstone.gen.temp"),
        low,
        high,
        default,
        step,
        help=t("capstone.gen.temp_help"),
        key="gpt_temp",
    )
    v = len(VOCAB.tokens)
    top_k = bound(
        column.slider,
        t("capstone.gen.sampling.topk", v=v),
        1,
        v,
        v,
        1,
        help=t("capstone.gen.sampling.topk_help"),
        key="gpt_topk",
    )
    p_low, p_high, p_default, p_step = TOP_P
    top_p = bound(
        column.slider,
        t("capstone.gen.sampling.topp"),
        p_low,
        p_high,
        p_default,
        p_step,
        help=t("capstone.gen.sampling.topp_help"),
        key="gpt_topp",
    )
    return Sampling(
        float(min(high, max(low, temperature))),
        int(min(v, max(1, top_k))),
        float(min(p_high, max(p_low, top_p))),
    )


def step_rng(step: int) -> np.random.Generator:
    """The generator of the ``step``-th appended token: the same settings and text
    draw the same token, and the chart shows the draw that "next token" appends."""
    return np.random.default_rng([GEN_SEED, step])


def token_label(i: int) -> str:
    return gloss(VOCAB.tokens[i])


def step_sentences(s: Stages, step: int) -> list[tuple[str, dict]]:
    """The sentences about one step's distribution, as (catalog key, values): the
    greedy case, or what top-k and top-p keep and the kept mass; then the draw
    (the ``step``-th token appended, drawn with ``step_rng(step)``). The tokens
    that can be drawn at all are those of probability above 0 after temperature
    (never "<s>"). Each sentence holds at every setting
    (tests/tasks_and_statements/test_statements_capstone.py)."""
    possible = int(np.count_nonzero(s.tempered > 0))
    k_kept = int(np.count_nonzero(s.top_k))
    token = md_escape(token_label(s.drawn))
    drawn = {"token": token, "p": pct(s.final[s.drawn]), "seed": GEN_SEED, "step": step + 1}
    by_top_k = s.tempered[s.top_k].sum()
    if s.greedy:
        if s.temperature == 0:
            said = ("capstone.gen.sampling.greedy_temperature", {"token": token})
        elif s.k == 1:
            said = ("capstone.gen.sampling.greedy_top_k", {"token": token})
        else:  # top-p: the likeliest token alone reaches p
            share = s.tempered[s.drawn] / by_top_k
            said = (
                "capstone.gen.sampling.greedy_top_p",
                {"token": token, "p": pct(s.p, 0), "share": pct(share)},
            )
        return [said, ("capstone.gen.sampling.drawn", drawn)]
    if k_kept == possible:
        by_k = ("capstone.gen.sampling.k_all", {"k": s.k, "kept": k_kept})
    elif k_kept > s.k:
        by_k = ("capstone.gen.sampling.k_tie", {"k": s.k, "kept": k_kept})
    else:
        by_k = ("capstone.gen.sampling.k_some", {"k": s.k, "n": possible})
    share = s.tempered[s.kept].sum() / by_top_k
    nucleus = nucleus_size(np.where(s.top_k, s.tempered, 0.0), s.p)
    if s.p == 1:
        by_p = ("capstone.gen.sampling.p_off", {"kept": k_kept})
    elif nucleus == k_kept:
        by_p = ("capstone.gen.sampling.p_all", {"p": pct(s.p, 0), "kept": k_kept})
    elif nucleus == s.n_kept:
        by_p = ("capstone.gen.sampling.p_some", {"p": pct(s.p, 0), "kept": s.n_kept, "share": pct(share)})
    else:  # the tokens tied with the last of the nucleus joined it
        by_p = (
            f"capstone.gen.sampling.p_tie_{'one' if nucleus == 1 else 'other'}",
            {"p": pct(s.p, 0), "kept": s.n_kept, "nucleus": nucleus, "share": pct(share)},
        )
    if s.n_kept == possible:
        mass = ("capstone.gen.sampling.nothing_cut", {})
    else:
        cut = possible - s.n_kept
        mass = (
            f"capstone.gen.sampling.mass_{'one' if cut == 1 else 'other'}",
            {"kept": s.n_kept, "mass": pct(s.kept_mass), "cut": cut},
        )
    return [by_k, by_p, mass, ("capstone.gen.sampling.drawn", drawn)]


def _bar_text(p: float) -> str:
    """A bar's percentage, or nothing below half a percent."""
    return pct(p, 0) if p >= 0.005 else ""


def stage_frames(s: Stages) -> dict[str, object]:
    """The three charts' data, over every token but "<s>": the model's softmax,
    after temperature (the tokens top-k and top-p cut in grey), the kept ones
    renormalised (the token drawn in orange). Each sums to 1."""
    ids = list(CANDIDATES)
    labels = [token_label(i) for i in ids]
    cut = ~s.kept[ids]
    drawn = ids.index(s.drawn)

    def frame(values: np.ndarray, highlight=None, masked=None):
        return charts.bar_frame(labels, values[ids], [_bar_text(v) for v in values[ids]], highlight, masked)

    return {
        "raw": frame(s.raw),
        "tempered": frame(s.tempered, masked=cut),
        "final": frame(s.final, highlight=drawn, masked=cut),
    }


def draw_stages(s: Stages, prefix: Sequence[str]) -> None:
    """The three stage charts, stacked (the token names under the last), on one
    fixed 0–100 % axis so that the bars compare from chart to chart."""
    frames = stage_frames(s)
    x, y = t("capstone.predict.x"), t("capstone.predict.y")
    captions = {
        "raw": t("capstone.gen.sampling.stage_raw"),
        "tempered": t("capstone.gen.sampling.stage_tempered", temperature=num(s.temperature, 1)),
        "final": t("capstone.gen.sampling.stage_final", seed=GEN_SEED),
    }
    for stage, frame in frames.items():
        last = stage == "final"
        spec = charts.bar_spec(x, y, STAGE_HEIGHT, slanted="steep", x_labels=last)
        st.caption(captions[stage])
        charts.show(
            frame, spec, t("capstone.gen.sampling.alt", stage=captions[stage], prefix=prefix_text(prefix))
        )


def grown(start: tuple[str, ...]) -> list[str]:
    """The tokens appended one by one to ``start`` in this session (a new start begins again)."""
    kept = session.get(session.GPT_GROWN)
    if not kept or kept[0] != start:
        kept = (start, [])
        session.put(session.GPT_GROWN, kept)
    return kept[1]


def limit(start: Sequence[str]) -> int:
    """How many tokens may be appended: MAX_TOKENS, and never past MAX_SEQUENCE with "<s>"."""
    return min(MAX_TOKENS, MAX_SEQUENCE - 1 - len(start))


def next_stages(result: TrainResult, prefix: Sequence[str], setting: Sampling, step: int) -> Stages:
    """Every stage of the choice of the ``step``-th appended token after ``prefix``."""
    return next_token_stages(
        result.params,
        result.config,
        result.vocab,
        prefix,
        setting.temperature,
        setting.top_k,
        setting.top_p,
        step_rng(step),
    )


def has_ended(start: tuple[str, ...], tokens: Sequence[str]) -> bool:
    """The text is finished: the model drew "</s>", or the length limit is reached."""
    return tokens[-1:] == [EOS] or len(tokens) >= limit(start)


def append_next(result: TrainResult, start: tuple[str, ...], setting: Sampling) -> None:
    """on_click of "next token": append the token drawn at the settings the page
    showed (the one the last chart marks). A callback, so that the button of the
    run it starts is already disabled when that token ended the text."""
    tokens = grown(start)
    if not has_ended(start, tokens):
        tokens.append(VOCAB.tokens[next_stages(result, (*start, *tokens), setting, len(tokens)).drawn])


def step_by_step(result: TrainResult, start: tuple[str, ...], setting: Sampling) -> None:
    """The text so far, the buttons, and the next step's stages for it."""
    tokens = grown(start)
    ended = has_ended(start, tokens)
    words = [tok for tok in tokens if tok != EOS]
    said = f" **{md_escape(' '.join(words))}**" if words else ""
    st.markdown(
        t("capstone.gen.sampling.so_far", text=f"{md_escape(prefix_text(start))}{said}", n=len(tokens))
    )
    left, right = st.columns(2)
    left.button(
        t("capstone.gen.sampling.next"),
        key="gpt_next",
        icon=":material/skip_next:",
        disabled=ended,
        on_click=append_next,
        args=(result, start, setting),
    )
    right.button(
        t("capstone.gen.sampling.reset"),
        key="gpt_reset",
        icon=":material/restart_alt:",
        disabled=not tokens,
        on_click=tokens.clear,
    )
    if tokens[-1:] == [EOS]:
        st.info(t("capstone.gen.sampling.ended", eos=EOS))
        return
    if ended:
        st.info(t("capstone.gen.sampling.at_limit", n=limit(start)))
        return
    prefix = (*start, *tokens)
    stages = next_stages(result, prefix, setting, len(tokens))
    st.markdown(t("capstone.gen.sampling.step", prefix=md_escape(prefix_text(prefix))))
    draw_stages(stages, prefix)
    st.markdown(" ".join(t(key, **values) for key, values in step_sentences(stages, len(tokens))))


def all_at_once(result: TrainResult, start: tuple[str, ...], setting: Sampling) -> None:
    """A few whole continuations of the start, from a generator with a fixed seed
    (so the same settings give the same text)."""
    rng = np.random.default_rng(GEN_SEED)
    lines = []
    for k in range(GEN_SAMPLES):
        new = generate(
            result.params,
            result.config,
            result.vocab,
            start,
            setting.temperature,
            rng,
            limit(start),
            top_k=setting.top_k,
            top_p=setting.top_p,
        )
        words = [tok for tok in new if tok != EOS]
        tail = t("capstone.gen.end") if new[-1:] == (EOS,) else t("capstone.gen.more")
        said = f" **{md_escape(' '.join(words))}**" if words else ""
        lines.append(f"{k + 1}. {md_escape(prefix_text(start))}{said} {tail}")
    st.markdown("\n".join(lines))
    if setting.temperature == 0:
        st.caption(t("capstone.gen.greedy", n=GEN_SAMPLES))
    else:
        st.caption(
            t(
                "capstone.gen.sampled",
                seed=GEN_SEED,
                n=GEN_SAMPLES,
                temperature=num(setting.temperature, 1),
                k=setting.top_k,
                p=pct(setting.top_p, 0),
            )
        )


def generation_section(result: TrainResult) -> None:
    """The start and the three sampling controls; one next token at a time with
    every stage of its choice drawn; then whole continuations at once."""
    left, right = st.columns(2, gap="large")
    with left:
        start = token_select(t("capstone.gen.prefix"), PREFIXES, CAT, "gpt_gen_prefix")
        st.markdown(t("capstone.gen.sampling.order"))
    setting = sampling_controls(right)
    step_by_step(result, start, setting)
    st.markdown(t("capstone.gen.sampling.at_once", n=GEN_SAMPLES))
    all_at_once(result, start, setting)
