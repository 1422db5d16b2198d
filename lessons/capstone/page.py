"""Lesson 7 — the capstone: a mini GPT that can tell ねこ は from いぬ は."""

import streamlit as st

from course_app import (
    fold,
    lesson_end,
    num,
    page_start,
    pct,
    section_fold,
    section_start,
    session,
    t,
    terms,
    try_this,
)
from lesson_core.capstone import cat_dog_tv, heads_check, reference_losses
from lesson_core.examples import CORPUS
from lesson_core.transformer import BOS, EOS, FFN_MULT, LOSS_TARGET, Config
from lessons.capstone import controls, generation, maps, pipeline, predictions, training

LESSON = "capstone"
REFERENCE = reference_losses()
FAIL_TV = (
    0.5  # below this TV the predictions after ねこ は and いぬ は count as alike (task t2, the prediction)
)


def main() -> None:
    page_start(LESSON, n=len(CORPUS))
    section_start(
        "capstone.pieces",
        r"\begin{aligned} x &= E[t] + PE \\ "
        r"x &\leftarrow x + \mathrm{MultiHead}(\mathrm{LN}(x)) \quad \text{(causal)} \\ "
        r"x &\leftarrow x + \mathrm{FFN}(\mathrm{LN}(x)) \\ "
        r"p(\text{next}) &= \mathrm{softmax}(\mathrm{LN}(x)\, W_{out} + b_{out}) \end{aligned}",
        body="intro",
        terms=("embedding", "residual", "layernorm", "head"),
    )
    if box := fold(t("capstone.pieces.parts_fold"), "capstone_parts"):
        with box:
            st.markdown(t("capstone.pieces.body", ffn=FFN_MULT, bos=BOS, eos=EOS))
    if box := fold(t("capstone.pieces.training_fold"), "capstone_training"):
        with box:
            st.markdown(t("capstone.pieces.training", clip=num(Config().clip_norm or 0.0, 0)))
            st.latex(r"\mathcal{L} = -\frac{1}{N} \sum_{i=1}^{N} \log p_\theta(t_{i+1} \mid t_1, \dots, t_i)")
            terms("loss", "gradient", "training", "parameter", "corpus")

    section_start("capstone.lab", target=num(LOSS_TARGET))
    lab()
    if box := fold(t("capstone.real.header"), "capstone_real", icon=":material/unfold_more:"):
        with box:
            real_gpt()
    lesson_end(LESSON)


def real_gpt() -> None:
    """Going further, this model and a real GPT: what one head can and cannot do, what is the same."""
    one = heads_check(1)  # trained once per server process, then kept (only once opened)
    st.markdown(
        t(
            "capstone.real.one_head" if one.reached else "capstone.real.one_head_short",
            target=num(LOSS_TARGET),
            step=one.target_step or 0,
            steps=one.steps,
            loss=num(one.final_loss, 3),
        )
    )
    st.markdown(t("capstone.real.why_one_head", target=num(LOSS_TARGET), blind=num(REFERENCE.blind, 3)))
    st.markdown(t("capstone.real.same"))
    st.markdown(t("capstone.real.differs"))


def pressed_here(config, pressed: bool) -> bool:
    """Whether this learner pressed Train for ``config`` (now or earlier in the
    session), whether it trained or the result was already kept."""
    mine: set = session.setdefault(session.GPT_PRESSED, set())
    if pressed:
        mine.add(config)
    return config in mine


@st.fragment
def lab() -> None:
    left, side = st.columns([2, 3], gap="large")
    with left:
        config = controls.config_controls()
        pressed = st.button(
            t("capstone.lab.train"), key="gpt_train", type="primary", icon=":material/play_arrow:"
        )
    with side:  # on a phone this comes between the button and the loss curve: keep it short
        if box := fold(t("capstone.table.header"), "capstone_parameters"):
            with box:
                controls.parameter_table(config)
                pipeline.model_path(config)  # the path to the next token with this model's sizes
        total = controls.parameter_total(config)
        st.markdown(t("capstone.table.body", total=f"{total:,}", d=config.d_model, h=config.n_heads))

    st.subheader(t("capstone.train.header"))
    result = training.train_or_reuse(config, pressed)
    mine = pressed_here(config, pressed)
    trained = result is not None and result.status == "finished"
    tv = cat_dog_tv(result) if trained else 1.0
    picked = False  # t4: the learner picked (one of) the best head(s) in section 5's fold
    if trained:
        section_start("capstone.predict")
        predictions.apart_prediction(result, FAIL_TV)  # asked before the charts that answer it
        if box := fold(t("capstone.predict.compare_fold"), predictions.COMPARE, icon=":material/bar_chart:"):
            with box:
                predictions.prediction_section(result)
        terms("total_variation")

        if box := section_fold("capstone.gen", "capstone_gen"):
            with box:
                st.markdown(t("capstone.gen.body", eos=EOS))
                terms("temperature")
                generation.generation_section(result)
        if box := section_fold("capstone.attn", "capstone_attn"):
            with box:
                st.markdown(t("capstone.attn.body"))
                picked = maps.attention_section(result)
    elif result is not None:
        st.info(t("capstone.train.diverged_hint"))
    checks = {  # only for a run this learner asked for: another learner's cached one does not count
        "t1": mine and trained and config.n_heads == 1 and result.reached_target,
        "t2": mine and trained and tv < FAIL_TV,
        "t3": mine and result is not None and result.status == "diverged",
        "t4": mine and trained and picked,
    }
    try_this(LESSON, checks, target=num(LOSS_TARGET), tv=pct(FAIL_TV, 0))
