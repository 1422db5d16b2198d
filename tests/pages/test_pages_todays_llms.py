"""Layer 3: the lesson on today's LLMs through AppTest, in both languages."""

import json
import re

import numpy as np
import pytest
from helpers.apptest import all_text, assert_clean, chart_frames, open_page

PAGE = "pages/8_todays_llms.py"
D, BLOCKS, HEADS = 32, 2, 4  # the capstone's default mini GPT
Q = np.array([1.0, 0.2, 0.8, -0.4, 0.5, 0.5, -0.3, 0.9])
K = np.array([0.9, -0.1, 0.6, 0.3, 0.4, 0.7, 0.2, 0.8])


def ops_by_hand(t: int) -> tuple[int, int]:
    """Multiply-adds of the blocks at step t: (without, with) the cache."""
    per_token = 12 * D * D
    without = BLOCKS * sum(per_token + 2 * i * D for i in range(1, t + 1))
    return without, BLOCKS * (per_token + 2 * t * D)


def mb(n_bytes: float) -> str:
    """MB as the page writes them: 3 decimals below 0.1 MB, 2 below 10 MB, else 1."""
    x = n_bytes / 1e6
    return f"{x:,.{3 if x < 0.1 else 2 if x < 10 else 1}f} MB"


def rope_by_hand(m: int, n: int) -> float:
    theta = 10000.0 ** (-np.arange(4) * 2 / 8)
    zq = (Q[0::2] + 1j * Q[1::2]) * np.exp(1j * m * theta)
    zk = (K[0::2] + 1j * K[1::2]) * np.exp(1j * n * theta)
    return float(np.real(zq * np.conj(zk)).sum())


def test_defaults(lang):
    at = open_page(PAGE, lang, folds=True)
    assert_clean(at)
    text = all_text(at)
    # step 3: "<s> ねこ は" read; the mini GPT's next token is さかな
    without, with_cache = ops_by_hand(3)
    assert f"{without:,}" in text and f"{with_cache:,}" in text
    total_without = sum(ops_by_hand(t)[0] for t in (1, 2, 3))
    total_with = sum(ops_by_hand(t)[1] for t in (1, 2, 3))
    assert f"{total_without:,}" in text and f"{total_with:,}" in text
    assert "さかな" in text
    # the cached logits equal the recomputation: the difference printed is rounding only
    diffs = [float(x) for x in re.findall(r"\*\*(\d\.\de[-+]\d+)\*\*", text)]
    assert diffs and max(diffs) < 1e-12
    # cache sizes at 1,024 tokens: course model 2·2·4·8·1024·8 bytes, GPT-2 small 2·12·12·64·1024·2
    assert f"{2 * 2 * 4 * 8 * 1024 * 8 / 1e6:.2f} MB" in text  # 1.05 MB
    assert f"{2 * 12 * 12 * 64 * 1024 * 2 / 1e6:.1f} MB" in text  # 37.7 MB
    # RoPE at m = 5, n = 2
    assert f"{rope_by_hand(5, 2):.3f}".replace("-", "−") in text
    assert "+3" in text


def test_generation_chart_and_heatmap(lang):
    at = open_page(PAGE, lang)
    frames = chart_frames(at)
    heat = next(f for f in frames if "masked" in f)
    assert len(heat) == 9  # 3 × 3 weights at step 3
    assert (heat[heat["masked"]]["col_i"] > heat[heat["masked"]]["row_i"]).all()
    rows = heat[~heat["masked"]].groupby("row_i")["value"].sum().to_numpy()
    np.testing.assert_allclose(rows, 1.0, atol=1e-9)
    lines = next(f for f in frames if "series" in f and set(f["series_order"]) == {0, 1} and len(f) > 6)
    n = len(lines) // 2
    without = lines[lines["series_order"] == 0]["y"].to_numpy()
    with_cache = lines[lines["series_order"] == 1]["y"].to_numpy()
    np.testing.assert_array_equal(without, [ops_by_hand(t)[0] for t in range(1, n + 1)])
    np.testing.assert_array_equal(with_cache, [ops_by_hand(t)[1] for t in range(1, n + 1)])


