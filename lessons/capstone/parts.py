"""The capstone's own views: the model's controls and parameter table, live
training with a per-configuration cache, the next-token comparison with the
bigram and the corpus, generation, and the trained model's attention maps.

Training is expensive, so a slider move never trains: a configuration is
trained only when the learner presses the button, and its result is kept in a
process-wide cache (finished or diverged runs only). Streamlit stops a run by
raising an exception at the next Streamlit call, i.e. inside the training
callback, so an interrupted training never reaches the cache.
"""

from __future__ import annotations

import contextlib
import functools
import threading
import time
from collections import OrderedDict
from collections.abc import Sequence

import numpy as np
import pandas as pd
import streamlit as st

from lesson_core.attention import causal_mask
from lesson_core.bigram import compare_prefix, top_k, total_variation
from lesson_core.examples import CAT_WA, CORPUS, DOG_WA
from lesson_core.transformer import (
    BOS,
    EOS,
    LOSS_TARGET,
    MAX_TRAIN_WORK,
    Config,
    TrainResult,
    Vocab,
    attention_maps,
    generate,
    init_params,
    max_steps,
    next_token_distribution,
    parameter_count,
    train,
    training_work,
    with_bos,
)
from lesson_core.ui import bound, charts, gloss, md_escape, num, pct, t, t_count, views

DEFAULT = Config()
WIDTH = (8, 64, 8)  # d_model: min, max, step (multiples of 8: every one has 1, 2, 4 and 8 heads)
MAX_HEADS = 8  # more heads than this would not leave room to draw them
BLOCKS = (1, 2)
STEPS = (20, 600, 10)
LEARNING_RATES = (0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0)
SEEDS = (0, 999)
CAT, DOG = CAT_WA, DOG_WA
WA = "は"
GEN_SEED, GEN_SAMPLES, TEMPERATURE = 0, 3, (0.0, 2.0, 1.0, 0.1)
SHOW_MIN, SHOW_MAX = 0.02, 12  # bars: tokens some series gives >= 2 %, at most 12
REDRAW_SECONDS = 0.25  # how often the loss chart and the progress bar are redrawn while training
FEW_POINTS = 40  # loss curves shorter than this get a dot per step
HEADS_PER_ROW = 4
SMALL_MAP_TEXT = 0.1  # cells of the small maps below this weight stay blank
CACHE_SIZE = 48
RUNS = "gpt_train_runs"  # trainings this session actually ran (not cache hits)
HEADS_SEEN = "gpt_heads_seen"  # head counts of finished models this session has seen
VOCAB = Vocab.from_sentences(CORPUS)
MARKED = tuple((BOS, *s, EOS) for s in CORPUS)  # the sentences as the model reads them

# Every sentence start in the corpus, from one token up to the whole sentence
# (after which the only right answer is the end "</s>"), in order of first appearance.
PREFIXES: tuple[tuple[str, ...], ...] = tuple(
    dict.fromkeys(tuple(s[:k]) for s in CORPUS for k in range(1, len(s) + 1))
)


# --- controls and the parameter table -------------------------------------------------


def _snap(value: float, low: int, high: int, step: int) -> int:
    """The nearest allowed value (a link or a script may pass anything)."""
    return int(min(high, max(low, low + step * round((float(value) - low) / step))))


def head_options(d_model: int) -> list[int]:
    """The head counts that divide the width: each head gets d_model / h dimensions."""
    return [h for h in range(1, MAX_HEADS + 1) if d_model % h == 0]


def _nearest(options: Sequence[int], wanted: int) -> int:
    return min(options, key=lambda h: (abs(h - wanted), -h))


