"""Multi-head attention: several attentions in parallel, then one projection."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from lesson_core.attention import scaled_dot_product_attention


@dataclass(frozen=True)
class MultiHeadResult:
    """output [n, d_model]; per head: scores, scaled_scores, weights [h, n, n],
    head_outputs [h, n, d_head]; concat [n, d_model] (before W_O)."""

    output: np.ndarray
    scores: np.ndarray
    scaled_scores: np.ndarray
    weights: np.ndarray
    head_outputs: np.ndarray
    concat: np.ndarray


def split_heads(x: np.ndarray, n_heads: int) -> np.ndarray:
    """Cut the last axis into ``n_heads`` equal slices, one per head.

    Shapes: x [n, d_model] -> [h, n, d_model / h]
    """
    n, d_model = x.shape
    if n_heads < 1 or d_model % n_heads:
        raise ValueError(f"n_heads must divide d_model={d_model}, got {n_heads}")
    return x.reshape(n, n_heads, d_model // n_heads).transpose(1, 0, 2)


def multi_head_attention(
    x: np.ndarray,
    w_q: np.ndarray,
    w_k: np.ndarray,
    w_v: np.ndarray,
    w_o: np.ndarray,
    n_heads: int,
    mask: np.ndarray | None = None,
) -> MultiHeadResult:
    """MultiHead(X) = Concat(head_1, ..., head_h) W_O,
    head_i = Attention(X W_Q[:, slice_i], X W_K[:, slice_i], X W_V[:, slice_i]).

    Shapes: x [n, d_model], each w [d_model, d_model] -> output [n, d_model]
    """
    x = np.asarray(x, dtype=float)
    q, k, v = (split_heads(x @ w, n_heads) for w in (w_q, w_k, w_v))
    att = scaled_dot_product_attention(q, k, v, mask=mask)
    concat = att.output.transpose(1, 0, 2).reshape(x.shape[0], -1)
    return MultiHeadResult(
        output=concat @ np.asarray(w_o, dtype=float),
        scores=att.scores,
        scaled_scores=att.scaled_scores,
        weights=att.weights,
        head_outputs=att.output,
        concat=concat,
    )