@pytest.mark.parametrize("prompt", range(4))
def test_every_prompt_steps_to_both_ends(lang, prompt):
    at = open_page(PAGE, lang)
    at.selectbox(key="llm_prompt").select_index(prompt).run()
    assert_clean(at)
    slider = at.slider(key="llm_step")
    for end in (slider.min, slider.max):
        at.slider(key="llm_step").set_value(end).run()
        assert_clean(at)
        text = all_text(at)
        without, with_cache = ops_by_hand(int(end))
        assert f"{without:,}" in text and f"{with_cache:,}" in text


def test_cache_length_extremes():
    at = open_page(PAGE, "en", folds=True)
    at.slider(key="llm_len").set_value(4096).run()
    text = all_text(at)
    assert f"{2 * 12 * 12 * 64 * 4096 * 2 / 1e6:.1f} MB" in text  # 151.0 MB
    at.slider(key="llm_len").set_value(1).run()
    assert_clean(at)
    assert f"{2 * 2 * 4 * 8 * 1 * 8 / 1e6:.3f} MB" in all_text(at)


@pytest.mark.parametrize(("m", "n"), [(0, 0), (31, 0), (0, 31), (20, 17)])
def test_rope_score_for_any_pair(lang, m, n):
    at = open_page(PAGE, lang, folds=True)
    at.slider(key="llm_m").set_value(m).run()
    at.slider(key="llm_n").set_value(n).run()
    assert_clean(at)
    assert f"{rope_by_hand(m, n):.3f}".replace("-", "−") in all_text(at)


@pytest.mark.parametrize(
    ("model", "own_kv", "layers", "d_head", "window"),
    [(0, 12, 12, 64, None), (1, 8, 80, 128, None), (2, 8, 32, 128, 4096)],
)
def test_models_and_their_key_value_heads(lang, model, own_kv, layers, d_head, window):
    at = open_page(PAGE, lang, folds=True)
    at.selectbox(key="llm_model").select_index(model).run()
    assert_clean(at)
    kv = at.select_slider(key="llm_kv")
    q_heads = {0: 12, 1: 64, 2: 32}[model]
    assert [int(o) for o in kv.options] == [h for h in range(1, q_heads + 1) if q_heads % h == 0]
    assert int(kv.value) == own_kv
    tokens = 1024 if window is None else min(1024, window)
    assert mb(2 * layers * own_kv * d_head * tokens * 2) in all_text(at)
    at.select_slider(key="llm_kv").set_value(1).run()
    assert_clean(at)
    assert mb(2 * layers * 1 * d_head * tokens * 2) in all_text(at)


def test_the_sliding_window_caps_mistral_cache():
    at = open_page(PAGE, "en", folds=True)
    at.selectbox(key="llm_model").select_index(2).run()
    at.select_slider(key="llm_tokens").set_value(32768).run()
    assert_clean(at)
    text = all_text(at)
    assert f"{2 * 32 * 8 * 128 * 4096 * 2 / 1e6:,.1f} MB" in text  # 536.9 MB: 4,096 tokens kept, not 32,768
    assert "4,096" in text


def test_switching_model_keeps_a_valid_head_count():
    at = open_page(PAGE, "en", folds=True)
    at.selectbox(key="llm_model").select_index(1).run()
    at.select_slider(key="llm_kv").set_value(64).run()
    at.selectbox(key="llm_model").select_index(0).run()  # 64 does not divide GPT-2's 12 heads
    assert_clean(at)
    assert int(at.select_slider(key="llm_kv").value) == 12