def config_controls() -> Config:
    """Width, heads (only divisors of the width), blocks, steps, learning rate and
    seed, all kept in the URL. Returns the chosen configuration."""
    low, high, step = WIDTH
    d = bound(
        st.slider,
        t("capstone.lab.width"),
        low,
        high,
        DEFAULT.d_model,
        step,
        help=t("capstone.lab.width_help"),
        key="gpt_width",
    )
    d = _snap(d, low, high, step)
    heads = head_options(d)
    fixed = st.session_state.get("gpt_heads", heads[0]) not in heads
    if fixed:  # the width changed and the old head count does not divide it
        st.session_state["gpt_heads"] = _nearest(heads, int(st.session_state["gpt_heads"]))
    h = bound(
        st.select_slider,
        t("capstone.lab.heads"),
        heads,
        value=None if fixed else _nearest(heads, DEFAULT.n_heads),
        help=t("capstone.lab.heads_help", max_heads=MAX_HEADS),
        key="gpt_heads",
    )
    st.caption(
        t_count(
            "capstone.lab.heads_note", d // h, d=d, h=h, d_head=d // h, options=", ".join(map(str, heads))
        )
    )
    blocks = bound(
        st.radio,
        t("capstone.lab.blocks"),
        BLOCKS,
        index=BLOCKS.index(DEFAULT.n_blocks),
        horizontal=True,
        help=t("capstone.lab.blocks_help"),
        key="gpt_blocks",
    )
    low, high, step = STEPS
    steps = bound(
        st.slider,
        t("capstone.lab.steps"),
        low,
        high,
        DEFAULT.steps,
        step,
        help=t("capstone.lab.steps_help"),
        key="gpt_steps",
    )
    rate = bound(
        st.select_slider,
        t("capstone.lab.rate"),
        LEARNING_RATES,
        value=DEFAULT.learning_rate,
        format_func=lr_text,
        help=t("capstone.lab.rate_help"),
        key="gpt_lr",
    )
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
    return Config(
        d_model=d,
        n_heads=int(h),
        n_blocks=int(blocks or DEFAULT.n_blocks),
        steps=_snap(steps, low, high, 1),
        learning_rate=float(rate),
        seed=_snap(seed if seed is not None else DEFAULT.seed, *SEEDS, 1),
    )


SEED_NOTICE = "gpt_seed_notice"


def _seed_in_range() -> None:
    """A typed seed outside SEEDS is put back in range, and the learner told."""
    typed = st.session_state.get("gpt_seed")
    if typed is None or not SEEDS[0] <= typed <= SEEDS[1]:
        st.session_state["gpt_seed"] = (
            DEFAULT.seed if typed is None else min(SEEDS[1], max(SEEDS[0], int(typed)))
        )
        st.session_state[SEED_NOTICE] = "—" if typed is None else str(typed)


def lr_text(rate: float) -> str:
    """0.0005 -> '0.0005', 1.0 -> '1' (also the URL value: language-independent)."""
    return f"{rate:g}"


def _shape_text(arrays: Sequence[np.ndarray]) -> str:
    """'4 × (32 × 32)' for four 32 × 32 matrices; parts with different shapes joined by '+'."""
    parts: list[tuple[tuple[int, ...], int]] = []
    for a in arrays:
        if parts and parts[-1][0] == a.shape:
            parts[-1] = (a.shape, parts[-1][1] + 1)
        else:
            parts.append((a.shape, 1))
    texts = []
    for shape, count in parts:
        dims = " × ".join(map(str, shape))
        texts.append(dims if count == 1 else f"{count} × ({dims})" if len(shape) > 1 else f"{count} × {dims}")
    return " + ".join(texts)


