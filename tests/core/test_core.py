"""Layer 1: lesson_core against hand-computed cases, the course's seed
figures, and properties that must hold for any input."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from lesson_core import (
    causal_mask,
    equal_average,
    linear_map,
    multi_head_attention,
    residual,
    scaled_dot_product_attention,
    sinusoidal_encoding,
    softmax,
)
from lesson_core.examples import (
    CHAPTER,
    LINEAR_MAP_INPUT,
    LINEAR_MAP_WEIGHTS,
    PRONOUN,
    TOY,
    W_KEY,
    W_QUERY,
    WANTED_SUKI,
)
from lesson_core.worked import attention_by_hand, linear_map_terms

finite = st.floats(-1e300, 1e300, allow_nan=False, allow_infinity=False)
rows = arrays(np.float64, st.tuples(st.integers(1, 6), st.integers(1, 8)), elements=finite)
small = st.floats(-10, 10, allow_nan=False)


# --- softmax -----------------------------------------------------------------


def test_softmax_hand_computed():
    # softmax([0, ln 3]) = [1/4, 3/4]
    np.testing.assert_allclose(softmax(np.array([0.0, np.log(3.0)])), [0.25, 0.75])


def test_softmax_infinities_and_fully_masked_rows():
    w = softmax(np.array([[1.0, -np.inf, 1.0], [-np.inf, -np.inf, -np.inf], [np.inf, 0.0, -np.inf]]))
    assert w[0, 1] == 0.0
    np.testing.assert_allclose(w[0], [0.5, 0.0, 0.5])
    assert np.all(w[1] == 0.0)
    np.testing.assert_allclose(w[2], [1.0, 0.0, 0.0])


def test_softmax_extremes_of_the_float_range():
    np.testing.assert_allclose(softmax(np.array([1e300, -1e300])), [1.0, 0.0])
    np.testing.assert_allclose(softmax(np.array([1e300, 1e300])), [0.5, 0.5])
    np.testing.assert_allclose(softmax(np.array([-1e300, -1e300, -1e300])), [1 / 3] * 3)


@given(rows)
def test_softmax_rows_sum_to_one_and_stay_finite(x):
    w = softmax(x)
    assert np.all(np.isfinite(w))
    assert np.all(w >= 0)
    np.testing.assert_allclose(w.sum(axis=-1), 1.0, rtol=1e-12)


@given(arrays(np.float64, st.integers(1, 8), elements=small), small)
def test_softmax_is_shift_invariant(x, c):
    np.testing.assert_allclose(softmax(x + c), softmax(x), atol=1e-12)


# --- attention ---------------------------------------------------------------


def test_linear_map_worked_example():
    np.testing.assert_allclose(linear_map(LINEAR_MAP_INPUT, LINEAR_MAP_WEIGHTS), [2.0, 4.0])


def test_example_d_step_by_step():
    r = scaled_dot_product_attention(TOY.queries, TOY.vectors, TOY.vectors)
    np.testing.assert_allclose(r.scores[0], [0.0, 4.0, 2.0])
    np.testing.assert_allclose(r.scaled_scores[0], [0.0, 2.83, 1.41], atol=5e-3)
    np.testing.assert_allclose(r.weights[0], [0.045, 0.768, 0.187], atol=5e-4)
    np.testing.assert_allclose(r.output[0], [0.28, 1.72], atol=5e-3)


def test_example_c_default_query_of_sore():
    it = PRONOUN.index("それ")
    kv = PRONOUN.vectors
    r = scaled_dot_product_attention(PRONOUN.queries, kv, kv, mask=causal_mask(len(kv)))
    expected = [0.188, 0.015, 0.657, 0.015, 0.061, 0.025, 0.037, 0.0, 0.0, 0.0]
    np.testing.assert_allclose(r.weights[it], expected, atol=5e-4)
    np.testing.assert_allclose(r.output[it], [1.23, 2.01, 0.18, 0.12], atol=5e-3)


# Example C's whole masked weight map, row by row in %, to 0.1 (temperature 1, ÷√4).
PRONOUN_MAP = [
    [100.0],
    [81.8, 18.2],
    [50.0, 11.1, 38.9],
    [32.3, 7.2, 53.3, 7.2],
    [29.4, 1.9, 62.3, 1.9, 4.5],
    [10.5, 10.5, 10.5, 10.5, 47.3, 10.5],
    [18.8, 1.5, 65.7, 1.5, 6.1, 2.5, 3.7],
    [26.7, 3.6, 44.0, 3.6, 7.6, 4.6, 6.3, 3.6],
    [3.1, 3.1, 61.7, 3.1, 5.1, 3.1, 4.1, 3.1, 13.8],
    [7.9, 3.7, 45.2, 3.7, 11.4, 3.7, 5.0, 3.7, 11.4, 4.2],
]


def test_example_c_whole_masked_map():
    kv = PRONOUN.vectors
    r = scaled_dot_product_attention(PRONOUN.queries, kv, kv, mask=causal_mask(len(kv)))
    for i, row in enumerate(PRONOUN_MAP):
        assert [round(100 * w, 1) for w in r.weights[i, : i + 1]] == row, PRONOUN.tokens[i]
        assert np.all(r.weights[i, i + 1 :] == 0.0)
    # the fresh thing is the fish: 新鮮 gathers 魚 most
    fresh, fish = PRONOUN.index("新鮮"), PRONOUN.index("魚")
    assert int(np.argmax(r.weights[fresh])) == fish


def test_example_c_keeps_the_seed_keys_and_query_of_sore():
    np.testing.assert_array_equal(
        PRONOUN.vectors[:7],
        [
            [3, 0, 0, 0],
            [0, 0, 0, 2],
            [1, 3, 0, 0],
            [0, 0, 0, 2],
            [0, 0.5, 3, 0],
            [0, 0, 0, 1],
            [0.3, 0.3, 0, 1],
        ],
    )
    np.testing.assert_array_equal(PRONOUN.queries[PRONOUN.index("それ")], [1.0, 1.5, 0.0, -1.0])


def test_example_d_by_hand_rounds_to_769_and_186():
    h = attention_by_hand(TOY.queries[0], TOY.vectors, TOY.vectors)
    np.testing.assert_array_equal(h.scores, [0.0, 4.0, 2.0])
    np.testing.assert_array_equal(h.scaled, [0.0, 2.83, 1.41])
    np.testing.assert_array_equal(h.exps, [1.0, 16.95, 4.10])
    assert h.total == pytest.approx(22.05)
    np.testing.assert_allclose(h.weights, [0.045, 0.769, 0.186])
    np.testing.assert_allclose(h.exact, [0.04539, 0.76792, 0.18669], atol=1e-5)
    np.testing.assert_allclose(h.output, [0.276, 1.724], atol=1e-9)


def test_linear_map_terms_are_each_outputs_weighted_sum():
    terms = linear_map_terms(LINEAR_MAP_INPUT, LINEAR_MAP_WEIGHTS)
    # y_1 = 2 · 0.5 + 1 · 1 = 2, y_2 = 2 · 1 + 1 · 2 = 4
    np.testing.assert_array_equal(terms, [[1.0, 1.0], [2.0, 2.0]])
    np.testing.assert_array_equal(terms.sum(axis=1), [2.0, 4.0])


def test_example_a_with_q_equal_k_suki_weighs_itself_heavily():
    x, sk = CHAPTER.vectors, CHAPTER.index("すき")
    w = scaled_dot_product_attention(x, x, x).weights[sk]
    assert round(100 * w[sk], 1) == 26.3
    # through two different matrices the same token gives two different vectors
    q, k = linear_map(x[sk], W_QUERY), linear_map(x[sk], W_KEY)
    assert not np.allclose(q, k)


def test_wanted_weights_of_suki_are_a_distribution():
    assert WANTED_SUKI.sum() == pytest.approx(1.0)
    assert int(np.argmax(WANTED_SUKI)) == CHAPTER.index("ひるね")


def test_example_c_mask_off_lets_cat_see_fish_and_ate():
    kv, cat = PRONOUN.vectors, PRONOUN.index("猫")
    masked = scaled_dot_product_attention(PRONOUN.queries, kv, kv, mask=causal_mask(len(kv)))
    open_ = scaled_dot_product_attention(PRONOUN.queries, kv, kv)
    assert masked.weights[cat, cat] == 1.0
    top_two = set(np.argsort(open_.weights[cat])[-2:])
    assert top_two == {PRONOUN.index("魚"), PRONOUN.index("食べた")}


def test_example_a_suki_attends_to_hirune_and_suki_beside_a_uniform_average():
    x, sk = CHAPTER.vectors, CHAPTER.index("すき")
    r = scaled_dot_product_attention(x, x, x)
    assert set(np.argsort(r.weights[sk])[-2:]) == {CHAPTER.index("ひるね"), sk}
    plain = equal_average(x)
    np.testing.assert_allclose(plain.weights, np.full((5, 5), 0.2))
    np.testing.assert_allclose(plain.output[sk], x.mean(axis=0))


def test_causal_mask_and_masked_weights_are_exactly_zero():
    np.testing.assert_array_equal(causal_mask(3), [[1, 0, 0], [1, 1, 0], [1, 1, 1]])
    rng = np.random.default_rng(0)
    q, k, v = rng.normal(size=(3, 5, 4))
    w = scaled_dot_product_attention(q, k, v, mask=causal_mask(5)).weights
    assert np.all(w[np.triu_indices(5, 1)] == 0.0)


big = st.floats(-1e150, 1e150, allow_nan=False)  # q·k of three such terms stays finite


@settings(max_examples=50)
@given(
    arrays(np.float64, (4, 3), elements=big),
    arrays(np.float64, (4, 3), elements=big),
    st.floats(0.05, 20),
)
def test_attention_weights_finite_rows_sum_to_one_for_huge_inputs(q, k, temperature):
    r = scaled_dot_product_attention(q, k, k, mask=causal_mask(4), temperature=temperature)
    assert np.all(np.isfinite(r.weights))
    np.testing.assert_allclose(r.weights.sum(axis=-1), 1.0)
    assert np.all(r.weights[np.triu_indices(4, 1)] == 0.0)


def test_temperature_flattens_and_sharpens():
    kv, it = PRONOUN.vectors, PRONOUN.index("それ")
    top = [
        scaled_dot_product_attention(PRONOUN.queries, kv, kv, temperature=t).weights[it].max()
        for t in (0.25, 1.0, 4.0)
    ]
    assert top[0] > top[1] > top[2]
    with pytest.raises(ValueError):
        scaled_dot_product_attention(PRONOUN.queries, kv, kv, temperature=0.0)


def test_residual_adds_back():
    np.testing.assert_allclose(residual(np.array([1.0, 2.0]), np.array([0.5, -1.0])), [1.5, 1.0])


# --- positions ---------------------------------------------------------------


def test_sinusoidal_encoding_hand_values():
    pe = sinusoidal_encoding(12, 8)
    assert pe.shape == (12, 8)
    np.testing.assert_allclose(pe[0], [0, 1, 0, 1, 0, 1, 0, 1], atol=1e-15)
    # pos 1: dims 0/1 use angle 1, dims 2/3 use 1/10000^(2/8) = 0.1
    np.testing.assert_allclose(pe[1, :4], [np.sin(1), np.cos(1), np.sin(0.1), np.cos(0.1)])
    assert len({tuple(np.round(r, 12)) for r in pe}) == 12  # every position distinct


def test_sinusoidal_encoding_rejects_odd_width():
    with pytest.raises(ValueError):
        sinusoidal_encoding(4, 5)
    assert sinusoidal_encoding(0, 4).shape == (0, 4)


# --- heads -------------------------------------------------------------------


@settings(max_examples=30)
@given(arrays(np.float64, (5, 4), elements=small))
def test_one_head_with_identity_projections_is_plain_attention(x):
    eye = np.eye(4)
    mh = multi_head_attention(x, eye, eye, eye, eye, n_heads=1, mask=causal_mask(5))
    plain = scaled_dot_product_attention(x, x, x, mask=causal_mask(5))
    np.testing.assert_allclose(mh.output, plain.output, atol=1e-12)
    np.testing.assert_allclose(mh.weights[0], plain.weights, atol=1e-12)


def test_heads_are_slices_of_the_projections():
    rng = np.random.default_rng(1)
    x = rng.normal(size=(6, 8))
    w_q, w_k, w_v, w_o = rng.normal(size=(4, 8, 8))
    mh = multi_head_attention(x, w_q, w_k, w_v, w_o, n_heads=2)
    assert mh.weights.shape == (2, 6, 6) and mh.head_outputs.shape == (2, 6, 4)
    second = scaled_dot_product_attention(x @ w_q[:, 4:], x @ w_k[:, 4:], x @ w_v[:, 4:])
    np.testing.assert_allclose(mh.weights[1], second.weights)
    np.testing.assert_allclose(mh.concat[:, 4:], second.output)
    np.testing.assert_allclose(mh.output, mh.concat @ w_o)
    with pytest.raises(ValueError):
        multi_head_attention(x, w_q, w_k, w_v, w_o, n_heads=3)
