"""Why attention divides by √d_k: the spread of dot products, softmax going
one-hot, and the vanishing gradient of a one-hot softmax (LESSONS.md §3)."""

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

    def first_above(self, threshold: float) -> int | None:
        """The smallest measured d_k whose raw spread exceeds ``threshold`` (None if none does)."""
        above = np.flatnonzero(self.std_raw > threshold)
        return int(self.d_k[above[0]]) if above.size else None


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


def random_scores(n: int, rng: np.random.Generator) -> np.ndarray:
    """n scores z_i ~ N(0, 1): a pattern that ``softmax_at_spreads`` stretches to any spread.

    Shapes: -> [n]
    """
    return rng.standard_normal(n)


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
    """softmax(σ z) for one score pattern z at several spreads σ.

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
    """Stretch the scores z to spread σ (s = σ z) and softmax them: the larger σ, the
    more the weights pile onto the largest score.

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
    z ~ N(0, 1)^n, for each spread σ: the typical gradient size at that spread.

    Shapes: spreads [m] -> [m]
    """
    spreads = np.asarray(spreads, dtype=float)
    z = rng.standard_normal((n_draws, n))
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