@functools.lru_cache(maxsize=32)
def parameter_groups(d_model: int, n_blocks: int) -> tuple[tuple[str, str, int, int], ...]:
    """(part, shape text, numbers in one block or once, how many times) for every
    group of parameters, read off freshly initialized weights of this size, then
    ("total", "", parameter_count, 1)."""
    params = init_params(
        Config(d_model=d_model, n_heads=1, n_blocks=n_blocks), len(VOCAB), np.random.default_rng(0)
    )
    groups = (
        ("embed", ("embed",), 1),
        ("ln", ("b0.ln1.", "b0.ln2."), n_blocks),
        ("attn", ("b0.attn.",), n_blocks),
        ("ffn", ("b0.ffn.",), n_blocks),
        ("final_ln", ("final_ln.",), 1),
        ("out", ("out.",), 1),
    )
    rows = []
    for part, starts, times in groups:
        arrays = [a for name, a in params.items() if name.startswith(starts)]
        rows.append((part, _shape_text(arrays), sum(a.size for a in arrays), times))
    return (*rows, ("total", "", parameter_count(params), 1))


def parameter_table(config: Config) -> int:
    """What the model is made of, with the number of parameters in each part and
    in all. Returns the total."""
    rows = parameter_groups(config.d_model, config.n_blocks)
    positions = ("positions", f"n × {config.d_model}", 0, 1)
    rows = (rows[0], positions, *rows[1:])
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
    return rows[-1][2]


def _count_text(size: int, times: int) -> str:
    return f"{size * times:,}" if times == 1 else f"{times} × {size:,} = {size * times:,}"


# --- training with a cache --------------------------------------------------------------

_CACHE: OrderedDict[Config, TrainResult] = OrderedDict()
_LOCK = threading.Lock()


def cached(config: Config) -> TrainResult | None:
    """The finished (or diverged) result of this exact configuration, if any."""
    with _LOCK:
        result = _CACHE.get(config)
        if result is not None:
            _CACHE.move_to_end(config)
    return result


def remember(result: TrainResult) -> None:
    """Keep a result that ran to its end (all steps, or a blow-up); never a stopped one."""
    if result.status not in ("finished", "diverged"):
        return
    with _LOCK:
        _CACHE[result.config] = result
        _CACHE.move_to_end(result.config)
        while len(_CACHE) > CACHE_SIZE:
            _CACHE.popitem(last=False)


def clear_cache() -> None:
    with _LOCK:
        _CACHE.clear()


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


def _train_live(config: Config) -> TrainResult:
    """Train with a progress bar and a loss chart, redrawn every REDRAW_SECONDS
    (each redraw is also where Streamlit may stop the run)."""
    bar = st.progress(0.0, text=t("capstone.train.starting"))
    chart = st.empty()
    with chart:
        loss_chart(np.zeros(0), config.steps)
    losses: list[float] = []
    last = [time.perf_counter()]

    def show(step: int, loss: float) -> None:
        time.sleep(0)  # let other learners' reruns have the interpreter between steps
        losses.append(loss)
        now = time.perf_counter()
        if now - last[0] >= REDRAW_SECONDS or step == config.steps:
            last[0] = now
            text = t("capstone.train.progress", step=step, steps=config.steps, loss=num(loss, 3))
            bar.progress(step / config.steps, text=text)
            with chart:
                loss_chart(np.array(losses), config.steps)

    with training_slot(bar):
        result = train(CORPUS, config, show)
    bar.empty()
    with chart:
        loss_chart(result.losses, config.steps)
    return result


# One training at a time per server process: the others wait their turn (and are
# told so), so that a class pressing "Train" together cannot starve every other
# learner's slider moves of the two cores.
TRAINING_SLOTS = threading.BoundedSemaphore(1)
WAIT_POLL_SECONDS = 0.2
_waiting = [0]  # learners waiting for the slot (for the message)


@contextlib.contextmanager
def training_slot(bar):
    """Hold the training slot; while another session trains, say so and wait
    (each redraw is also where Streamlit may stop a run the learner left)."""
    if not TRAINING_SLOTS.acquire(blocking=False):
        with _LOCK:
            _waiting[0] += 1
        try:
            while not TRAINING_SLOTS.acquire(timeout=WAIT_POLL_SECONDS):
                bar.progress(0.0, text=t("capstone.train.waiting", n=_waiting[0]))
        finally:
            with _LOCK:
                _waiting[0] -= 1
    try:
        yield
    finally:
        TRAINING_SLOTS.release()


