"""The views of the lesson on today's LLMs: generation with a KV cache on the
mini GPT, the cache's size, RoPE's scores, shared key/value heads, and long
context (measured time, block-by-block attention).

The mini GPT is trained once per server process with the default settings
(``st.cache_resource``); every number shown comes from ``lesson_core``.
"""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import streamlit as st

from course_app import bound, charts, fold, gloss, md_escape, num, pct, shown_choice, t, t_count, views
from lesson_core import causal_mask
from lesson_core import scaled_dot_product_attention as attention
from lesson_core.examples import CORPUS, PRONOUN, PRONOUN_QUERY
from lesson_core.kv_cache import (
    FLOAT64,
    GPT2_SMALL,
    HALF_PRECISION,
    REAL_MODELS,
    Generation,
    GroupedResult,
    ModelShape,
    generate_cached,
    grouped_query_attention,
    kv_cache_bytes,
    model_cache_bytes,
    operation_counts,
)
from lesson_core.long_context import (
    BlockTrace,
    Timing,
    blockwise_attention,
    score_matrix_bytes,
    time_attention,
)
from lesson_core.multihead import divisors, random_projections
from lesson_core.rope import RopeScore, frequencies, rope_score, score_by_offset
from lesson_core.rounding import fixed
from lesson_core.transformer import EOS, FFN_MULT, Config, TrainResult, forward, train

PROMPTS = (("ねこ", "は"), ("いぬ", "は"), ("ねこ",), ("いぬ",))
CACHE_LENGTHS = (1, 4096)  # the cache-size slider's range (tokens)
GPT2_SMALL_CONTEXT = GPT2_SMALL.context  # 1,024 tokens, the slider's start
GQA_TOKENS = (128, 256, 512, 1024, 2048, 4096, 8192, 32768)
DEMO_HEADS, DEMO_SEED, DEMO_D = 4, 8, 8
TIMED_SIZES = (64, 128, 256, 512, 1024, 2048)
TIMING_REPEATS, TIMING_D = 3, 64


# --- 1. the KV cache --------------------------------------------------------------


@st.cache_resource(show_spinner=False)
def trained_model() -> TrainResult:
    """The capstone's mini GPT with the default settings, trained once per process."""
    return train(CORPUS, Config())


@st.cache_data(show_spinner=False, max_entries=len(PROMPTS))
def generation(prompt: tuple[str, ...]) -> Generation:
    """The trained mini GPT continuing ``prompt`` with a KV cache, once per prompt."""
    model = trained_model()
    return generate_cached(model.params, model.config, model.vocab, prompt)


def _clamp(key: str, low: int, high: int) -> None:
    """Keep a bound slider's stored value inside a range that just changed."""
    value = st.session_state.get(key)
    if value is not None and not low <= int(value) <= high:
        st.session_state[key] = min(high, max(low, int(value)))


def cache_controls() -> tuple[Generation, int]:
    """The prompt and the step slider; returns the cached generation and the step."""
    gen = generation(prompt_select())
    return gen, step_slider(gen)


def prompt_select() -> tuple[str, ...]:
    """The start of the text, shown (and kept in the URL) as the tokens joined by
    spaces, so that a shared link reads the same in both languages."""
    texts = [" ".join(p) for p in PROMPTS]
    shown = [" ".join(gloss(tok) for tok in p) for p in PROMPTS]  # glossed in English
    label = t("todays_llms.cache.prompt")
    chosen = shown_choice(st.selectbox, label, texts, texts, shown, 0, key="llm_prompt")
    return PROMPTS[texts.index(chosen)] if chosen in texts else PROMPTS[0]


def step_slider(gen: Generation) -> int:
    """How many tokens have been read (the prompt's own tokens up to the last one)."""
    last = len(gen.run.token_ids)
    _clamp("llm_step", 1, last)
    return bound(
        st.slider,
        t("todays_llms.cache.step"),
        1,
        last,
        gen.prompt_length,
        help=t("todays_llms.cache.step_help"),
        key="llm_step",
    )


