"""The capstone's own views: the model's controls and parameter table, the loss
chart and how training went, the next-token comparison with the bigram and the
corpus, generation, and the trained model's attention maps.

The numbers come from ``lesson_core.capstone`` (the configuration rules, the
parameter groups, the predictions, where は looks); training itself, its
cache and its one-at-a-time slot are in ``lessons.capstone.training``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import pandas as pd
import streamlit as st

from course_app import bound, charts, gloss, md_escape, num, pct, ranking, t, t_count, t_list, views
from lesson_core.attention import causal_mask
from lesson_core.capstone import (
    BLOCKS,
    LEARNING_RATES,
    MAX_HEADS,
    SEEDS,
    SHOW_MAX,
    SHOW_MIN,
    STEPS,
    WA,
    WIDTH,
    LookBack,
    NextTokens,
    apart,
    distributions,
    head_options,
    look_back,
    nearest_heads,
    parameter_groups,
    rate_advice,
    reference_losses,
    shown_tokens,
    snap,
    step_budget,
)
from lesson_core.examples import CAT_WA, CORPUS, DOG_WA
from lesson_core.ranking import top_k_whole
from lesson_core.rounding import fixed_array, half_up
from lesson_core.transformer import (
    EOS,
    LOSS_TARGET,
    Config,
    TrainResult,
    Vocab,
    attention_maps,
    generate,
    with_bos,
)

DEFAULT = Config()
CAT, DOG = CAT_WA, DOG_WA
GEN_SEED, GEN_SAMPLES, TEMPERATURE = 0, 3, (0.0, 2.0, 1.0, 0.1)
FEW_POINTS = 40  # loss curves shorter than this get a dot per step
HEADS_PER_ROW = 4
SMALL_MAP_TEXT = 0.1  # cells of the small maps below this weight stay blank
VOCAB = Vocab.from_sentences(CORPUS)

# Every sentence start in the corpus, from one token up to the whole sentence
# (after which the only right answer is the end "</s>"), in order of first appearance.
PREFIXES: tuple[tuple[str, ...], ...] = tuple(
    dict.fromkeys(tuple(s[:k]) for s in CORPUS for k in range(1, len(s) + 1))
)


# --- controls and the parameter table -------------------------------------------------


SEED_NOTICE = "gpt_seed_notice"


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
    fixed = st.session_state.get("gpt_heads", heads[0]) not in heads
    if fixed:  # the width changed and the old head count does not divide it
        st.session_state["gpt_heads"] = nearest_heads(heads, int(st.session_state["gpt_heads"]))
    h = bound(
        st.select_slider,
        t("capstone.lab.heads"),
        heads,
        value=None if fixed else nearest_heads(heads, DEFAULT.n_heads),
        help=t("capstone.lab.heads_help", max_heads=MAX_HEADS),
        key="gpt_heads",
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
        key="gpt_seed",
        limits=SEEDS,
        on_change=_seed_in_range,
    )
    if notice := st.session_state.pop(SEED_NOTICE, None):
        st.warning(t("capstone.lab.seed_range", typed=notice, low=SEEDS[0], high=SEEDS[1]))
    return seed if seed is None or math.isfinite(seed) else None


def _seed_in_range() -> None:
    """A typed seed outside SEEDS is put back in range, and the learner told."""
    typed = st.session_state.get("gpt_seed")
    if typed is not None and not math.isfinite(typed):  # NaN or infinity, sent over the websocket
        typed = None
    if typed is None or not SEEDS[0] <= typed <= SEEDS[1]:
        st.session_state["gpt_seed"] = (
            DEFAULT.seed if typed is None else min(SEEDS[1], max(SEEDS[0], int(typed)))
        )
        st.session_state[SEED_NOTICE] = "—" if typed is None else str(typed)


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
    frame = pd.DataFrame(
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


# --- training: the loss chart and how it went ----------------------------------------


def loss_chart(losses: np.ndarray, steps: int) -> None:
    """The loss at every step so far, and the target as a flat second line."""
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
    charts.show(
        frame, spec, t_count("capstone.chart.alt", len(losses), steps=len(losses), target=num(LOSS_TARGET))
    )


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


# --- predictions -------------------------------------------------------------------------


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
    printed, so that a TV shown as 50.0% never reads as "below 50.0%"). Not
    kept in the URL: a question, not a setting."""
    guess = st.radio(
        t("capstone.predict.ask.question"),
        range(2),  # 0: tells them apart, 1: does not
        index=None,
        format_func=t_list("capstone.predict.ask.options").__getitem__,
        key="gpt_predict_apart",
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


# --- generation ---------------------------------------------------------------------------


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


# --- attention maps -----------------------------------------------------------------------


def small_map(labels: Sequence[str], weights: np.ndarray, alt_text: str) -> None:
    """One head's weights; rows = queries, columns = keys, grey = masked, the weight
    in percent written in every cell of at least SMALL_MAP_TEXT.

    Shapes: weights [n, n]"""
    n = len(labels)
    blocked = ~causal_mask(n)
    texts = np.where(blocked | (weights < SMALL_MAP_TEXT), "", fixed_array(weights, 0, scale=100))
    frame = charts.heatmap_frame(labels, labels, weights, texts, masked=blocked)
    titles = charts.MapTitles(t("ui.col.key_token"), t("ui.col.query"), t("ui.col.weight"))
    spec = charts.small_heatmap_spec(titles, n)
    charts.show(frame, spec, alt_text)


def attention_section(result: TrainResult) -> None:
    """Pick a corpus sentence; every block's heads as small heatmaps (causal mask
    grey), and the number that says whether は looks back at the token before it."""
    sentence = token_select(t("capstone.attn.sentence"), CORPUS, CORPUS[0], "gpt_sentence")
    maps = attention_maps(result.params, result.config, result.vocab, sentence)
    look_back_text(look_back(maps, sentence))
    labels = views.distinct_labels(with_bos(sentence))
    glossed = " ".join(gloss(tok) for tok in sentence)
    st.caption(t("capstone.attn.how_to_read", sentence=md_escape(glossed), min=pct(SMALL_MAP_TEXT, 0)))
    head_grid(result.config, labels, maps, sentence)


def look_back_text(found: LookBack | None) -> None:
    """How strongly は looks at the token before it, against an even spread, in
    the head that looks hardest, or in every head that ties for it; or that the
    sentence has no は to look from."""
    if found is None:
        st.info(t("capstone.attn.no_wa", wa=WA))
        return
    places = found.places or ((found.block, found.head),)
    where = [t("capstone.attn.place", block=block, head=head) for block, head in places]
    st.markdown(
        t(
            f"capstone.attn.look_back.{'one' if len(places) == 1 else 'tie'}",
            wa=WA,
            subject=md_escape(gloss(found.subject)),
            weight=pct(found.weight),
            places=ranking.joined(where),
            n_tied=len(places),
            even=pct(found.even),
        )
    )


def head_grid(config: Config, labels: Sequence[str], maps: np.ndarray, sentence: Sequence[str]) -> None:
    """Every block under its own title, its heads HEADS_PER_ROW to a row.

    Shapes: maps [n_blocks, h, n, n], labels [n]"""
    heads = config.n_heads
    for block in range(config.n_blocks):
        st.markdown(f"**{t('capstone.attn.block', block=block + 1, blocks=config.n_blocks)}**")
        for first in range(0, heads, HEADS_PER_ROW):
            columns = st.columns(HEADS_PER_ROW)
            for head in range(first, min(first + HEADS_PER_ROW, heads)):
                with columns[head - first]:
                    st.caption(t("capstone.attn.head", head=head + 1, block=block + 1))
                    small_map(
                        labels,
                        maps[block, head],
                        t(
                            "capstone.attn.alt",
                            block=block + 1,
                            head=head + 1,
                            sentence=prefix_text(sentence),
                        ),
                    )