def over_budget(config: Config) -> bool:
    """Too much work for one training: say how many steps this size allows."""
    if training_work(config) <= MAX_TRAIN_WORK:
        return False
    allowed = max_steps(config.d_model, config.n_blocks)
    st.warning(
        t(
            "capstone.train.over_budget",
            steps=config.steps,
            d=config.d_model,
            blocks=config.n_blocks,
            max_steps=allowed - allowed % STEPS[2],
        )
    )
    return True


def training(config: Config, pressed: bool) -> TrainResult | None:
    """The result for ``config``: from the cache when it was trained before, from a
    live training run when the button was pressed, else None (nothing trained yet,
    or more work than one training may do)."""
    if over_budget(config):
        return None
    result = cached(config)
    if result is None and not pressed:
        st.info(t("capstone.train.not_yet"))
        return None
    if result is None:
        result = _train_live(config)
        remember(result)
        st.session_state[RUNS] = st.session_state.get(RUNS, 0) + 1
    else:
        loss_chart(result.losses, config.steps)
        st.caption(t("capstone.train.cached", seconds=num(result.seconds, 1)))
    _status(result)
    if result.status == "finished":
        st.session_state.setdefault(HEADS_SEEN, set()).add(config.n_heads)
    return result


def _status(result: TrainResult) -> None:
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
        st.warning(
            t("capstone.train.short", steps=result.step, first=first, last=last, target=num(LOSS_TARGET))
        )


def heads_seen() -> set[int]:
    """Head counts of the finished models shown in this session."""
    return set(st.session_state.get(HEADS_SEEN, set()))


# --- predictions -------------------------------------------------------------------------


def distributions(result: TrainResult, prefix: Sequence[str]) -> dict[str, np.ndarray]:
    """After "<s>" + prefix, over the model's vocabulary: the model's next-token
    distribution, the bigram's (from the prefix's last token only) and the corpus's
    own (from the whole prefix as a sentence start).

    Shapes: prefix [m] -> three arrays [V]
    """
    model = next_token_distribution(result.params, result.config, result.vocab, prefix)
    comp = compare_prefix(MARKED, (BOS, *prefix))
    order = [comp.vocab.index(tok) for tok in result.vocab.tokens]
    return {"model": model, "bigram": comp.bigram[order], "corpus": comp.corpus[order]}


def cat_dog_tv(result: TrainResult) -> float:
    """How far apart the model's predictions after ねこ は and after いぬ は are."""
    cat, dog = (next_token_distribution(result.params, result.config, result.vocab, p) for p in (CAT, DOG))
    return total_variation(cat, dog)


def prefix_text(prefix: Sequence[str]) -> str:
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
    return pct(p, 0) if p >= 0.005 else ""


def shown_tokens(series: Sequence[np.ndarray]) -> np.ndarray:
    """The tokens worth a bar: some series gives them >= SHOW_MIN; at most SHOW_MAX
    (the largest), in vocabulary order.

    Shapes: series of [V] -> [k]
    """
    top = np.max(np.stack(series), axis=0)
    keep = top_k(np.where(top >= SHOW_MIN, top, 0.0), SHOW_MAX)
    return np.sort(keep)


def top_text(p: np.ndarray, k: int = 4) -> str:
    """'ひるね 25.0%, さかな 24.9%, …': the k likeliest tokens, glossed and escaped."""
    best = top_k(p, k)
    if len(best) == 0:
        return t("capstone.predict.nothing")
    return t("capstone.predict.sep").join(f"{md_escape(gloss(VOCAB.tokens[i]))} {pct(p[i])}" for i in best)