def step_section(gen: Generation, step: int) -> tuple[int, int]:
    """The text so far, this step's attention row, the cost with and without the
    cache, and the check against a full recomputation. Returns (without, with)
    totals over the steps so far."""
    model = trained_model()
    tokens = gen.tokens[:step]
    nxt = gen.tokens[step]
    shown = t("todays_llms.cache.stop") if nxt == EOS else gloss(nxt)
    given = step < gen.prompt_length  # the next token is still the learner's own start
    st.markdown(
        t(
            "todays_llms.cache.sofar_prompt" if given else "todays_llms.cache.sofar",
            text=md_escape(" ".join(gloss(tok) for tok in tokens)),
            new=md_escape(gloss(tokens[-1])),
            next=md_escape(shown),
        )
    )
    weights = gen.run.weights[:step, 0, 0, :step]
    views.weights_map(
        list(tokens), weights, causal_mask(step), t_count("todays_llms.cache.alt", step, n=step)
    )
    st.caption(t("todays_llms.cache.map_caption", token=md_escape(gloss(tokens[-1]))))
    ops = operation_counts(step, model.config.d_model, model.config.n_blocks)
    st.markdown(
        t_count(
            "todays_llms.cache.this_step",
            step,
            n=step,
            without=f"{ops.without_cache[-1]:,}",
            with_cache=f"{ops.with_cache[-1]:,}",
            total_without=f"{ops.total_without:,}",
            total_with=f"{ops.total_with:,}",
        )
    )
    full, _ = forward(model.params, gen.run.token_ids[:step], model.config)
    diff = float(np.abs(full[-1] - gen.run.logits[step - 1]).max())
    st.markdown(t("todays_llms.cache.same", diff=f"{diff:.1e}"))
    return ops.total_without, ops.total_with


def ops_chart(gen: Generation) -> None:
    """Operations per generated token with and without the cache, up to the text's length."""
    model = trained_model()
    n = len(gen.run.token_ids)
    ops = operation_counts(n, model.config.d_model, model.config.n_blocks)
    spec = charts.count_line_spec(
        t("todays_llms.cache.chart_x"),
        t("todays_llms.cache.chart_y"),
        t("todays_llms.cache.series"),
        height=240,
    )
    frame = charts.line_frame(
        ops.tokens,
        {
            t("todays_llms.cache.series_without"): ops.without_cache,
            t("todays_llms.cache.series_with"): ops.with_cache,
        },
    )
    charts.show(frame, spec, t("todays_llms.cache.chart_alt", n=n))
    if box := fold(t("todays_llms.cache.ops_expander"), "todays_llms_cache_ops"):
        with box:
            st.markdown(
                t(
                    "todays_llms.cache.ops_help",
                    factor=4 + 2 * FFN_MULT,
                    ffn=FFN_MULT,
                    d=model.config.d_model,
                    blocks=model.config.n_blocks,
                )
            )


def megabytes(n_bytes: float) -> str:
    """Bytes as MB (10⁶ bytes) with a sensible number of digits."""
    mb = n_bytes / 1e6
    digits = 3 if mb < 0.1 else 2 if mb < 10 else 1
    return f"{fixed(mb, digits, grouped=True)} MB"


def cache_size_section() -> None:
    """The cache's size for a length of the learner's choice: the course's mini GPT and GPT-2 small."""
    st.markdown(t("todays_llms.cache.size_body"))
    st.latex(r"2 \times L \times g \times d_{head} \times n \times b")
    low, high = CACHE_LENGTHS
    tokens = bound(
        st.slider,
        t("todays_llms.cache.length"),
        low,
        high,
        GPT2_SMALL_CONTEXT,
        help=t("todays_llms.cache.length_help"),
        key="llm_len",
    )
    config = trained_model().config
    course = kv_cache_bytes(config.n_blocks, config.n_heads, config.d_head, tokens, FLOAT64)
    gpt = model_cache_bytes(GPT2_SMALL, tokens, bytes_per_number=HALF_PRECISION)
    st.markdown(
        t_count(
            "todays_llms.cache.size_result",
            tokens,
            tokens=f"{tokens:,}",
            layers=config.n_blocks,
            heads=config.n_heads,
            d_head=config.d_head,
            bytes=FLOAT64,
            course=megabytes(course),
            gpt_layers=GPT2_SMALL.layers,
            gpt_heads=GPT2_SMALL.kv_heads,
            gpt_d_head=GPT2_SMALL.d_head,
            gpt_bytes=HALF_PRECISION,
            gpt=megabytes(gpt),
        )
    )
    if tokens > GPT2_SMALL.context:
        st.caption(t("todays_llms.gqa.context", model=GPT2_SMALL.name, context=f"{GPT2_SMALL.context:,}"))


