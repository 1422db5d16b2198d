"""Section 1, the KV cache: generation on the mini GPT step by step (what is computed
and what is kept), and the size of the cache for real models."""

from __future__ import annotations

import numpy as np
import streamlit as st

from course_app import (
    MAIN_FIGURE,
    bound,
    charts,
    fold,
    gloss,
    md_escape,
    session,
    shown_choice,
    snippets,
    t,
    t_count,
    views,
)
from lesson_core import causal_mask
from lesson_core.examples import CORPUS
from lesson_core.kv_cache import (
    FLOAT64,
    GPT2_SMALL,
    HALF_PRECISION,
    Generation,
    generate_cached,
    kv_cache_bytes,
    model_cache_bytes,
    operation_counts,
)
from lesson_core.rounding import fixed
from lesson_core.transformer import EOS, FFN_MULT, Config, TrainResult, forward, train

PROMPTS = (("ねこ", "は"), ("いぬ", "は"), ("ねこ",), ("いぬ",))

CACHE_LENGTHS = (1, 4096)  # the cache-size slider's range (tokens)

GPT2_SMALL_CONTEXT = GPT2_SMALL.context  # 1,024 tokens, the slider's start


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
    value = session.get(key)
    if value is not None and not low <= int(value) <= high:
        session.put(key, min(high, max(low, int(value))))


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
    _clamp(session.LLM_STEP, 1, last)
    return bound(
        st.slider,
        t("todays_llms.cache.step"),
        1,
        last,
        gen.prompt_length,
        help=t("todays_llms.cache.step_help"),
        key=session.LLM_STEP,
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
    with st.container(key=MAIN_FIGURE):
        alt_text = t_count("todays_llms.cache.alt", step, n=step)
        # its controls are above it: its PNG download goes under it
        views.weights_map(list(tokens), weights, causal_mask(step), alt_text, save="below")
    st.caption(t("todays_llms.cache.map_caption", token=md_escape(gloss(tokens[-1]))))
    prompt = gen.tokens[: gen.prompt_length]
    snippets.code_fold("todays_llms_code", lambda: cache_code(prompt, step), "todays_llms")
    ops = operation_counts(step, model.config.d_model, model.config.n_blocks)
    this_step = t_count(
        "todays_llms.cache.this_step",
        step,
        n=step,
        without=f"{ops.without_cache[-1]:,}",
        with_cache=f"{ops.with_cache[-1]:,}",
        total_without=f"{ops.total_without:,}",
        total_with=f"{ops.total_with:,}",
    )
    full, _ = forward(model.params, gen.run.token_ids[:step], model.config)
    diff = float(np.abs(full[-1] - gen.run.logits[step - 1]).max())
    st.markdown(f"{this_step}\n\n{t('todays_llms.cache.same', diff=f'{diff:.1e}')}")  # one element
    return ops.total_without, ops.total_with


def cache_code(prompt: tuple[str, ...], step: int) -> snippets.Snippet:
    """The code behind the map: the mini GPT trained as this page trains it,
    its generation from the prompt with a KV cache, and the step's weights."""
    lines = [
        "model = train(CORPUS, Config())",
        f"gen = generate_cached(model.params, model.config, model.vocab, {snippets.literal(tuple(prompt))})",
    ]
    shows = [f"gen.run.weights[:{step}, 0, 0, :{step}]"]
    data = [("lesson_core.examples", "CORPUS"), ("lesson_core.transformer", "Config")]
    plot = snippets.Plot("heatmap", shows[0], x_title=t("ui.col.key_token"), y_title=t("ui.col.query"))
    return snippets.Snippet(uses=[train, generate_cached], lines=lines, shows=shows, data=data, plot=plot)


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
