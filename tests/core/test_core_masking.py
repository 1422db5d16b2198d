"""Layer 1: lesson_core.masking (next-token pairs, weight that leaks past a mask)
and the sliding-window mask against hand-computed cases, the sentence
わたし は きょう 本 を 読む, and properties."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from lesson_core import causal_mask, scaled_dot_product_attention, softmax
from lesson_core.examples import DECODER
from lesson_core.masking import MASK_FILLS, hidden_weight, sliding_window_mask, training_pairs

scores = st.integers(1, 7).flatmap(
    lambda n: arrays(np.float64, (n, n), elements=st.floats(-50, 50, allow_nan=False))
)

# --- training_pairs ------------------------------------------------------------


def test_training_pairs_of_example_b():
    pairs = training_pairs(DECODER.tokens)
    assert pairs[0] == (("わたし",), "は")
    assert pairs[1] == (("わたし", "は"), "きょう")
    assert pairs[2] == (("わたし", "は", "きょう"), "本")
    assert pairs[-1] == (("わたし", "は", "きょう", "本", "を"), "読む")
    assert len(pairs) == 5


def test_training_pairs_of_tiny_sentences():
    assert training_pairs([]) == []
    assert training_pairs(["a"]) == []
    assert training_pairs(["a", "b"]) == [(("a",), "b")]


@given(st.lists(st.text(min_size=1, max_size=3), max_size=12))
def test_each_pair_is_a_prefix_and_the_token_after_it(tokens):
    pairs = training_pairs(tokens)
    assert len(pairs) == max(len(tokens) - 1, 0)
    for i, (context, answer) in enumerate(pairs, start=1):
        assert context == tuple(tokens[:i])
        assert answer == tokens[i]


# --- hidden_weight --------------------------------------------------------------


def test_hidden_weight_hand_computed():
    weights = np.array([[0.5, 0.5], [0.25, 0.75]])
    np.testing.assert_allclose(hidden_weight(weights, causal_mask(2)), [0.5, 0.0])
    allowed = np.array([[True, False, False], [True, True, False], [False, True, True]])
    w = np.array([[0.2, 0.3, 0.5], [0.1, 0.1, 0.8], [0.6, 0.3, 0.1]])
    np.testing.assert_allclose(hidden_weight(w, allowed), [0.8, 0.8, 0.6])


def test_hidden_weight_keeps_batch_axes():
    w = np.stack([np.eye(3), np.full((3, 3), 1 / 3)])  # two "heads"
    np.testing.assert_allclose(hidden_weight(w, causal_mask(3)), [[0, 0, 0], [2 / 3, 1 / 3, 0]])


def test_example_b_leak_for_each_fill():
    x = DECODER.vectors
    allowed = causal_mask(len(x))

    def leak(fill):
        return hidden_weight(scaled_dot_product_attention(x, x, x, allowed, mask_fill=fill).weights, allowed)

    # -inf and -1e9: exactly 0 (exp underflows to 0); -10: tiny but not 0; 0: no mask at all
    assert np.all(leak(-np.inf) == 0.0)
    assert np.all(leak(-1e9) == 0.0)
    assert 0 < leak(-10.0)[0] < 1e-3
    # by hand: row わたし of softmax(x xᵀ / √3) without a mask, minus its own weight
    row = x[0] @ x.T / np.sqrt(3)
    e = np.exp(row - row.max())
    expected = 1 - e[0] / e.sum()
    np.testing.assert_allclose(leak(0.0)[0], expected)
    np.testing.assert_allclose(leak(0.0)[0], 0.820, atol=5e-4)
    assert leak(0.0)[-1] == 0.0  # the last row has nothing to its right
    # the smaller the fill, the less leaks
    totals = [leak(f).sum() for f in MASK_FILLS]
    assert totals == sorted(totals)


def test_mask_fills_go_from_minus_infinity_to_zero():
    assert MASK_FILLS[0] == -np.inf and MASK_FILLS[-1] == 0.0
    assert list(MASK_FILLS) == sorted(MASK_FILLS)


@given(scores, st.sampled_from(MASK_FILLS))
def test_rows_sum_to_one_whatever_the_fill(s, fill):
    allowed = causal_mask(len(s))
    w = softmax(s + np.where(allowed, 0.0, fill))
    np.testing.assert_allclose(w.sum(axis=-1), 1.0, rtol=1e-12)
    leak = hidden_weight(w, allowed)
    assert np.all((leak >= 0) & (leak <= 1 + 1e-12))


@given(scores)
def test_minus_infinity_leaks_nothing_and_zero_is_no_mask(s):
    allowed = causal_mask(len(s))
    assert np.all(hidden_weight(softmax(s + np.where(allowed, 0.0, -np.inf)), allowed) == 0.0)
    unmasked = softmax(s)
    np.testing.assert_allclose(
        hidden_weight(softmax(s + np.where(allowed, 0.0, 0.0)), allowed),
        np.triu(unmasked, k=1).sum(axis=-1),
        atol=1e-12,
    )


# --- sliding_window_mask --------------------------------------------------------


def test_sliding_window_hand_computed():
    # window 2: each position sees itself and its left neighbour
    expected = np.array(
        [
            [1, 0, 0, 0],
            [1, 1, 0, 0],
            [0, 1, 1, 0],
            [0, 0, 1, 1],
        ],
        dtype=bool,
    )
    np.testing.assert_array_equal(sliding_window_mask(4, 2), expected)
    assert sliding_window_mask(4, 2).dtype == bool
    # window 3 on 5 tokens: the last row sees positions 2, 3, 4
    np.testing.assert_array_equal(sliding_window_mask(5, 3)[4], [False, False, True, True, True])
    assert sliding_window_mask(0, 3).shape == (0, 0)


def test_window_1_sees_only_itself():
    np.testing.assert_array_equal(sliding_window_mask(6, 1), np.eye(6, dtype=bool))


@given(st.integers(0, 12), st.integers(0, 5))
def test_a_window_at_least_n_is_the_causal_mask(n, extra):
    np.testing.assert_array_equal(sliding_window_mask(n, max(n, 1) + extra), causal_mask(n))


@given(st.integers(1, 12), st.integers(1, 12))
def test_sliding_window_sees_at_most_window_keys_and_never_the_right(n, window):
    allowed = sliding_window_mask(n, window)
    assert not np.any(allowed & ~causal_mask(n))  # nothing to the right
    np.testing.assert_array_equal(allowed.sum(axis=1), np.minimum(np.arange(n) + 1, window))
    assert np.all(np.diag(allowed))  # every position sees itself, so no row is empty


@pytest.mark.parametrize(("n", "window"), [(4, 0), (4, -1), (-1, 2), (4, 1.5), (True, 2)])
def test_sliding_window_rejects_bad_sizes(n, window):
    with pytest.raises(ValueError):
        sliding_window_mask(n, window)