# --- 2. RoPE ----------------------------------------------------------------------

ROPE_POSITIONS = (0, 31)
ROPE_SEEN = "llm_rope_seen"  # the (m, n) pairs this session has looked at


def rope_section(q: np.ndarray, k: np.ndarray) -> bool:
    """Two position sliders, the score, the score as a function of m − n, and the
    angles of each pair. Returns True when the learner has now seen two
    different pairs with the same m − n."""
    m, n = rope_positions()
    res = rope_score(q, k, m, n)
    st.markdown(t("todays_llms.rope.result", m=m, n=n, offset=f"{res.offset:+d}", score=num(res.score, 3)))
    rope_chart(q, k, res)
    st.markdown(t("todays_llms.rope.why"))
    if box := fold(t("todays_llms.rope.angles_expander"), "todays_llms_rope_angles"):
        with box:
            rope_angles(res, len(q))
    return seen_same_offset(res.offset, m, n)


def rope_positions() -> tuple[int, int]:
    """The query's position m and the key's position n, side by side."""
    low, high = ROPE_POSITIONS
    left, right = st.columns(2)
    with left:
        m = bound(
            st.slider, t("todays_llms.rope.m"), low, high, 5, help=t("todays_llms.rope.pos_help"), key="llm_m"
        )
    with right:
        n = bound(
            st.slider, t("todays_llms.rope.n"), low, high, 2, help=t("todays_llms.rope.pos_help"), key="llm_n"
        )
    return m, n


def rope_chart(q: np.ndarray, k: np.ndarray, res: RopeScore) -> None:
    """The score for every offset m − n in the sliders' range, the learner's own marked."""
    low, high = ROPE_POSITIONS
    offsets = np.arange(low - high, high - low + 1)
    spec = charts.line_spec(
        t("todays_llms.rope.chart_x"), t("todays_llms.rope.chart_y"), t("todays_llms.rope.series"), height=240
    )
    frame = charts.line_frame(
        offsets,
        {t("todays_llms.rope.series_all"): score_by_offset(q, k, offsets)},
        (t("todays_llms.rope.series_you"), res.offset, res.score),
    )
    charts.show(frame, spec, t("todays_llms.rope.alt"))


def rope_angles(res: RopeScore, d: int) -> None:
    """Each pair's rate and its angles in q and k: the difference depends on m − n only."""
    theta = frequencies(d)
    st.dataframe(
        pd.DataFrame(
            {
                t("todays_llms.rope.col_pair"): np.arange(len(theta)),
                t("todays_llms.rope.col_rate"): [f"{x:.4g}" for x in theta],
                t("todays_llms.rope.col_q"): [num(a, 3) for a in res.angles_q],
                t("todays_llms.rope.col_k"): [num(a, 3) for a in res.angles_k],
                t("todays_llms.rope.col_diff"): [num(a, 3) for a in res.angles_q - res.angles_k],
            }
        ),
        hide_index=True,
    )
    st.caption(t("todays_llms.rope.angles_note", q_len=num(np.linalg.norm(res.q_rot), 3)))


def seen_same_offset(offset: int, m: int, n: int) -> bool:
    """Remember (m, n) for this session; True once two different pairs share ``offset``."""
    seen: dict[int, set[tuple[int, int]]] = st.session_state.setdefault(ROPE_SEEN, {})
    pairs = seen.setdefault(offset, set())
    pairs.add((m, n))
    return len(pairs) >= 2


# --- 3. shared key/value heads ------------------------------------------------------


def gqa_controls() -> tuple[ModelShape, int, int]:
    """The model, its number of key/value heads and the text's length in tokens."""
    model = model_select()
    return model, kv_select(model), gqa_tokens()