def prediction_column(result: TrainResult, side: str, default: tuple[str, ...]) -> dict[str, np.ndarray]:
    """A prefix picker and, for that prefix, the model's, the bigram's and the
    corpus's next-token distributions as grouped bars, with the top tokens in text."""
    prefix = token_select(t(f"capstone.predict.pick_{side}"), PREFIXES, default, f"gpt_prefix_{side}")
    dist = distributions(result, prefix)
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
    return dist | {"prefix": prefix}


def prediction_section(result: TrainResult) -> None:
    """Two prefixes side by side (ねこ は and いぬ は by default), and how far apart
    their predictions are for the model, the bigram and the corpus."""
    left, right = st.columns(2, gap="large")
    with left:
        a = prediction_column(result, "a", CAT)
    with right:
        b = prediction_column(result, "b", DOG)
    st.markdown(
        t(
            "capstone.predict.tv",
            a=md_escape(prefix_text(a["prefix"])),
            b=md_escape(prefix_text(b["prefix"])),
            model_tv=pct(total_variation(a["model"], b["model"])),
            bigram_tv=pct(total_variation(a["bigram"], b["bigram"])),
            corpus_tv=pct(total_variation(a["corpus"], b["corpus"])),
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


def look_back(maps: np.ndarray, tokens: Sequence[str]) -> dict[str, float | int | str] | None:
    """Where は's position attends to the token before it (the subject) most:
    the largest weight over every block and head, where it is, and the weight an
    even spread over the positions は can see would give. None without a は.

    Shapes: maps [blocks, h, n, n] with n = len(tokens) + 1 -> scalars
    """
    labels = with_bos(tokens)
    if WA not in labels[2:]:
        return None
    wa = labels.index(WA, 2)
    weights = maps[:, :, wa, wa - 1]
    block, head = np.unravel_index(int(np.argmax(weights)), weights.shape)
    return {
        "subject": labels[wa - 1],
        "weight": float(weights[block, head]),
        "block": int(block) + 1,
        "head": int(head) + 1,
        "even": 1.0 / (wa + 1),
    }


def small_map(labels: Sequence[str], weights: np.ndarray, alt_text: str) -> None:
    """One head's weights; rows = queries, columns = keys, grey = masked, the weight
    in percent written in every cell of at least SMALL_MAP_TEXT.

    Shapes: weights [n, n]"""
    n = len(labels)
    blocked = ~causal_mask(n)
    texts = np.where(blocked | (weights < SMALL_MAP_TEXT), "", np.char.mod("%.0f", 100 * weights))
    frame = charts.heatmap_frame(labels, labels, weights, texts, masked=blocked)
    titles = charts.MapTitles(t("ui.col.key_token"), t("ui.col.query"), t("ui.col.weight"))
    spec = charts.small_heatmap_spec(titles, n)
    charts.show(frame, spec, alt_text)


def attention_section(result: TrainResult) -> None:
    """Pick a corpus sentence; every block's heads as small heatmaps (causal mask
    grey), and the number that says whether は looks back at the token before it."""
    sentence = token_select(t("capstone.attn.sentence"), CORPUS, CORPUS[0], "gpt_sentence")
    maps = attention_maps(result.params, result.config, result.vocab, sentence)
    found = look_back(maps, sentence)
    if found is None:
        st.info(t("capstone.attn.no_wa", wa=WA))
    else:
        st.markdown(
            t(
                "capstone.attn.look_back",
                wa=WA,
                subject=md_escape(gloss(str(found["subject"]))),
                weight=pct(found["weight"]),
                block=found["block"],
                head=found["head"],
                even=pct(found["even"]),
            )
        )
    labels = views.distinct_labels(with_bos(sentence))
    glossed = " ".join(gloss(tok) for tok in sentence)
    st.caption(t("capstone.attn.how_to_read", sentence=md_escape(glossed), min=pct(SMALL_MAP_TEXT, 0)))
    heads = result.config.n_heads
    for block in range(result.config.n_blocks):
        st.markdown(f"**{t('capstone.attn.block', block=block + 1, blocks=result.config.n_blocks)}**")
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