@pytest.mark.parametrize("g", ["1", "2", "4"])
def test_group_demo(lang, g):
    at = open_page(PAGE, lang, folds=True)
    radio = at.radio(key="llm_group")
    radio.set_value(int(g)).run()
    assert_clean(at)
    bars = next(f for f in chart_frames(at) if "series" in f and f["series"].nunique() == 4)
    weights = bars.pivot(index="series_order", columns="order", values="value").to_numpy()
    np.testing.assert_allclose(weights.sum(axis=1), 1.0, atol=1e-9)  # それ's row, causal: sums to 1
    assert weights.shape == (4, 7)


@pytest.mark.parametrize("n", [64, 2048])
def test_long_context_extremes(n):
    at = open_page(PAGE, "en")
    at.select_slider(key="llm_long_n").set_value(n).run()
    assert_clean(at)
    text = all_text(at)
    assert f"{n * n:,}" in text
    assert mb(n * n * 144 * 2) in text
    timing = next(f for f in chart_frames(at) if "x" in f and f["x"].max() == n)
    sizes = [s for s in (64, 128, 256, 512, 1024, 2048) if s <= n]
    assert len(timing) == 2 * len(sizes)  # the exact count and the measured time
    ops = timing[timing["series_order"] == 0]
    assert ops["y"].tolist() == pytest.approx([(s / 64) ** 2 for s in sizes])


@pytest.mark.parametrize("n", [128, 512, 2048])
def test_the_timing_chart_spans_the_measured_lengths_only(n):
    """The log x axis runs from the first measured length to the last, ticked at
    each (left to Vega, it ran from 10 to 1,000 for lengths 64 to 512)."""
    at = open_page(PAGE, "en")
    at.select_slider(key="llm_long_n").set_value(n).run()
    for chart in at.get("vega_lite_chart"):
        spec = json.loads(chart.proto.spec)
        x = spec.get("encoding", {}).get("x", {})
        if x.get("scale", {}).get("type") == "log":
            break
    else:
        raise AssertionError("no chart with a log x axis")
    data = next(f for f in chart_frames(at) if "x" in f and f["x"].max() == n)
    lengths = sorted(set(data["x"]))
    assert x["scale"]["domain"] == [lengths[0], lengths[-1]] == [64, n]
    assert x["axis"]["values"] == lengths
    y = spec["encoding"]["y"]  # ticked × 1, 4, 16 …: at every step of the exact count
    ticks = y["axis"]["values"]
    assert [(length / 64) ** 2 for length in lengths] == [v for v in ticks if v >= 1][: len(lengths)]
    assert y["scale"]["domain"] == [ticks[0], ticks[-1]]  # and the axis holds both lines whole
    assert ticks[0] <= data["y"].min() and data["y"].max() <= ticks[-1]