def model_select() -> ModelShape:
    """One of the published models, by name (the same in both languages)."""
    names = [m.name for m in REAL_MODELS]  # the same in both languages, so a shared link reads the same
    choice = bound(st.selectbox, t("todays_llms.gqa.model"), names, index=0, key="llm_model")
    return REAL_MODELS[names.index(choice)] if choice in names else REAL_MODELS[0]


def kv_select(model: ModelShape) -> int:
    """How many key/value heads, among the divisors of the model's query heads
    (back to the model's own count when a new model makes the old one impossible)."""
    options = divisors(model.q_heads)
    fixed = st.session_state.get("llm_kv") not in (None, *options)
    if fixed:  # the model changed and the old count does not divide its query heads
        st.session_state["llm_kv"] = model.kv_heads
    return bound(
        st.select_slider,
        t("todays_llms.gqa.kv"),
        options,
        value=None if fixed else model.kv_heads,
        help=t("todays_llms.gqa.kv_help"),
        key="llm_kv",
    )


def gqa_tokens() -> int:
    """The text's length in tokens for the cache size."""
    tokens = bound(
        st.select_slider, t("todays_llms.gqa.tokens"), GQA_TOKENS, value=GPT2_SMALL_CONTEXT, key="llm_tokens"
    )
    return tokens if tokens in GQA_TOKENS else GPT2_SMALL_CONTEXT


def gqa_section(model: ModelShape, kv: int, tokens: int) -> int:
    """The cache for the chosen key/value heads against the published and the
    plain multi-head one, and a bar per allowed count. Returns the size in bytes."""
    size = model_cache_bytes(model, tokens, kv, HALF_PRECISION)
    st.markdown(
        t_count(
            "todays_llms.gqa.result",
            kv,
            model=model.name,
            layers=model.layers,
            q_heads=model.q_heads,
            d_head=model.d_head,
            kv=kv,
            group=model.q_heads // kv,
            tokens=f"{tokens:,}",
            bytes=HALF_PRECISION,
            size=megabytes(size),
            own=model.kv_heads,
            own_size=megabytes(model_cache_bytes(model, tokens, None, HALF_PRECISION)),
            full_size=megabytes(model_cache_bytes(model, tokens, model.q_heads, HALF_PRECISION)),
        )
    )
    if model.context is not None and tokens > model.context:
        st.caption(t("todays_llms.gqa.context", model=model.name, context=f"{model.context:,}"))
    if model.window is not None:
        st.caption(t("todays_llms.gqa.window", model=model.name, window=f"{model.window:,}"))
    options = divisors(model.q_heads)
    sizes = np.array([model_cache_bytes(model, tokens, g, HALF_PRECISION) for g in options]) / 1e6
    spec = charts.bar_spec(
        t("todays_llms.gqa.chart_x"), t("todays_llms.gqa.chart_y"), height=220, percent=False
    )
    frame = charts.bar_frame(
        [str(g) for g in options],
        sizes,
        [fixed(s, 0, grouped=True) if s >= 10 else fixed(s, 1) for s in sizes],
        highlight=options.index(kv),
    )
    charts.show(frame, spec, t("todays_llms.gqa.chart_alt"))
    return size


def group_demo() -> None:
    """Example C with DEMO_HEADS query heads and 1, 2 or 4 key/value heads: the
    weights of それ in every query head, side by side."""
    st.markdown(
        t(
            "todays_llms.gqa.demo_body",
            q_heads=DEMO_HEADS,
            seed=DEMO_SEED,
            it=gloss(PRONOUN.tokens[PRONOUN_QUERY]),
        )
    )
    g = group_select()
    res = grouped_demo_heads(g)
    row = res.weights[:, PRONOUN_QUERY, : PRONOUN_QUERY + 1]
    group_chart(res, row)
    if g == DEMO_HEADS:
        st.caption(t("todays_llms.gqa.demo_single"))
        return
    gap = max(
        float(np.abs(row[a] - row[b]).max())
        for a in range(DEMO_HEADS)
        for b in range(DEMO_HEADS)
        if a < b and res.group[a] == res.group[b]
    )
    st.caption(t("todays_llms.gqa.demo_result", gap=pct(gap)))


