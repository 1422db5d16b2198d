"""Multi-head attention: several attentions in parallel, then one projection."""

from __future__ import annotations

from collections.abc import Sequence
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


# --- what the multi-head lesson shows -------------------------------------------


def divisors(n: int) -> list[int]:
    """Every h with n % h == 0, ascending: the head counts a width n allows.

    Shapes: -> [number of divisors]
    """
    if n < 1:
        raise ValueError(f"n must be a positive integer, got {n}")
    return [h for h in range(1, n + 1) if n % h == 0]


@dataclass(frozen=True)
class HeadShapes:
    """The shape of every step of multi-head attention for n tokens, width
    d_model and h heads (each a (rows, columns) pair), and the parameter count.

    x, w_q (one head's slice), q (one head), scores / weights (one head),
    head_output (one head), concat, w_o, output; parameters = 4 · d_model²
    (W_Q, W_K, W_V, W_O without biases, the same for any h).
    """

    d_head: int
    x: tuple[int, int]
    w_q: tuple[int, int]
    q: tuple[int, int]
    scores: tuple[int, int]
    head_output: tuple[int, int]
    concat: tuple[int, int]
    w_o: tuple[int, int]
    output: tuple[int, int]
    parameters: int


def head_shapes(n: int, d_model: int, n_heads: int) -> HeadShapes:
    """d_head = d_model / h. Per head: X [n, d_model] W_Q[:, slice] [d_model, d_head]
    -> Q_h [n, d_head]; Q_h K_hᵀ -> [n, n]; weights V_h -> [n, d_head]. The h
    outputs side by side -> [n, h · d_head] = [n, d_model]; times W_O [d_model, d_model]
    -> [n, d_model]. ValueError when h does not divide d_model.

    Shapes: worked out from the sizes alone (no arrays; GPT-2's would be large)
    """
    if n_heads < 1 or d_model % n_heads:
        raise ValueError(f"n_heads must divide d_model={d_model}, got {n_heads}")
    d_head = d_model // n_heads
    return HeadShapes(
        d_head=d_head,
        x=(n, d_model),
        w_q=(d_model, d_head),
        q=(n, d_head),
        scores=(n, n),
        head_output=(n, d_head),
        concat=(n, n_heads * d_head),
        w_o=(d_model, d_model),
        output=(n, d_model),
        parameters=4 * d_model * d_model,
    )


@dataclass(frozen=True)
class HandMadeHeads:
    """Several attention heads, each with its own hand-made Q, K, V.

    weights [h, n, n]; outputs [h, n, d_v]; concat [n, h · d_v] = the outputs side by side.
    """

    weights: np.ndarray
    outputs: np.ndarray
    concat: np.ndarray


def parallel_heads(
    queries: Sequence[np.ndarray],
    keys: Sequence[np.ndarray],
    values: Sequence[np.ndarray],
    mask: np.ndarray | None = None,
) -> HandMadeHeads:
    """head_i = Attention(Q_i, K_i, V_i), every head on the same n tokens but with
    its own vectors (each head may use its own d_k); concat = [head_1 | … | head_h].

    Shapes: queries[i] [n, d_k_i], keys[i] [n, d_k_i], values[i] [n, d_v] -> weights [h, n, n],
    concat [n, h · d_v]
    """
    heads = [
        scaled_dot_product_attention(q, k, v, mask=mask)
        for q, k, v in zip(queries, keys, values, strict=True)
    ]
    outputs = np.stack([h.output for h in heads])
    return HandMadeHeads(
        weights=np.stack([h.weights for h in heads]),
        outputs=outputs,
        concat=np.concatenate(list(outputs), axis=-1),
    )


def random_projections(d_in: int, d_out: int, rng: np.random.Generator, count: int = 1) -> np.ndarray:
    """``count`` random matrices W with entries ~ Normal(0, 1/d_in), so that x W
    keeps roughly the size of x (a common way to start training).

    Shapes: -> [count, d_in, d_out]
    """
    return rng.normal(0.0, 1.0 / np.sqrt(d_in), size=(count, d_in, d_out))


@dataclass(frozen=True)
class MultiHeadRun:
    """Multi-head attention on hand-made features widened to d_model.

    x [n, d_model] = features E; w_q, w_k, w_v, w_o [d_model, d_model]; result (MultiHeadResult).
    """

    x: np.ndarray
    w_q: np.ndarray
    w_k: np.ndarray
    w_v: np.ndarray
    w_o: np.ndarray
    result: MultiHeadResult


def random_multi_head(
    features: np.ndarray,
    widen: np.ndarray,
    n_heads: int,
    rng: np.random.Generator,
    mask: np.ndarray | None = None,
) -> MultiHeadRun:
    """X = features · E (a fixed widening to d_model), four random projections
    W_Q, W_K, W_V, W_O drawn from ``rng`` (in that order), then
    MultiHead(X) = Concat(head_1, …, head_h) W_O (see ``multi_head_attention``).
    ValueError when h does not divide d_model.

    Shapes: features [n, d_in], widen [d_in, d_model] -> x [n, d_model], result.output [n, d_model]
    """
    x = np.asarray(features, dtype=float) @ np.asarray(widen, dtype=float)
    d_model = x.shape[1]
    if n_heads < 1 or d_model % n_heads:
        raise ValueError(f"n_heads must divide d_model={d_model}, got {n_heads}")
    w_q, w_k, w_v, w_o = random_projections(d_model, d_model, rng, count=4)
    return MultiHeadRun(x, w_q, w_k, w_v, w_o, multi_head_attention(x, w_q, w_k, w_v, w_o, n_heads, mask))


def offset_head(n: int, offset: int, strength: float = 10.0) -> tuple[np.ndarray, np.ndarray]:
    """A hand-made head that looks ``offset`` tokens back, built from positions
    alone: key j is the one-hot e_j ("I am position j"), query i is
    strength · e_(i − offset) ("I want position i − offset"), or all zeros when
    i − offset < 0 (that query then spreads its weight evenly over what it may see).
    offset = 1 is the previous-token head.

    Raises ValueError unless 1 ≤ offset < n.

    Shapes: -> queries [n, n], keys [n, n]
    """
    if not 1 <= offset < n:
        raise ValueError(f"offset must be between 1 and {n - 1}, got {offset}")
    return strength * np.eye(n, k=-offset), np.eye(n)


def top_keys(weights: np.ndarray) -> np.ndarray:
    """For every head and query, the key with the largest weight (the first on a tie).

    Shapes: weights [h, n, n] -> [h, n]
    """
    return np.argmax(np.asarray(weights), axis=-1)


TIE = 5e-4  # weights closer than this print the same at 0.1 %: a sentence must call them a tie


def leaders(values: np.ndarray, tol: float = TIE) -> np.ndarray:
    """Every index whose value is within ``tol`` of the largest, in index order
    (flat indices for an array of several axes): one index means a clear top
    choice, several a tie that a sentence must name as such.

    Shapes: values [...] -> [k], k >= 1
    """
    flat = np.asarray(values, dtype=float).ravel()
    return np.flatnonzero(flat >= flat.max() - tol)
