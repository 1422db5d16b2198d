"""The next-token comparison: the trained model against the bigram and the corpus
after ねこ は and いぬ は, and the learner's guess asked before it."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import streamlit as st

from course_app import bound, charts, gloss, md_escape, open_fold, pct, t, t_list, views
from lesson_core.capstone import (
    SHOW_MAX,
    SHOW_MIN,
    NextTokens,
    apart,
    distributions,
    shown_tokens,
)
from lesson_core.examples import CAT_WA, CORPUS, DOG_WA
from lesson_core.ranking import top_k_whole
from lesson_core.rounding import half_up
from lesson_core.transformer import (
    TrainResult,
)
from lessons.capstone.controls import VOCAB

CAT, DOG = CAT_WA, DOG_WA
COMPARE = "capstone_compare"  # the fold of the charts that check the prediction: a choice opens it

# Every sentence start in the corpus, from one token up to the whole sentence
# (after which the only right answer is the end "</s>"), in order of first appearance.
PREFIXES: tuple[tuple[str, ...], ...] = tuple(
    dict.fromkeys(tuple(s[:k]) for s in CORPUS for k in range(1, len(s) + 1))
)


def prefix_text(prefix: Sequence[str]) -> str:
    """The tokens joined by spaces: ('ねこ', 'は') -> 'ねこ は'."""
    return " ".join(prefix)


def token_select(
    label: str, choices: Sequence[Sequence[str]], default: Sequence[str], key: str
) -> tuple[str, ...]:
    """A selectbox over token sequences, shown (and kept in the URL) as the tokens
    joined by spaces, so a shared link reads the same in both languages."""
    texts = [prefix_text(c) for c in choices]
    chosen = bound(st.selectbox, label, texts, index=texts.index(prefix_text(default)), key=key)
    return tuple((chosen or prefix_text(default)).split(" "))


def _bar_text(p: float) -> str:
    """A bar's percentage, or nothing below half a percent."""
    return pct(p, 0) if p >= 0.005 else ""


def top_text(p: np.ndarray, k: int = 4) -> str:
    """'ひるね 25.0%, さかな 24.9%, …': the k likeliest tokens, glossed and
    escaped; a tie at the cut is kept whole (``top_k_whole``)."""
    best = top_k_whole(p, k)
    if len(best) == 0:
        return t("capstone.predict.nothing")
    return t("capstone.predict.sep").join(f"{md_escape(gloss(VOCAB.tokens[i]))} {pct(p[i])}" for i in best)


def prediction_column(result: TrainResult, side: str, default: tuple[str, ...]) -> NextTokens:
    """A prefix picker and, for that prefix, the model's, the bigram's and the
    corpus's next-token distributions as grouped bars, with the top tokens in text."""
    prefix = token_select(t(f"capstone.predict.pick_{side}"), PREFIXES, default, f"gpt_prefix_{side}")
    found = distributions(result, prefix)
    dist = dict(found.series)
    names = {
        "model": t("capstone.predict.series_model"),
        "bigram": t("capstone.predict.series_bigram"),
        "corpus": t("capstone.predict.series_corpus"),
    }
    shown = shown_tokens(list(dist.values()))
    labels = [gloss(VOCAB.tokens[i]) for i in shown]
    spec = charts.dense_grouped_bar_spec(  # the values are in the tooltips and in the text below
        t("capstone.predict.x"),
        t("capstone.predict.y"),
        t("capstone.predict.series"),
        views.long_labels(labels) or len(labels) > 6,
    )
    frame = charts.grouped_bar_frame(labels, {names[k]: v[shown] for k, v in dist.items()}, _bar_text)
    charts.show(frame, spec, t("capstone.predict.alt", prefix=prefix_text(prefix)))
    st.markdown(
        t(
            "capstone.predict.top",
            prefix=md_escape(prefix_text(prefix)),
            model_top=top_text(dist["model"]),
            bigram_top=top_text(dist["bigram"]),
            corpus_top=top_text(dist["corpus"]),
        )
    )
    return found


def apart_prediction(result: TrainResult, alike_below: float) -> None:
    """Before the charts of section 3: the learner predicts whether this trained
    model tells ねこ は from いぬ は; nothing is told until they choose. Then the
    answer, measured on this run: the model's TV between the two (beside the
    bigram's and the corpus's) and whether it reaches ``alike_below`` (as
    printed, so that a TV shown as 50.0% never reads as "below 50.0%"); the
    choice opens the fold of the charts that check it (``COMPARE``). Not kept
    in the URL: a question, not a setting."""
    guess = st.radio(
        t("capstone.predict.ask.question"),
        range(2),  # 0: tells them apart, 1: does not
        index=None,
        format_func=t_list("capstone.predict.ask.options").__getitem__,
        key="gpt_predict_apart",
        on_change=open_fold,
        args=(COMPARE,),
    )
    if guess is None:
        st.caption(t("capstone.predict.ask.wait"))
        return
    gap = apart(distributions(result, CAT), distributions(result, DOG))
    tells = half_up(gap.model, 1, scale=100) >= half_up(alike_below, 1, scale=100)
    said = t("capstone.predict.ask.right" if guess == (0 if tells else 1) else "capstone.predict.ask.wrong")
    st.markdown(
        t(
            f"capstone.predict.ask.{'apart' if tells else 'alike'}",
            said=said,
            tv=pct(gap.model),
            bigram_tv=pct(gap.bigram),
            corpus_tv=pct(gap.corpus),
            line=pct(alike_below),
        )
    )


def prediction_section(result: TrainResult) -> None:
    """Two prefixes side by side (ねこ は and いぬ は by default), and how far apart
    their predictions are for the model, the bigram and the corpus."""
    left, right = st.columns(2, gap="large")
    with left:
        a = prediction_column(result, "a", CAT)
    with right:
        b = prediction_column(result, "b", DOG)
    gap = apart(a, b)
    st.markdown(
        t(
            "capstone.predict.tv",
            a=md_escape(prefix_text(a.prefix)),
            b=md_escape(prefix_text(b.prefix)),
            model_tv=pct(gap.model),
            bigram_tv=pct(gap.bigram),
            corpus_tv=pct(gap.corpus),
        )
    )
    st.caption(t("capstone.predict.hidden", min=pct(SHOW_MIN, 0), max=SHOW_MAX))