def group_select() -> int:
    """How many key/value heads the DEMO_HEADS query heads share (a divisor of DEMO_HEADS)."""
    g = bound(
        st.radio,
        t("todays_llms.gqa.group_kv"),
        divisors(DEMO_HEADS),
        index=1,
        horizontal=True,
        key="llm_group",
    )
    return int(g) if g in divisors(DEMO_HEADS) else 2


def grouped_demo_heads(g: int) -> GroupedResult:
    """Example C through DEMO_HEADS query heads sharing ``g`` key/value heads
    (fixed random projections, DEMO_D wide each), with the causal mask."""
    x = PRONOUN.vectors
    n, d_in = x.shape
    w = random_projections(d_in, DEMO_HEADS * DEMO_D, np.random.default_rng(DEMO_SEED), count=3)
    q = (x @ w[0]).reshape(n, DEMO_HEADS, DEMO_D).transpose(1, 0, 2)
    k = (x @ w[1][:, : g * DEMO_D]).reshape(n, g, DEMO_D).transpose(1, 0, 2)
    v = (x @ w[2][:, : g * DEMO_D]).reshape(n, g, DEMO_D).transpose(1, 0, 2)
    return grouped_query_attention(q, k, v, mask=causal_mask(n))


def group_chart(res: GroupedResult, row: np.ndarray) -> None:
    """それ's weights (``row``: one row per query head) as grouped bars, each head named with its group."""
    labels = views.glossed_labels(PRONOUN.tokens[: PRONOUN_QUERY + 1])
    series = {
        t("todays_llms.gqa.head_name", head=h + 1, group=int(res.group[h]) + 1): row[h]
        for h in range(DEMO_HEADS)
    }
    spec = charts.grouped_bar_spec(
        t("todays_llms.gqa.demo_x"),
        t("todays_llms.gqa.demo_y"),
        t("todays_llms.gqa.demo_series"),
        values=False,
    )
    charts.show(
        charts.grouped_bar_frame(labels, series, pct),
        spec,
        t("todays_llms.gqa.demo_alt", it=gloss(PRONOUN.tokens[PRONOUN_QUERY])),
    )


# --- 4. long context --------------------------------------------------------------


@st.cache_resource(show_spinner=False, max_entries=len(TIMED_SIZES))
def measured(n: int) -> Timing:
    """The measured time of plain attention up to n tokens, once per process."""
    sizes = [s for s in TIMED_SIZES if s <= n]
    return time_attention(sizes, TIMING_D, np.random.default_rng(0), repeats=TIMING_REPEATS)


def long_section() -> None:
    """The text's length, the size of every score matrix at that length, and
    the measured time of one head up to it."""
    n = bound(
        st.select_slider,
        t("todays_llms.long.n"),
        TIMED_SIZES,
        value=512,
        help=t("todays_llms.long.n_help"),
        key="llm_long_n",
    )
    n = n if n in TIMED_SIZES else 512
    st.markdown(
        t(
            "todays_llms.long.result",
            n=f"{n:,}",
            cells=f"{n * n:,}",
            layers=GPT2_SMALL.layers,
            heads=GPT2_SMALL.q_heads,
            bytes=HALF_PRECISION,
            all_size=megabytes(score_matrix_bytes(n, GPT2_SMALL.q_heads, GPT2_SMALL.layers, HALF_PRECISION)),
        )
    )
    growth_chart(measured(n), n)


def growth_chart(timing: Timing, n: int) -> None:
    """How the work grows with n, each as a multiple of its value at the smallest n:
    the exact multiply-adds of one head (2 · n² · d: the scores Q Kᵀ, then the
    weights times V), and the measured time as an illustration only."""
    sizes = np.asarray(timing.sizes, dtype=float)
    ops = 2 * sizes**2 * TIMING_D
    spec = charts.line_spec(
        t("todays_llms.long.chart_x"),
        t("todays_llms.long.chart_y"),
        t("todays_llms.long.series"),
        log_x=True,
        log_y=True,
        height=240,
    )
    series = {
        t("todays_llms.long.series_ops", d=TIMING_D): ops / ops[0],
        t("todays_llms.long.series_time"): timing.seconds / timing.seconds[0],
    }
    charts.show(charts.line_frame(timing.sizes, series), spec, t("todays_llms.long.chart_alt", n=n))
    note = {"repeats": TIMING_REPEATS, "first": int(sizes[0]), "d": TIMING_D}
    if len(sizes) > 1:
        ratio = timing.seconds[-1] / timing.seconds[-2]
        note |= {"a": int(sizes[-2]), "b": int(sizes[-1]), "ratio": num(ratio, 1)}
        st.caption(t("todays_llms.long.timing_note", **note))
    else:
        st.caption(t("todays_llms.long.timing_alone", **note))


