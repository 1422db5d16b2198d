"""Softmax, the causal mask and scaled dot-product attention."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

NEG_INF = -np.inf


def softmax(x: np.ndarray, axis: int = -1) -> np.ndarray:
    """softmax(x)_i = exp(x_i - max x) / sum_j exp(x_j - max x).

    Stable for any input without NaN: the row maximum is subtracted first, +inf
    counts as the largest float, -inf gets weight exactly 0, and a row that is
    -inf everywhere (fully masked) gives all zeros instead of NaN.

    Shapes: x [..., n] -> [..., n]
    """
    x = np.minimum(np.asarray(x, dtype=float), np.finfo(float).max)
    top = np.max(x, axis=axis, keepdims=True)
    top = np.where(np.isfinite(top), top, 0.0)
    with np.errstate(over="ignore", under="ignore"):
        e = np.exp(x - top)
    total = np.sum(e, axis=axis, keepdims=True)
    return np.divide(e, total, out=np.zeros_like(e), where=total > 0)


def causal_mask(n: int) -> np.ndarray:
    """M_ij = True where query i may see key j, i.e. j <= i.

    Shapes: -> [n, n] (bool)
    """
    return np.tril(np.ones((n, n), dtype=bool))


def additive_mask(mask: np.ndarray, fill: float = NEG_INF) -> np.ndarray:
    """The mask as the matrix M added to the scores: 0 where allowed, ``fill`` elsewhere.

    ``fill`` is -inf in the model; the causal-mask lesson lets the learner try 0.

    Shapes: mask [n_q, n_k] (bool) -> [n_q, n_k]
    """
    return np.where(np.asarray(mask, dtype=bool), 0.0, fill)


def linear_map(x: np.ndarray, w: np.ndarray) -> np.ndarray:
    """y = x W, the learned map that turns a token vector into q, k or v.

    Shapes: x [..., d_in], w [d_in, d_out] -> [..., d_out]
    """
    return np.asarray(x, dtype=float) @ np.asarray(w, dtype=float)


def residual(x: np.ndarray, attended: np.ndarray) -> np.ndarray:
    """x + Attention(x): the token keeps its own vector and gains context.

    Shapes: x [n, d], attended [n, d] -> [n, d]
    """
    return np.asarray(x, dtype=float) + np.asarray(attended, dtype=float)


@dataclass(frozen=True)
class AttentionResult:
    """Everything one attention call computes, so a page never recomputes it.

    output        [..., n_q, d_v]  weights @ v
    scores        [..., n_q, n_k]  q · k
    scaled_scores [..., n_q, n_k]  scores / (sqrt(d_k) * temperature) + M
    weights       [..., n_q, n_k]  softmax of scaled_scores; rows sum to 1
    """

    output: np.ndarray
    scores: np.ndarray
    scaled_scores: np.ndarray
    weights: np.ndarray


def scaled_dot_product_attention(
    q: np.ndarray,
    k: np.ndarray,
    v: np.ndarray,
    mask: np.ndarray | None = None,
    temperature: float = 1.0,
    mask_fill: float = NEG_INF,
) -> AttentionResult:
    """Attention(Q, K, V) = softmax(Q Kᵀ / (√d_k · temperature) + M) V.

    ``mask`` is boolean, True where a query may see a key (see ``causal_mask``);
    the blocked scores get ``mask_fill`` added (-inf: their weight is exactly 0).
    ``temperature`` is the extra "scale strength" divisor: >1 flattens the
    weights, <1 sharpens them. Leading batch axes (e.g. heads) are kept.

    Shapes: q [..., n_q, d_k], k [..., n_k, d_k], v [..., n_k, d_v] -> output [..., n_q, d_v]
    """
    if not np.isfinite(temperature) or temperature <= 0:
        raise ValueError(f"temperature must be a positive number, got {temperature!r}")
    q, k, v = (np.asarray(a, dtype=float) for a in (q, k, v))
    scores = q @ np.swapaxes(k, -1, -2)
    scaled = scores / (np.sqrt(q.shape[-1]) * temperature)
    if mask is not None:
        scaled = scaled + additive_mask(mask, mask_fill)
    weights = softmax(scaled, axis=-1)
    return AttentionResult(output=weights @ v, scores=scores, scaled_scores=scaled, weights=weights)


def equal_average(v: np.ndarray, mask: np.ndarray | None = None) -> AttentionResult:
    """The plain average that attention improves on, written as attention with
    a zero query: every score is 0, so every visible token gets the same
    weight (1/5 = 0.2 each for five tokens).

    Shapes: v [n, d_v] -> output [n, d_v], weights [n, n]
    """
    n = np.asarray(v).shape[0]
    zeros = np.zeros((n, 1))
    return scaled_dot_product_attention(zeros, zeros, v, mask=mask)
