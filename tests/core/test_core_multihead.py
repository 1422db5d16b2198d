"""Layer 1: the multi-head lesson's functions against hand-computed values,
the lesson's worked figures and properties that hold for any head count."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lesson_core import causal_mask, multi_head_attention, scaled_dot_product_attention
from lesson_core.examples import (
    GPT2_SMALL_D_MODEL,
    GPT2_SMALL_HEADS,
    PRONOUN,
)
from lesson_core.multihead import (
    divisors,
    head_shapes,
    parallel_heads,
    random_multi_head,
    random_projections,
    split_heads,
)

N = len(PRONOUN.tokens)
IT, FISH = PRONOUN.index("それ"), PRONOUN.index("魚")

# A "previous token" head on example C, built from positions alone: the key of
# position j is the one-hot vector e_j ("I am position j"), the query of
# position i is 10 · e_(i-1) ("I want position i - 1"). 猫 at position 0 has no
# previous token: its query is all zeros. The values are C's feature vectors,
# so the head hands each position the features of the token before it.
PREVIOUS_TOKEN_KEYS = np.eye(N)
PREVIOUS_TOKEN_QUERIES = 10.0 * np.eye(N, k=-1)


def hand_made_heads():
    return parallel_heads(
        [PRONOUN.queries, PREVIOUS_TOKEN_QUERIES],
        [PRONOUN.vectors, PREVIOUS_TOKEN_KEYS],
        [PRONOUN.vectors, PRONOUN.vectors],
        mask=causal_mask(N),
    )


def test_divisors():
    assert divisors(768) == [1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128, 192, 256, 384, 768]
    assert divisors(8) == [1, 2, 4, 8]
    assert divisors(1) == [1]
    with pytest.raises(ValueError):
        divisors(0)


def test_gpt2_small_shapes():
    # GPT-2 small: d = 768, 12 heads of 64; heads 10 × 64, concat 10 × 768, W_O 768 × 768
    s = head_shapes(10, GPT2_SMALL_D_MODEL, GPT2_SMALL_HEADS)
    assert s.d_head == 64
    assert s.x == (10, 768) and s.w_q == (768, 64) and s.q == (10, 64)
    assert s.scores == (10, 10) and s.head_output == (10, 64)
    assert s.concat == (10, 768) and s.w_o == (768, 768) and s.output == (10, 768)
    assert s.parameters == 4 * 768 * 768 == 2_359_296
    with pytest.raises(ValueError):
        head_shapes(10, 768, 5)
    with pytest.raises(ValueError):
        head_shapes(10, 768, 0)


@given(st.sampled_from(divisors(768)), st.integers(1, 50))
def test_heads_always_fill_the_width_again(h, n):
    s = head_shapes(n, 768, h)
    assert s.d_head * h == 768
    assert s.concat == s.output == (n, 768)
    assert s.parameters == 2_359_296  # independent of h


def test_pronoun_head_is_the_attention_lesson():
    heads = hand_made_heads()
    # attention lesson: それ -> 猫 18.8 %, が 1.5 %, 魚 65.7 %, を 1.5 %, 食べた 6.1 %, 。 2.5 %, それ 3.7 %
    expected = [0.188, 0.015, 0.657, 0.015, 0.061, 0.025, 0.037, 0.0, 0.0, 0.0]
    np.testing.assert_allclose(heads.weights[0, IT], expected, atol=5e-4)
    np.testing.assert_allclose(heads.outputs[0, IT], [1.23, 2.01, 0.18, 0.12], atol=5e-3)


def test_previous_token_head_looks_one_back():
    heads = hand_made_heads()
    w = heads.weights[1]
    assert w[0, 0] == pytest.approx(1.0)  # 猫 has nothing before it but itself
    s = 10 / np.sqrt(N)  # scaled score of the wanted key; every other visible key scores 0
    for i in range(1, N):
        assert int(np.argmax(w[i])) == i - 1
        assert w[i, i - 1] == pytest.approx(np.exp(s) / (np.exp(s) + i))
    assert np.all(w[np.triu_indices(N, 1)] == 0.0)
    # its output is (mostly) the features of the token before
    np.testing.assert_allclose(heads.outputs[1, 1], PRONOUN.vectors[0], atol=0.1 * 3)


def test_the_two_heads_disagree_on_sore_and_agree_on_particles():
    w = hand_made_heads().weights
    assert int(np.argmax(w[0, IT])) == FISH and int(np.argmax(w[1, IT])) == IT - 1
    agree = [i for i in range(1, N) if np.argmax(w[0, i]) == np.argmax(w[1, i])]
    # が / を look back to 猫 / 魚 and 。 to 食べた: the token right before each
    assert agree == [PRONOUN.index(tok) for tok in ("が", "を", "。")]


def test_concat_is_the_outputs_side_by_side():
    heads = hand_made_heads()
    assert heads.weights.shape == (2, N, N) and heads.outputs.shape == (2, N, 4)
    np.testing.assert_array_equal(heads.concat, np.hstack([heads.outputs[0], heads.outputs[1]]))


def test_parallel_heads_with_one_head_is_plain_attention():
    q, kv = PRONOUN.queries, PRONOUN.vectors
    one = parallel_heads([q], [kv], [kv])
    plain = scaled_dot_product_attention(q, kv, kv)
    np.testing.assert_allclose(one.weights[0], plain.weights)
    np.testing.assert_allclose(one.concat, plain.output)


def test_random_projections_are_fixed_by_the_seed():
    a = random_projections(8, 8, np.random.default_rng(3), count=4)
    b = random_projections(8, 8, np.random.default_rng(3), count=4)
    assert a.shape == (4, 8, 8)
    np.testing.assert_array_equal(a, b)
    assert not np.allclose(a, random_projections(8, 8, np.random.default_rng(4), count=4))
    big = random_projections(400, 400, np.random.default_rng(0))
    assert big.std() == pytest.approx(1 / np.sqrt(400), rel=0.02)


@pytest.mark.parametrize("h", [1, 2, 4, 8])
def test_random_multi_head_is_multi_head_attention(h):
    widen = random_projections(4, 8, np.random.default_rng(2017))[0]
    run = random_multi_head(PRONOUN.vectors, widen, h, np.random.default_rng(0), causal_mask(N))
    x = PRONOUN.vectors @ widen
    w_q, w_k, w_v, w_o = np.random.default_rng(0).normal(0, 1 / np.sqrt(8), size=(4, 8, 8))
    ref = multi_head_attention(x, w_q, w_k, w_v, w_o, h, causal_mask(N))
    np.testing.assert_allclose(run.x, x)
    np.testing.assert_allclose(run.result.output, ref.output)
    assert run.result.weights.shape == (h, N, N)
    assert run.result.head_outputs.shape == (h, N, 8 // h)
    assert run.result.concat.shape == run.result.output.shape == (N, 8)
    np.testing.assert_allclose(run.result.weights.sum(axis=-1), 1.0)
    assert np.all(run.result.weights[:, ~causal_mask(N)] == 0.0)
    # head k's slice: attention on X W[:, k·d_head : (k+1)·d_head]
    d = 8 // h
    k = h - 1
    cut = slice(k * d, (k + 1) * d)
    head = scaled_dot_product_attention(
        x @ w_q[:, cut], x @ w_k[:, cut], x @ w_v[:, cut], mask=causal_mask(N)
    )
    np.testing.assert_allclose(run.result.weights[k], head.weights)
    np.testing.assert_allclose(run.result.concat[:, cut], head.output)


def test_random_multi_head_rejects_a_head_count_that_does_not_divide():
    widen = random_projections(4, 8, np.random.default_rng(0))[0]
    for h in (0, 3, 5, 16):
        with pytest.raises(ValueError):
            random_multi_head(PRONOUN.vectors, widen, h, np.random.default_rng(0))


@settings(max_examples=30)
@given(st.sampled_from([1, 2, 3, 4, 6, 12]), st.integers(0, 2**32 - 1))
def test_split_heads_round_trip(h, seed):
    x = np.random.default_rng(seed).normal(size=(5, 12))
    parts = split_heads(x, h)
    assert parts.shape == (h, 5, 12 // h)
    np.testing.assert_array_equal(parts.transpose(1, 0, 2).reshape(5, 12), x)


def test_offset_head_with_k_1_is_the_previous_token_head():
    from lesson_core.multihead import offset_head

    q, k = offset_head(10, 1)
    np.testing.assert_array_equal(q, PREVIOUS_TOKEN_QUERIES)
    np.testing.assert_array_equal(k, PREVIOUS_TOKEN_KEYS)
    q2, _ = offset_head(4, 2)
    np.testing.assert_array_equal(q2, [[0, 0, 0, 0], [0, 0, 0, 0], [10, 0, 0, 0], [0, 10, 0, 0]])
    for bad in (0, 4, -1):
        with pytest.raises(ValueError):
            offset_head(4, bad)


def test_look_back_head_lands_k_back_and_top_keys():
    from lesson_core import causal_mask
    from lesson_core.examples import PRONOUN
    from lesson_core.multihead import offset_head, top_keys

    for k in (1, 2, 3):
        q, keys = offset_head(10, k)
        heads = parallel_heads([q], [keys], [PRONOUN.vectors], mask=causal_mask(10))
        tops = top_keys(heads.weights)[0]
        np.testing.assert_array_equal(tops[k:], np.arange(10 - k))
    assert list(top_keys(np.array([[[0.2, 0.8], [0.5, 0.5]]]))[0]) == [1, 0]  # a tie: the first


def test_doubling_sore_query_sharpens_its_weights():
    """The multi-head quiz: twice the query, twice every score gap: 魚 gains, every other token loses."""
    from lesson_core import causal_mask
    from lesson_core.attention import scaled_dot_product_attention
    from lesson_core.examples import PRONOUN

    it, fish = PRONOUN.index("それ"), PRONOUN.index("魚")
    q = np.array(PRONOUN.queries, dtype=float)
    w1 = scaled_dot_product_attention(q, PRONOUN.vectors, PRONOUN.vectors, mask=causal_mask(10)).weights[it]
    q[it] *= 2
    w2 = scaled_dot_product_attention(q, PRONOUN.vectors, PRONOUN.vectors, mask=causal_mask(10)).weights[it]
    assert w2[fish] > w1[fish] and w2.sum() == pytest.approx(1.0)
    others = [j for j in range(it + 1) if j != fish]
    assert (w2[others] < w1[others]).all()