def block_section() -> tuple[int, bool]:
    """Example C computed block by block against the plain computation, with
    the running maximum and sum for それ. Returns (block size, masked)."""
    x, n = PRONOUN.vectors, len(PRONOUN.tokens)
    block, masked = block_controls(n)
    mask = causal_mask(n) if masked else None
    plain = attention(PRONOUN.queries, x, x, mask=mask)
    res = blockwise_attention(PRONOUN.queries, x, x, block, mask=mask, traced=PRONOUN_QUERY)
    it = gloss(PRONOUN.tokens[PRONOUN_QUERY])
    st.caption(t("todays_llms.long.trace_caption", it=it))
    trace_table(res.trace, block, n)
    rescale_text(res.trace, block)
    diff = float(np.abs(res.output - plain.output).max())
    rows, cols = res.largest
    if cols == n:
        st.markdown(t("todays_llms.long.block_result_full", diff=f"{diff:.1e}", n=n))
    else:
        st.markdown(t("todays_llms.long.block_result", diff=f"{diff:.1e}", rows=rows, cols=cols, n=n))
    return block, masked


def block_controls(n: int) -> tuple[int, bool]:
    """The block size (1 to ``n`` keys) and the causal-mask switch, side by side."""
    left, right = st.columns([2, 1])
    with left:
        block = bound(
            st.slider,
            t("todays_llms.long.block"),
            1,
            n,
            n,
            help=t("todays_llms.long.block_help", n=n),
            key="llm_block",
        )
    with right:
        masked = bound(st.toggle, t("todays_llms.long.masked"), value=False, key="llm_masked")
    return block, masked


def trace_table(tr: BlockTrace, block: int, n: int) -> None:
    """One row per block of keys: its tokens, and the running maximum and sum after it."""
    stops = [min(s + block, n) for s in tr.starts]
    st.dataframe(
        pd.DataFrame(
            {
                t("todays_llms.long.col_block"): np.arange(1, len(tr.starts) + 1),
                t("todays_llms.long.col_keys"): [
                    " ".join(PRONOUN.tokens[s:e]) for s, e in zip(tr.starts, stops, strict=True)
                ],
                t("todays_llms.long.col_max"): [num(v, 3) if np.isfinite(v) else "−∞" for v in tr.maxima],
                t("todays_llms.long.col_sum"): [num(v, 3) for v in tr.sums],
                t("todays_llms.long.col_rescale"): [
                    "—" if f is None else num(f, 3) for f in rescale_factors(tr.maxima)
                ],
            }
        ),
        hide_index=True,
    )


def rescale_factors(maxima: np.ndarray) -> list[float | None]:
    """exp(old largest − new largest) by which each block shrinks what was summed
    before it; None for the first block and while nothing was summed (−∞)."""
    out: list[float | None] = [None]
    for old, new in itertools.pairwise(maxima):
        out.append(float(np.exp(old - new)) if np.isfinite(old) else None)
    return out


def rescale_text(tr: BlockTrace, block: int) -> None:
    """Name the first block where the largest score rose and what was summed
    shrank; or say that with these blocks nothing ever is rescaled."""
    factors = rescale_factors(tr.maxima)
    first = next((i for i, f in enumerate(factors) if f is not None and f < 1), None)
    it = gloss(PRONOUN.tokens[PRONOUN_QUERY])
    if first is None:
        st.markdown(t("todays_llms.long.no_rescale", it=it, block=block))
        return
    st.markdown(
        t(
            "todays_llms.long.rescale",
            it=it,
            block=first + 1,
            old=num(tr.maxima[first - 1], 3),
            new=num(tr.maxima[first], 3),
            factor=num(factors[first] or 0.0, 3),
        )
    )
