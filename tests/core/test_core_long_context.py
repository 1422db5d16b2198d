"""Layer 1: block-by-block attention with a running maximum and sum equals
plain attention, for any block size, with and without a mask."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from lesson_core import causal_mask, scaled_dot_product_attention
from lesson_core.examples import PRONOUN, PRONOUN_QUERY
from lesson_core.long_context import blockwise_attention, score_matrix_bytes, time_attention


@st.composite
def problems(draw):
    n_q, n_k, d, d_v = (
        draw(st.integers(1, 9)),
        draw(st.integers(1, 12)),
        draw(st.integers(1, 5)),
        draw(st.integers(1, 4)),
    )
    values = st.floats(-30, 30, allow_nan=False)  # large scores: the running maximum must rescale
    q = draw(arrays(float, (n_q, d), elements=values))
    k = draw(arrays(float, (n_k, d), elements=values))
    v = draw(arrays(float, (n_k, d_v), elements=st.floats(-5, 5, allow_nan=False)))
    mask = draw(st.none() | arrays(bool, (n_q, n_k)))
    block = draw(st.integers(1, n_k + 3))
    return q, k, v, mask, block


@settings(max_examples=150, deadline=None)
@given(problems())
def test_blockwise_equals_plain_attention(problem):
    q, k, v, mask, block = problem
    plain = scaled_dot_product_attention(q, k, v, mask=mask)
    res = blockwise_attention(q, k, v, block, mask=mask)
    np.testing.assert_allclose(res.output, plain.output, rtol=1e-9, atol=1e-9)
    assert res.largest == (q.shape[0], min(block, k.shape[0]))


@pytest.mark.parametrize("block", range(1, 11))
def test_causal_example_c_for_every_block_size(block):
    x, n = PRONOUN.vectors, len(PRONOUN.tokens)
    plain = scaled_dot_product_attention(PRONOUN.queries, x, x, mask=causal_mask(n))
    res = blockwise_attention(PRONOUN.queries, x, x, block, mask=causal_mask(n), traced=PRONOUN_QUERY)
    np.testing.assert_allclose(res.output, plain.output, atol=1e-12)
    # the trace ends on the overall maximum and the softmax denominator of それ's row
    row = plain.scaled_scores[PRONOUN_QUERY]
    top = row[np.isfinite(row)].max()
    assert res.trace.maxima[-1] == pytest.approx(top)
    assert res.trace.sums[-1] == pytest.approx(np.exp(row[np.isfinite(row)] - top).sum())
    assert np.all(np.diff(res.trace.maxima) >= 0)
    assert len(res.trace.starts) == -(-n // block)


def test_two_keys_by_hand():
    # one query, scores 0 and ln 3 (d = 1): weights 1/4 and 3/4
    q = np.array([[1.0]])
    k = np.array([[0.0], [np.log(3)]])
    v = np.array([[4.0], [8.0]])
    res = blockwise_attention(q, k, v, 1, traced=0)
    np.testing.assert_allclose(res.output, [[0.25 * 4 + 0.75 * 8]])
    np.testing.assert_allclose(res.trace.maxima, [0.0, np.log(3)])
    np.testing.assert_allclose(res.trace.sums, [1.0, 1.0 / 3 + 1.0])  # 1, then 1·e^{−ln 3} + 1


def test_a_row_with_every_key_masked_gives_zeros_like_softmax():
    q, k, v = np.ones((2, 2)), np.ones((3, 2)), np.ones((3, 2))
    mask = np.array([[False, False, False], [True, False, True]])
    res = blockwise_attention(q, k, v, 2, mask=mask)
    np.testing.assert_allclose(res.output, scaled_dot_product_attention(q, k, v, mask=mask).output)
    np.testing.assert_array_equal(res.output[0], [0.0, 0.0])


def test_bad_block_sizes_are_refused():
    x = np.ones((2, 2))
    for block in (0, -1, 1.5):
        with pytest.raises(ValueError):
            blockwise_attention(x, x, x, block)


def test_score_matrix_bytes_by_hand():
    # GPT-2 small: 12 layers × 12 heads of 1,024 × 1,024 scores in 16 bits
    assert score_matrix_bytes(1024, 12, 12, 2) == 1024 * 1024 * 144 * 2 == 301_989_888
    assert score_matrix_bytes(2048, 1) == 4 * score_matrix_bytes(1024, 1)
    with pytest.raises(ValueError):
        score_matrix_bytes(-1, 1)


def test_timing_measures_each_size_once():
    timing = time_attention([8, 16], 4, np.random.default_rng(0), repeats=1)
    np.testing.assert_array_equal(timing.sizes, [8, 16])
    np.testing.assert_array_equal(timing.matrix_bytes, [8 * 8 * 8, 16 * 16 * 8])
    assert timing.seconds.shape == (2,) and np.all(timing.seconds >= 0)  # never asserted as a speed
    with pytest.raises(ValueError):
        time_attention([0], 4, np.random.default_rng(0))


@pytest.mark.parametrize("bad", [-1, 0.5, 2.5, float("nan")])
def test_counts_refuse_what_is_not_a_whole_number_of_things(bad):
    from lesson_core.counts import require_counts

    require_counts(0, tokens=0)
    require_counts(1, heads=3, layers=2.0)
    with pytest.raises(ValueError, match=r"^heads must be"):
        require_counts(1, layers=1, heads=bad)
    with pytest.raises(ValueError, match="positive"):
        require_counts(1, heads=0)
