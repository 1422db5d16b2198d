"""Why attention divides by √d_k: the spread of dot products, softmax going
one-hot, and the vanishing gradient of a one-hot softmax."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from lesson_core.attention import softmax


@dataclass(frozen=True)
class DotProductSpread:
    """The measured spread of q·k for several d_k.

    d_k        [m]  the vector sizes measured
    expected   [m]  √d_k, the spread the theory predicts
    std_raw    [m]  standard deviation of q·k over the samples
    std_scaled [m]  standard deviation of q·k / √d_k (about 1 for every d_k)
    """

    d_k: np.ndarray
    expected: np.ndarray
    std_raw: np.ndarray
    std_scaled: np.ndarray


def dot_product_spread(d_ks: np.ndarray, n_samples: int, rng: np.random.Generator) -> DotProductSpread:
    """Measure std(q·k) and std(q·k / √d_k) for random q, k with independent N(0, 1) components.

    q·k = Σ_{i=1}^{d_k} q_i k_i sums d_k independent products of variance 1, so
    Var(q·k) = d_k and std(q·k) = √d_k; dividing by √d_k brings it back to 1.
    Every d_k gets its own ``n_samples`` fresh pairs (q, k).

    Shapes: d_ks [m] -> each field [m]
    """
    d_ks = np.asarray(d_ks, dtype=int)
    if d_ks.ndim != 1 or d_ks.size == 0 or np.any(d_ks < 1):
        raise ValueError("d_ks must be a non-empty list of positive integers")
    if n_samples < 2:
        raise ValueError("n_samples must be at least 2 to measure a spread")
    std_raw = np.empty(d_ks.size)
    for i, d in enumerate(d_ks):
        q = rng.standard_normal((n_samples, d))
        k = rng.standard_normal((n_samples, d))
        std_raw[i] = np.std(np.einsum("sd,sd->s", q, k), ddof=1)
    expected = np.sqrt(d_ks.astype(float))
    return DotProductSpread(d_k=d_ks, expected=expected, std_raw=std_raw, std_scaled=std_raw / expected)


def standardise(z: np.ndarray) -> np.ndarray:
    """(z − mean(z)) / std(z) along the last axis: mean exactly 0 and standard deviation
    exactly 1 (the population one, dividing by n), so that σ · z has spread exactly σ.

    Shapes: z [..., n] -> [..., n]
    """
    z = np.asarray(z, dtype=float)
    centred = z - np.mean(z, axis=-1, keepdims=True)
    spread = np.sqrt(np.mean(centred**2, axis=-1, keepdims=True))
    if np.any(spread == 0):
        raise ValueError("scores that are all equal have no spread to standardise")
    return centred / spread


def random_scores(n: int, rng: np.random.Generator) -> np.ndarray:
    """n random scores, standardised: z_i drawn from N(0, 1), then shifted and stretched
    so that their mean is exactly 0 and their standard deviation exactly 1. A pattern
    that ``softmax_at_spreads`` stretches to any spread σ.

    Shapes: -> [n]
    """
    if n < 2:
        raise ValueError("n must be at least 2 for scores to have a spread")
    return standardise(rng.standard_normal(n))


@dataclass(frozen=True)
class TopWeights:
    """The average largest softmax weight of one random query against random keys.

    d_k     [m]  the vector sizes measured
    raw     [m]  mean of max_j softmax(q·k_j)_j, the scores not divided
    scaled  [m]  mean of max_j softmax(q·k_j / √d_k)_j
    """

    d_k: np.ndarray
    raw: np.ndarray
    scaled: np.ndarray

    def first_raw_above(self, threshold: float) -> int | None:
        """The smallest measured d_k whose ``raw`` top weight exceeds ``threshold`` (None if none)."""
        above = np.flatnonzero(self.raw > threshold)
        return int(self.d_k[above[0]]) if above.size else None


def mean_top_weight(d_ks: np.ndarray, n_keys: int, n_draws: int, rng: np.random.Generator) -> TopWeights:
    """For each d_k, ``n_draws`` times: one query q and ``n_keys`` keys k_j with independent
    N(0, 1) components; the largest weight of softmax(q·k_j) and of softmax(q·k_j / √d_k),
    averaged over the draws. Without the division the largest weight creeps towards 1
    (one-hot) as d_k grows; with it, it stays about the same.

    Shapes: d_ks [m] -> each field [m]
    """
    d_ks = np.asarray(d_ks, dtype=int)
    if d_ks.ndim != 1 or d_ks.size == 0 or np.any(d_ks < 1):
        raise ValueError("d_ks must be a non-empty list of positive integers")
    if n_keys < 1 or n_draws < 1:
        raise ValueError("n_keys and n_draws must be positive")
    raw, scaled = np.empty(d_ks.size), np.empty(d_ks.size)
    for i, d in enumerate(d_ks):
        q = rng.standard_normal((n_draws, 1, d))
        k = rng.standard_normal((n_draws, n_keys, d))
        s = np.einsum("bqd,bkd->bk", q, k)
        raw[i] = np.mean(np.max(softmax(s), axis=-1))
        scaled[i] = np.mean(np.max(softmax(s / np.sqrt(d)), axis=-1))
    return TopWeights(d_k=d_ks, raw=raw, scaled=scaled)


def softmax_jacobian(p: np.ndarray) -> np.ndarray:
    """J = diag(p) − p pᵀ, the Jacobian of p = softmax(s): J_ij = ∂p_i/∂s_j = p_i (δ_ij − p_j).

    It says how much each weight moves when one score moves a little. When p is
    nearly one-hot (one p_i ≈ 1, the others ≈ 0) every entry is nearly 0, so a
    gradient passing back through the softmax almost vanishes. J is symmetric
    and each row sums to 0 (the weights always sum to 1).

    Shapes: p [..., n] -> [..., n, n]
    """
    p = np.asarray(p, dtype=float)
    return p[..., :, None] * np.eye(p.shape[-1]) - p[..., :, None] * p[..., None, :]


def jacobian_size(p: np.ndarray) -> np.ndarray:
    """‖J‖_F = √(Σ_ij J_ij²), the Frobenius norm of ``softmax_jacobian(p)``: one number for
    how strongly the weights react to the scores (0 for a one-hot p).

    Shapes: p [..., n] -> [...]
    """
    return np.sqrt(np.sum(softmax_jacobian(p) ** 2, axis=(-2, -1)))


def entropy(p: np.ndarray) -> np.ndarray:
    """H(p) = −Σ_i p_i log₂ p_i, in bits, with 0 · log 0 = 0.

    0 bits for a one-hot p; log₂ n bits (the maximum) when n weights are equal.

    Shapes: p [..., n] -> [...]
    """
    p = np.asarray(p, dtype=float)
    positive = p > 0
    logs = np.log2(np.where(positive, p, 1.0))
    return np.maximum(-np.sum(np.where(positive, p * logs, 0.0), axis=-1), 0.0)


def max_entropy(n: int) -> float:
    """log₂ n: the entropy of n equal weights, the most spread out they can be (in bits)."""
    return float(np.log2(n))


@dataclass(frozen=True)
class SpreadSoftmax:
    """softmax(σ z) for one score pattern z at several spreads σ. When z is standardised
    (mean 0, standard deviation 1, as ``random_scores`` gives), σ is exactly the standard
    deviation of the scores σ z.

    spreads        [m]     the spreads σ
    scores         [m, n]  σ z
    weights        [m, n]  softmax of each row
    top            [m]     the largest weight of each row
    entropy        [m]     entropy of each row, in bits
    jacobian_size  [m]     ‖diag(p) − p pᵀ‖_F of each row
    """

    spreads: np.ndarray
    scores: np.ndarray
    weights: np.ndarray
    top: np.ndarray
    entropy: np.ndarray
    jacobian_size: np.ndarray


def softmax_at_spreads(z: np.ndarray, spreads: np.ndarray) -> SpreadSoftmax:
    """Stretch the scores z by σ (s = σ z) and softmax them: the larger σ, the more the
    weights pile onto the largest score. For a standardised z, σ is the spread of s.

    Shapes: z [n], spreads [m] -> scores, weights [m, n]; top, entropy, jacobian_size [m]
    """
    spreads = np.asarray(spreads, dtype=float)
    if not np.all(np.isfinite(spreads)) or np.any(spreads < 0):
        raise ValueError("spreads must be finite and non-negative")
    scores = spreads[:, None] * np.asarray(z, dtype=float)[None, :]
    weights = softmax(scores)
    return SpreadSoftmax(
        spreads=spreads,
        scores=scores,
        weights=weights,
        top=np.max(weights, axis=-1),
        entropy=entropy(weights),
        jacobian_size=jacobian_size(weights),
    )


def mean_jacobian_size(spreads: np.ndarray, n: int, n_draws: int, rng: np.random.Generator) -> np.ndarray:
    """The average of ‖softmax_jacobian(softmax(σ z))‖_F over ``n_draws`` random patterns
    z (each drawn from N(0, 1)^n, then standardised like ``random_scores``), for each
    spread σ: the typical gradient size at that spread.

    Shapes: spreads [m] -> [m]
    """
    spreads = np.asarray(spreads, dtype=float)
    z = standardise(rng.standard_normal((n_draws, n)))
    weights = softmax(spreads[:, None, None] * z[None, :, :])
    return np.mean(jacobian_size(weights), axis=-1)


def spread_grid(low: float, high: float, per_doubling: int = 4) -> np.ndarray:
    """Spreads from ``low`` to ``high`` evenly spaced on a log scale, ``per_doubling`` per factor 2.

    Shapes: -> [m]
    """
    steps = round(float(np.log2(high / low)) * per_doubling)
    return low * 2.0 ** (np.arange(steps + 1) / per_doubling)


def unscaled_temperature(d_k: int) -> float:
    """1 / √d_k: the temperature at which q·k / (√d_k · T) = q·k, i.e. the ÷√d_k is undone."""
    return float(1.0 / np.sqrt(d_k))
