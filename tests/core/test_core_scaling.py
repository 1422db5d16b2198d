"""Layer 1 for lesson 3 (scaling): lesson_core.scaling against hand-computed
cases, finite differences, the figures the lesson quotes and properties."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from lesson_core import causal_mask, scaled_dot_product_attention, softmax
from lesson_core.examples import PRONOUN
from lesson_core.scaling import (
    dot_product_spread,
    entropy,
    jacobian_size,
    max_entropy,
    mean_jacobian_size,
    mean_top_weight,
    random_scores,
    softmax_at_spreads,
    softmax_jacobian,
    spread_grid,
    standardise,
    unscaled_temperature,
)

scores = arrays(np.float64, st.integers(2, 8), elements=st.floats(-5, 5, allow_nan=False))
D_KS = 2 ** np.arange(10)

# --- softmax_jacobian ----------------------------------------------------------


def test_jacobian_hand_computed():
    # p = [1/2, 1/2]: diag(p) − p pᵀ = [[1/2 − 1/4, −1/4], [−1/4, 1/2 − 1/4]]
    np.testing.assert_allclose(softmax_jacobian(np.array([0.5, 0.5])), [[0.25, -0.25], [-0.25, 0.25]])
    # p = [0.2, 0.8]: J_11 = 0.2·0.8, J_12 = −0.2·0.8, J_22 = 0.8·0.2
    np.testing.assert_allclose(softmax_jacobian(np.array([0.2, 0.8])), [[0.16, -0.16], [-0.16, 0.16]])
    # one-hot: every entry is exactly 0
    assert np.all(softmax_jacobian(np.array([0.0, 1.0, 0.0])) == 0.0)


def test_jacobian_of_a_batch_has_one_matrix_per_row():
    p = np.array([[0.5, 0.5], [1.0, 0.0]])
    j = softmax_jacobian(p)
    assert j.shape == (2, 2, 2)
    np.testing.assert_allclose(j[0], softmax_jacobian(p[0]))
    assert np.all(j[1] == 0.0)


@settings(max_examples=60)
@given(scores)
def test_jacobian_matches_finite_differences(s):
    h = 1e-6
    numeric = np.empty((s.size, s.size))
    for j in range(s.size):
        step = np.zeros(s.size)
        step[j] = h
        numeric[:, j] = (softmax(s + step) - softmax(s - step)) / (2 * h)
    np.testing.assert_allclose(softmax_jacobian(softmax(s)), numeric, atol=1e-8)


@given(scores)
def test_jacobian_is_symmetric_and_rows_sum_to_zero(s):
    j = softmax_jacobian(softmax(s))
    np.testing.assert_allclose(j, j.T, atol=1e-15)
    np.testing.assert_allclose(j.sum(axis=1), 0.0, atol=1e-12)


def test_jacobian_size_hand_computed():
    # [1/2, 1/2]: four entries of ±1/4, so ‖J‖_F = √(4/16) = 1/2
    np.testing.assert_allclose(jacobian_size(np.array([0.5, 0.5])), 0.5)
    # n equal weights: ‖J‖_F² = n (1/n − 1/n²)² + n(n − 1)/n⁴ = (n − 1)/n²
    for n in (3, 7, 12):
        np.testing.assert_allclose(jacobian_size(np.full(n, 1 / n)), np.sqrt(n - 1) / n)
    assert jacobian_size(np.array([1.0, 0.0, 0.0])) == 0.0


# --- entropy -------------------------------------------------------------------


def test_entropy_hand_computed_in_bits():
    np.testing.assert_allclose(entropy(np.array([0.5, 0.5])), 1.0)
    np.testing.assert_allclose(entropy(np.full(4, 0.25)), 2.0)
    np.testing.assert_allclose(entropy(np.array([0.5, 0.25, 0.25])), 1.5)
    assert entropy(np.array([0.0, 1.0, 0.0])) == 0.0  # 0 · log 0 counts as 0, no NaN
    np.testing.assert_allclose(entropy(np.array([[1.0, 0.0], [0.5, 0.5]])), [0.0, 1.0])
    np.testing.assert_allclose(max_entropy(8), 3.0)
    np.testing.assert_allclose(max_entropy(7), np.log2(7))


@given(arrays(np.float64, st.integers(1, 10), elements=st.floats(-1e300, 1e300, allow_nan=False)))
def test_entropy_of_any_softmax_is_between_0_and_log2_n(s):
    h = entropy(softmax(s))
    assert np.isfinite(h)
    assert -1e-12 <= h <= max_entropy(s.size) + 1e-9


# --- the spread of dot products ------------------------------------------------


def test_dot_product_spread_follows_sqrt_dk():
    sweep = dot_product_spread(D_KS, 4000, np.random.default_rng(0))
    np.testing.assert_array_equal(sweep.d_k, D_KS)
    np.testing.assert_allclose(sweep.expected, np.sqrt(D_KS))
    # 4000 samples measure a spread to within a few per cent
    np.testing.assert_allclose(sweep.std_raw, np.sqrt(D_KS), rtol=0.06)
    np.testing.assert_allclose(sweep.std_scaled, 1.0, rtol=0.06)
    np.testing.assert_allclose(sweep.std_scaled * sweep.expected, sweep.std_raw)


def test_dot_product_spread_is_reproducible_and_uses_the_rng():
    a = dot_product_spread(np.array([1, 8]), 500, np.random.default_rng(3))
    b = dot_product_spread(np.array([1, 8]), 500, np.random.default_rng(3))
    c = dot_product_spread(np.array([1, 8]), 500, np.random.default_rng(4))
    np.testing.assert_array_equal(a.std_raw, b.std_raw)
    assert not np.allclose(a.std_raw, c.std_raw)


def test_dot_product_spread_matches_a_direct_measurement():
    rng = np.random.default_rng(7)
    q, k = rng.standard_normal((300, 16)), rng.standard_normal((300, 16))
    expected = np.std(np.sum(q * k, axis=1), ddof=1)
    sweep = dot_product_spread(np.array([16]), 300, np.random.default_rng(7))
    np.testing.assert_allclose(sweep.std_raw, [expected])
    np.testing.assert_allclose(sweep.std_scaled, [expected / 4])


@pytest.mark.parametrize(("d_ks", "n"), [([], 100), ([0, 4], 100), ([4], 1), ([[4]], 100)])
def test_dot_product_spread_rejects_bad_arguments(d_ks, n):
    with pytest.raises(ValueError):
        dot_product_spread(np.array(d_ks, dtype=int), n, np.random.default_rng(0))


# --- softmax at several spreads ------------------------------------------------


def test_random_scores_are_standardised_so_sigma_is_the_real_spread():
    raw = np.random.default_rng(0).standard_normal(12)
    z = random_scores(12, np.random.default_rng(0))
    # the same draw, shifted and stretched: mean exactly 0, standard deviation exactly 1
    np.testing.assert_allclose(z, (raw - raw.mean()) / raw.std())
    np.testing.assert_allclose([z.mean(), z.std()], [0.0, 1.0], atol=1e-12)
    # so σ · z has standard deviation σ (the unstandardised draw would give about 5.6 at σ = 8)
    np.testing.assert_allclose(np.std(8 * z), 8.0)
    assert abs(np.std(8 * raw) - 8.0) > 2


def test_standardise_hand_computed_and_rejects_flat_scores():
    # [1, 2, 3]: mean 2, population std √(2/3)
    np.testing.assert_allclose(standardise(np.array([1.0, 2.0, 3.0])), np.array([-1, 0, 1]) / np.sqrt(2 / 3))
    np.testing.assert_allclose(standardise(np.array([[0.0, 2.0], [5.0, 1.0]])), [[-1, 1], [1, -1]])
    with pytest.raises(ValueError):
        standardise(np.array([3.0, 3.0, 3.0]))
    with pytest.raises(ValueError):
        random_scores(1, np.random.default_rng(0))


@given(arrays(np.float64, st.integers(2, 12), elements=st.floats(-100, 100, allow_nan=False)))
def test_standardise_gives_mean_0_and_spread_1(x):
    if np.ptp(x) < 1e-6:
        return
    z = standardise(x)
    np.testing.assert_allclose([np.mean(z), np.std(z)], [0.0, 1.0], atol=1e-9)


def test_spread_8_against_spread_1_with_a_fixed_seed():
    z = random_scores(12, np.random.default_rng(0))
    res = softmax_at_spreads(z, [8.0, 1.0])
    np.testing.assert_allclose(res.scores, [8 * z, z])
    np.testing.assert_allclose(np.std(res.scores, axis=1), [8.0, 1.0])
    np.testing.assert_allclose(res.weights[0], np.exp(8 * z) / np.exp(8 * z).sum())
    np.testing.assert_allclose(res.weights[1], np.exp(z) / np.exp(z).sum())
    # spread 8 is nearly one-hot, spread 1 is not
    assert res.top[0] > 0.9 > 0.5 > res.top[1]
    assert int(np.argmax(res.weights[0])) == int(np.argmax(res.weights[1])) == int(np.argmax(z))
    assert res.entropy[0] < res.entropy[1]
    assert res.jacobian_size[0] < res.jacobian_size[1]


def test_adding_the_same_number_to_every_score_changes_no_weight():
    z = random_scores(12, np.random.default_rng(2))
    np.testing.assert_allclose(softmax(z + 5.0), softmax(z))


def test_spread_zero_gives_equal_weights_and_huge_spread_one_hot():
    z = random_scores(12, np.random.default_rng(1))
    res = softmax_at_spreads(z, [0.0, 1e6])
    np.testing.assert_allclose(res.weights[0], 1 / 12)
    np.testing.assert_allclose(res.entropy[0], np.log2(12))
    np.testing.assert_allclose(res.jacobian_size[0], np.sqrt(11) / 12)
    np.testing.assert_allclose(res.top[1], 1.0)
    np.testing.assert_allclose(res.jacobian_size[1], 0.0, atol=1e-12)
    assert np.all(np.isfinite(res.weights))


@given(scores, st.floats(0, 50), st.floats(0, 50))
def test_larger_spread_means_larger_top_weight_and_lower_entropy(z, a, b):
    low, high = sorted((a, b))
    res = softmax_at_spreads(z, [low, high])
    assert res.top[1] >= res.top[0] - 1e-12
    assert res.entropy[1] <= res.entropy[0] + 1e-9


@pytest.mark.parametrize("bad", [[-1.0], [np.nan], [np.inf]])
def test_softmax_at_spreads_rejects_bad_spreads(bad):
    with pytest.raises(ValueError):
        softmax_at_spreads(np.ones(3), bad)


def test_mean_jacobian_size_peaks_near_1_and_vanishes_for_large_spreads():
    grid = spread_grid(0.25, 16.0)
    curve = mean_jacobian_size(grid, 12, 1000, np.random.default_rng(0))
    assert curve.shape == grid.shape
    assert 0.5 <= grid[np.argmax(curve)] <= 3.0
    assert curve[-1] < curve[0] / 2
    # tiny spread: close to the equal-weights value √11 / 12
    np.testing.assert_allclose(mean_jacobian_size([1e-6], 12, 10, np.random.default_rng(0)), np.sqrt(11) / 12)


def test_mean_jacobian_size_uses_standardised_patterns():
    grid = np.array([1.0, 8.0])
    z = standardise(np.random.default_rng(5).standard_normal((50, 12)))
    by_hand = [np.mean(jacobian_size(softmax(s * z))) for s in grid]
    np.testing.assert_allclose(mean_jacobian_size(grid, 12, 50, np.random.default_rng(5)), by_hand)


# --- the largest weight without ÷√d_k ------------------------------------------


def test_mean_top_weight_matches_a_direct_measurement():
    rng = np.random.default_rng(11)
    q, k = rng.standard_normal((200, 1, 16)), rng.standard_normal((200, 12, 16))
    s = np.einsum("bqd,bkd->bk", q, k)
    tops = mean_top_weight(np.array([16]), 12, 200, np.random.default_rng(11))
    np.testing.assert_allclose(tops.raw, [np.mean(np.max(softmax(s), axis=-1))])
    np.testing.assert_allclose(tops.scaled, [np.mean(np.max(softmax(s / 4), axis=-1))])


def test_without_scaling_the_top_weight_creeps_towards_one_hot():
    tops = mean_top_weight(D_KS, 12, 1000, np.random.default_rng(0))
    np.testing.assert_array_equal(tops.d_k, D_KS)
    # d_k = 1: nothing to divide, the two agree
    assert tops.raw[0] == tops.scaled[0]
    assert np.all(np.diff(tops.raw) > 0) and tops.raw[-1] > 0.9
    # divided by √d_k the largest weight stays between a quarter and a third
    assert np.all((tops.scaled > 0.2) & (tops.scaled < 0.35))
    first = tops.first_raw_above(0.9)
    assert first in (128, 256)
    assert tops.raw[list(D_KS).index(first) - 1] <= 0.9 < tops.raw[list(D_KS).index(first)]
    assert tops.first_raw_above(0.999) is None


@pytest.mark.parametrize(("d_ks", "keys", "draws"), [([], 12, 10), ([0], 12, 10), ([4], 0, 10), ([4], 12, 0)])
def test_mean_top_weight_rejects_bad_arguments(d_ks, keys, draws):
    with pytest.raises(ValueError):
        mean_top_weight(np.array(d_ks, dtype=int), keys, draws, np.random.default_rng(0))


def test_spread_grid():
    grid = spread_grid(0.25, 16.0)
    np.testing.assert_allclose(grid[[0, -1]], [0.25, 16.0])
    assert len(grid) == 25  # 6 doublings, 4 steps each
    np.testing.assert_allclose(grid[1:] / grid[:-1], 2**0.25)
    assert 1.0 in grid and 8.0 in grid


# --- temperature on example C --------------------------------------------------


def test_unscaled_temperature_undoes_the_division():
    assert unscaled_temperature(4) == 0.5
    q, k = PRONOUN.queries, PRONOUN.vectors
    res = scaled_dot_product_attention(q, k, k, temperature=unscaled_temperature(4))
    np.testing.assert_allclose(res.weights, softmax(q @ k.T))


def test_example_c_entropy_grows_with_the_temperature():
    it, kv, mask = PRONOUN.index("それ"), PRONOUN.vectors, causal_mask(10)

    def row(temperature):
        return scaled_dot_product_attention(
            PRONOUN.queries, kv, kv, mask=mask, temperature=temperature
        ).weights[it]

    # T = 1 is the attention lesson's row: 猫 18.8 %, 魚 65.7 %
    np.testing.assert_allclose(row(1.0)[[0, 2]], [0.188, 0.657], atol=5e-4)
    entropies = [float(entropy(row(t))) for t in (0.1, 0.5, 1.0, 2.0, 5.0)]
    assert entropies == sorted(entropies)
    assert entropies[0] < 0.01 and entropies[-1] > 2.5
    assert entropies[-1] < max_entropy(7)  # only the 7 visible tokens share the weight