@pytest.mark.parametrize("masked", [False, True])
@pytest.mark.parametrize("block", [1, 3, 10])
def test_blockwise_matches_plain(block, masked):
    at = open_page(PAGE, "en", folds=True)
    at.slider(key="llm_block").set_value(block).run()
    if masked:
        at.toggle(key="llm_masked").set_value(True).run()
    assert_clean(at)
    text = all_text(at)
    m = re.search(r"plain computation: \*\*(\d\.\de[-+]\d+)\*\*", text)
    assert m and float(m.group(1)) < 1e-12
    assert (f"10 × {block}" if block < 10 else "10 × 10") in text
    trace = at.dataframe[-1].value
    assert len(trace) == -(-10 // block)


def test_hostile_url_values():
    params = {
        "llm_step": "999",
        "llm_kv": "7",
        "llm_m": "-5",
        "llm_model": "9",
        "llm_long_n": "3",
        "llm_block": "0",
    }
    at = open_page(PAGE, "en", params)
    assert_clean(at)
    assert all_text(at)


def test_quiz_right_answers(lang):
    from course_app.course import BY_ID

    at = open_page(PAGE, lang)
    for quiz in BY_ID["todays_llms"].quizzes:
        at.radio(key=f"todays_llms_{quiz.id}").set_value(quiz.answer).run()
    assert_clean(at)
    assert len(at.success) == len(BY_ID["todays_llms"].quizzes)
    assert at.session_state["progress"].quizzes >= {
        f"todays_llms.{q.id}" for q in BY_ID["todays_llms"].quizzes
    }


def test_count_line_spec_has_whole_number_ticks_and_leaves_line_spec_alone():
    from course_app import charts

    plain = charts.line_spec("Tokens", "Ops", "How", height=240)
    counted = charts.count_line_spec("Tokens", "Ops", "How", height=240)
    assert counted["encoding"]["x"]["axis"] == {"tickMinStep": 1, "format": "d"}
    assert "axis" not in plain["encoding"]["x"]  # the shared cached spec is not modified
    assert counted["encoding"]["y"] == plain["encoding"]["y"] and counted["mark"] == plain["mark"]
    assert charts.count_line_spec("Tokens", "Ops", "How", height=240) is counted  # built once per shape


def test_a_shared_link_restores_model_and_prompt_by_name(lang):
    at = open_page(PAGE, lang, {"llm_model": "Llama 2 70B", "llm_prompt": "いぬ は"}, folds=True)
    assert_clean(at)
    assert at.selectbox(key="llm_model").value == "Llama 2 70B"
    assert int(at.select_slider(key="llm_kv").value) == 8
    assert mb(2 * 80 * 8 * 128 * 1024 * 2) in all_text(at)  # 335.5 MB
    assert at.selectbox(key="llm_prompt").value == "いぬ は"


def test_a_count_of_one_reads_as_english():
    at = open_page(PAGE, "en", folds=True)
    at.slider(key="llm_step").set_value(at.slider(key="llm_step").min).run()
    at.slider(key="llm_len").set_value(1).run()
    at.select_slider(key="llm_kv").set_value(1).run()
    assert_clean(at)
    text = all_text(at)
    assert at.slider(key="llm_step").value == 1
    assert re.search(r"\(1 token\)", text) and re.search(r"\*\*1\*\* token:", text)
    assert re.search(r"\*\*1\*\* key/value head,", text)
    assert not re.search(r"\b1\**\s+\**(tokens|steps|key/value heads)\b", text)


@pytest.mark.parametrize(("model", "context", "longer"), [(0, 1024, 2048), (1, 4096, 8192), (2, 8192, 32768)])
def test_a_length_past_the_context_gets_a_caption(lang, model, context, longer):
    """GPT-2 small reads 1,024 tokens, Llama 2 4,096, Mistral 7B v0.1 8,192: a
    longer setting is a what-if of the cache formula, and the page says so."""
    marker = "文脈長）" if lang == "ja" else "The context length of"
    at = open_page(PAGE, lang, folds=True)
    at.selectbox(key="llm_model").select_index(model).run()
    at.select_slider(key="llm_tokens").set_value(context).run()
    assert_clean(at)
    assert not [c.value for c in at.caption if marker in c.value]
    at.select_slider(key="llm_tokens").set_value(longer).run()
    assert_clean(at)
    (caption,) = [c.value for c in at.caption if marker in c.value]
    assert f"{context:,}" in caption and at.selectbox(key="llm_model").value in caption


def test_ops_help_counts_tokens_from_one(lang):
    """ops_by_hand adds 2 i d for i = 1 … t, so the text must count from 1, not
    speak of 'position i' (positions count from 0 elsewhere in the course)."""
    text = all_text(open_page(PAGE, lang, folds=True))
    if lang == "ja":
        assert "i 番目のトークン（1 から数えます）" in text and "位置 i のトークン" not in text
    else:
        assert "the i-th token (counting from 1)" in text and "token at position i" not in text


def test_mistral_is_named_with_its_version(lang):
    at = open_page(PAGE, lang, {"llm_model": "Mistral 7B v0.1"}, folds=True)
    assert_clean(at)
    assert at.selectbox(key="llm_model").value == "Mistral 7B v0.1"
    text = all_text(at)
    assert "Mistral 7B v0.1" in text and ("W = 4,096" in text)
