"""Layer 1: generation with a KV cache, the cache's size and the operation
counts, and grouped-query attention, against hand-computed values and a full
recomputation."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from lesson_core import scaled_dot_product_attention
from lesson_core.attention import causal_mask
from lesson_core.examples import CORPUS
from lesson_core.kv_cache import (
    GPT2_SMALL,
    LLAMA2_70B,
    MISTRAL_7B,
    cached_logits,
    generate_cached,
    grouped_query_attention,
    kv_cache_bytes,
    kv_group,
    model_cache_bytes,
    operation_counts,
)
from lesson_core.transformer import EOS, Config, forward, generate, init_params, train


@pytest.fixture(scope="module")
def trained():
    return train(CORPUS, Config())


def test_cached_logits_equal_recomputing_at_every_step(trained):
    """At step t, the cached run's logits equal the last row of a full forward
    pass over the first t tokens (the page's "recompute everything")."""
    ids = trained.vocab.encode(["<s>", "ねこ", "は", "さかな", "が", "すき"])
    run = cached_logits(trained.params, trained.config, ids)
    for t in range(1, len(ids) + 1):
        full, _ = forward(trained.params, ids[:t], trained.config)
        np.testing.assert_allclose(run.logits[t - 1], full[-1], rtol=1e-10, atol=1e-10)


@pytest.mark.parametrize("config", [Config(d_model=8, n_heads=1, n_blocks=1), Config(d_model=16, n_heads=4)])
def test_cached_logits_match_forward_for_random_weights(config):
    rng = np.random.default_rng(3)
    params = init_params(config, 11, rng)
    params["out.w"] = rng.normal(size=params["out.w"].shape)  # larger logits: a sharper check
    ids = rng.integers(0, 11, size=9)
    full, cache = forward(params, ids, config)
    run = cached_logits(params, config, ids)
    np.testing.assert_allclose(run.logits, full, rtol=1e-10, atol=1e-10)
    # the weights each step computed are the rows of the full attention maps
    for b in range(config.n_blocks):
        np.testing.assert_allclose(run.weights[:, b].transpose(1, 0, 2), cache.blocks[b].weights, atol=1e-12)
    assert run.keys.shape == (config.n_blocks, config.n_heads, 9, config.d_head)


def test_cache_of_earlier_tokens_does_not_change_when_tokens_are_added(trained):
    ids = trained.vocab.encode(["<s>", "いぬ", "は", "ボール", "が"])
    short = cached_logits(trained.params, trained.config, ids[:3])
    long = cached_logits(trained.params, trained.config, ids)
    np.testing.assert_array_equal(long.keys[:, :, :3], short.keys)
    np.testing.assert_array_equal(long.values[:, :, :3], short.values)


def test_generate_cached_is_greedy_generation(trained):
    for prefix in (["ねこ", "は"], ["いぬ", "は"], ["ねこ"]):
        gen = generate_cached(trained.params, trained.config, trained.vocab, prefix)
        plain = generate(trained.params, trained.config, trained.vocab, prefix, 0.0, np.random.default_rng(0))
        assert gen.tokens[gen.prompt_length :] == plain
        assert gen.tokens[: gen.prompt_length] == ("<s>", *prefix)
        assert gen.tokens[-1] == EOS
        assert len(gen.run.token_ids) == len(gen.tokens) - 1
        # every generated token is the argmax of the logits of the step before it
        for t in range(gen.prompt_length, len(gen.tokens)):
            scores = gen.run.logits[t - 1].copy()
            scores[trained.vocab.index("<s>")] = -np.inf
            assert trained.vocab.tokens[int(np.argmax(scores))] == gen.tokens[t]


def test_generate_cached_with_no_new_tokens(trained):
    gen = generate_cached(trained.params, trained.config, trained.vocab, ["ねこ"], max_tokens=0)
    assert gen.tokens == ("<s>", "ねこ") and len(gen.run.token_ids) == 1


def test_cache_size_formula_by_hand():
    # GPT-2 small at 1,024 tokens in 16-bit numbers: 2 · 12 · 12 · 64 · 1024 · 2
    assert kv_cache_bytes(12, 12, 64, 1024, 2) == 37_748_736
    assert model_cache_bytes(GPT2_SMALL, 1024) == 37_748_736
    assert model_cache_bytes(GPT2_SMALL, 1024, kv_heads=3) == 9_437_184
    assert model_cache_bytes(GPT2_SMALL, 1024, kv_heads=1) == 37_748_736 // 12
    # Llama 2 70B: 80 layers, 8 KV heads of 128 -> 327,680 bytes per token in 16 bits
    assert model_cache_bytes(LLAMA2_70B, 1) == 2 * 80 * 8 * 128 * 2
    assert model_cache_bytes(LLAMA2_70B, 4096, kv_heads=64) == 8 * model_cache_bytes(LLAMA2_70B, 4096)
    # Mistral 7B's sliding window caps the tokens kept at 4,096
    assert model_cache_bytes(MISTRAL_7B, 32768) == model_cache_bytes(MISTRAL_7B, 4096)
    assert kv_cache_bytes(2, 4, 8, 0, 8) == 0


@pytest.mark.parametrize(
    "args", [(0, 1, 1, 1, 1), (1, 1.5, 1, 1, 1), (1, 1, 1, -1, 1), (1, 1, 1, 1, 0), (1, 1, -64, 1, 2)]
)
def test_cache_size_rejects_bad_sizes(args):
    with pytest.raises(ValueError):
        kv_cache_bytes(*args)


def test_model_cache_rejects_a_head_count_that_does_not_divide():
    with pytest.raises(ValueError):
        model_cache_bytes(GPT2_SMALL, 10, kv_heads=5)


def test_operation_counts_by_hand():
    # d = 2, one block: weights cost 12 · 4 = 48 per token; position i adds 2 · i · 2 = 4 i
    ops = operation_counts(3, d_model=2, n_blocks=1)
    np.testing.assert_array_equal(ops.tokens, [1, 2, 3])
    # without: step t = Σ_{i<=t} (48 + 4 i): 52, 52 + 56 = 108, 108 + 60 = 168
    np.testing.assert_array_equal(ops.without_cache, [52, 108, 168])
    # with: step t = 48 + 4 t
    np.testing.assert_array_equal(ops.with_cache, [52, 56, 60])
    assert (ops.total_without, ops.total_with) == (328, 168)
    two = operation_counts(3, d_model=2, n_blocks=2)
    np.testing.assert_array_equal(two.without_cache, 2 * ops.without_cache)


@given(st.integers(1, 200), st.sampled_from([8, 32, 768]))
def test_the_cache_never_costs_more_and_saves_more_as_text_grows(n, d):
    ops = operation_counts(n, d, 2)
    assert ops.with_cache[0] == ops.without_cache[0]
    assert np.all(ops.with_cache <= ops.without_cache)
    assert np.all(np.diff(ops.without_cache - ops.with_cache) > 0)


def test_kv_group_assigns_consecutive_heads():
    np.testing.assert_array_equal(kv_group(8, 2), [0, 0, 0, 0, 1, 1, 1, 1])
    np.testing.assert_array_equal(kv_group(4, 4), [0, 1, 2, 3])
    np.testing.assert_array_equal(kv_group(4, 1), [0, 0, 0, 0])
    with pytest.raises(ValueError):
        kv_group(6, 4)


def test_grouped_query_attention_equals_heads_with_copied_keys():
    rng = np.random.default_rng(0)
    q, k, v = rng.normal(size=(6, 5, 4)), rng.normal(size=(2, 5, 4)), rng.normal(size=(2, 5, 3))
    mask = causal_mask(5)
    res = grouped_query_attention(q, k, v, mask=mask)
    for h in range(6):
        g = h // 3
        one = scaled_dot_product_attention(q[h], k[g], v[g], mask=mask)
        np.testing.assert_allclose(res.output[h], one.output, atol=1e-12)
        np.testing.assert_allclose(res.weights[h], one.weights, atol=1e-12)
    # multi-head (g = h) is the plain per-head attention
    full = grouped_query_attention(q, rng.normal(size=(6, 5, 4)), rng.normal(size=(6, 5, 3)))
    assert full.output.shape == (6, 5, 3)


def test_published_shapes():
    """The figures of docs/sources.md."""
    assert (GPT2_SMALL.layers, GPT2_SMALL.q_heads, GPT2_SMALL.kv_heads, GPT2_SMALL.d_head) == (12, 12, 12, 64)
    assert (LLAMA2_70B.layers, LLAMA2_70B.q_heads, LLAMA2_70B.kv_heads, LLAMA2_70B.d_head) == (80, 64, 8, 128)
    assert (MISTRAL_7B.layers, MISTRAL_7B.q_heads, MISTRAL_7B.kv_heads, MISTRAL_7B.d_head) == (32, 32, 8, 128)
    assert MISTRAL_7B.window == 4096
    # context lengths: GPT-2's n_ctx, Llama 2's 4k, Mistral 7B v0.1's context_len (paper, Table 1)
    assert [m.context for m in (GPT2_SMALL, LLAMA2_70B, MISTRAL_7B)] == [1024, 4096, 8192]
    # the sliding window belongs to v0.1, so the name says which version
    assert MISTRAL_7B.name == "Mistral 7B v0.1"
    # d_model = heads · d_head: 768, 8192, 4096 as in the configuration files
    assert [m.q_heads * m.d_head for m in (GPT2_SMALL, LLAMA2_70B, MISTRAL_7B)] == [768, 8192, 4096]
