"""Arithmetic written out the way a learner does it by hand.

The attention lesson shows one query's attention and one linear map step by
step, every intermediate number rounded as it would be on paper. These
functions return those intermediate numbers, so the page only formats them.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from lesson_core.attention import scaled_dot_product_attention
from lesson_core.rounding import half_up, half_up_array


def linear_map_terms(x: np.ndarray, w: np.ndarray) -> np.ndarray:
    """The products x_i · W_ij that y_j = Σ_i x_i W_ij adds up: each output
    is a weighted sum of the inputs, column j of W holding the weights.

    Shapes: x [d_in], w [d_in, d_out] -> [d_out, d_in] (row j: the terms of y_j)
    """
    x, w = np.asarray(x, dtype=float), np.asarray(w, dtype=float)
    return (x[:, None] * w).T


@dataclass(frozen=True)
class HandAttention:
    """One query's attention worked by hand, rounded to ``digits`` at each step.

    terms       [n_k, d]  q_i · k_i, the products each dot product adds up
    scores      [n_k]     q · k (exact: the inputs are small decimals)
    divisor     float     √d_k, rounded
    scaled      [n_k]     score / √d_k, rounded
    exps        [n_k]     e^scaled, rounded
    total       float     the sum of ``exps``
    weights     [n_k]     exps / total, from the rounded numbers
    exact       [n_k]     the weights computed without rounding (the tables)
    out_terms   [d, n_k]  weight_j · v_j for each output component
    output      [d]       the weighted sum of the values, from ``weights``
    """

    terms: np.ndarray
    scores: np.ndarray
    divisor: float
    scaled: np.ndarray
    exps: np.ndarray
    total: float
    weights: np.ndarray
    exact: np.ndarray
    out_terms: np.ndarray
    output: np.ndarray


def attention_by_hand(q: np.ndarray, k: np.ndarray, v: np.ndarray, digits: int = 2) -> HandAttention:
    """softmax(q · k / √d_k) and the weighted sum of v, one rounding per step
    (``digits`` decimals, half up: 四捨五入), as on paper. The weights are rounded to 3 decimals
    (one decimal of a percentage).

    Shapes: q [d_k], k [n_k, d_k], v [n_k, d_v]
    """
    q, k, v = (np.asarray(a, dtype=float) for a in (q, k, v))
    terms = k * q
    scores = terms.sum(axis=1)
    divisor = half_up(float(np.sqrt(q.shape[-1])), 3)
    scaled = half_up_array(scores / divisor, digits)
    exps = half_up_array(np.exp(scaled), digits)
    total = half_up(exps.sum(), digits)
    weights = half_up_array(exps / total, 3)
    exact = scaled_dot_product_attention(q[None], k, v).weights[0]
    out_terms = (weights[:, None] * v).T
    return HandAttention(
        terms=terms,
        scores=scores,
        divisor=divisor,
        scaled=scaled,
        exps=exps,
        total=total,
        weights=weights,
        exact=exact,
        out_terms=out_terms,
        output=out_terms.sum(axis=1),
    )
