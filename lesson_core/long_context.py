"""Long context: the score matrix grows as n², and attention computed block by
block with a running maximum and sum, which never holds that matrix.

The block-by-block form is the idea behind memory-efficient attention kernels
such as FlashAttention (Dao et al., 2022): softmax(s) v can be accumulated one
block of keys at a time, rescaling what was summed so far whenever a larger
score turns up ("online softmax").
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from lesson_core.attention import causal_mask, scaled_dot_product_attention
from lesson_core.counts import require_counts

MAX_TIMED = 4096  # the largest n the timing helper accepts


def score_matrix_bytes(n: int, heads: int, layers: int = 1, bytes_per_number: int = 2) -> int:
    """Size of the score matrices if they were all held at once:
    n × n per head, per layer, × bytes per number.

    Shapes: integers -> integer (bytes)
    """
    require_counts(0, n=n, heads=heads, layers=layers, bytes_per_number=bytes_per_number)
    return int(n) * int(n) * int(heads) * int(layers) * int(bytes_per_number)


@dataclass(frozen=True)
class BlockTrace:
    """One query's pass over the keys, one block at a time.

    starts [b]      first key of each block
    maxima [b]      running maximum of the scaled scores after each block
    sums [b]        running Σ exp(s − running max) after each block
    """

    starts: np.ndarray
    maxima: np.ndarray
    sums: np.ndarray


@dataclass(frozen=True)
class BlockwiseResult:
    """output [n_q, d_v] (equal to plain attention); largest [2]: the largest
    score block held at once (n_q × block); trace: the running maximum and sum
    of query ``traced`` block by block."""

    output: np.ndarray
    largest: tuple[int, int]
    trace: BlockTrace


def _block_size(block: float, n_k: int) -> int:
    """``block`` as a whole number of keys, at most n_k (at least 1); a block that is
    not a positive integer raises ValueError."""
    require_counts(1, block=block)
    return int(min(block, max(n_k, 1)))


def _block_scores(q: np.ndarray, k_block: np.ndarray, allowed: np.ndarray | None, scale: float) -> np.ndarray:
    """s_B = q K_Bᵀ · scale for one block of keys [b, d_k], with −∞ where ``allowed``
    (the mask's columns of this block, [n_q, b]) is False."""
    s = (q @ k_block.T) * scale
    return s if allowed is None else np.where(allowed, s, -np.inf)


def _fold_block(
    running_max: np.ndarray, running_sum: np.ndarray, acc: np.ndarray, s: np.ndarray, v_block: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """One step of the online softmax: fold the scores s [n_q, b] of a block and its values
    v_block [b, d_v] into the running max m, sum ℓ and weighted sum acc (rescaling the old
    sum and acc by exp(m − m')). Returns the new (m, ℓ, acc)."""
    new_max = np.maximum(running_max, s.max(axis=1))
    safe = np.where(np.isfinite(new_max), new_max, 0.0)  # rows with nothing seen yet
    with np.errstate(invalid="ignore", over="ignore"):
        shrink = np.where(np.isfinite(running_max), np.exp(running_max - safe), 0.0)
        e = np.exp(s - safe[:, None])
    return new_max, running_sum * shrink + e.sum(axis=1), acc * shrink[:, None] + e @ v_block


def blockwise_attention(
    q: np.ndarray,
    k: np.ndarray,
    v: np.ndarray,
    block: int,
    mask: np.ndarray | None = None,
    traced: int = 0,
) -> BlockwiseResult:
    """softmax(Q Kᵀ / √d_k + M) V, one block of keys at a time. Per query row,
    starting from m = −∞, ℓ = 0, acc = 0, for each block B of keys:

        s_B   = q K_Bᵀ / √d_k  (masked keys: −∞)
        m'    = max(m, max s_B)
        ℓ     = ℓ · exp(m − m') + Σ exp(s_B − m')
        acc   = acc · exp(m − m') + exp(s_B − m') V_B
        m     = m'

    and at the end output = acc / ℓ (a row with every key masked gives zeros, as
    ``softmax`` does). Only an n_q × block piece of the scores exists at a time.

    Shapes: q [n_q, d_k], k [n_k, d_k], v [n_k, d_v], mask [n_q, n_k] -> output [n_q, d_v]
    """
    q, k, v = (np.asarray(a, dtype=float) for a in (q, k, v))
    n_q, n_k = q.shape[0], k.shape[0]
    block = _block_size(block, n_k)
    allowed = None if mask is None else np.asarray(mask, dtype=bool)
    scale = 1.0 / np.sqrt(q.shape[-1])
    m, ell, acc = np.full(n_q, -np.inf), np.zeros(n_q), np.zeros((n_q, v.shape[-1]))
    starts, maxima, sums = [], [], []
    for start in range(0, n_k, block):
        cols = slice(start, min(start + block, n_k))
        s = _block_scores(q, k[cols], None if allowed is None else allowed[:, cols], scale)
        m, ell, acc = _fold_block(m, ell, acc, s, v[cols])
        if 0 <= traced < n_q:
            starts.append(start)
            maxima.append(m[traced])
            sums.append(ell[traced])
    out = np.divide(acc, ell[:, None], out=np.zeros_like(acc), where=ell[:, None] > 0)
    trace = BlockTrace(np.array(starts, dtype=int), np.array(maxima), np.array(sums))
    return BlockwiseResult(out, (n_q, block), trace)


@dataclass(frozen=True)
class Timing:
    """sizes [m] the n measured; seconds [m] the best of ``repeats`` runs of
    plain attention on n random tokens (one head, d_k = d); matrix_bytes [m]
    the size of one n × n float64 score matrix."""

    sizes: np.ndarray
    seconds: np.ndarray
    matrix_bytes: np.ndarray


def time_attention(sizes: Sequence[int], d: int, rng: np.random.Generator, repeats: int = 3) -> Timing:
    """Wall time of ``scaled_dot_product_attention`` (with the causal mask) on n
    random tokens for each n in ``sizes``: the best of ``repeats`` runs. A
    measurement on this machine, never the same twice.

    Shapes: sizes [m] -> Timing with arrays [m]
    """
    sizes = [int(n) for n in sizes]
    if any(n < 1 or n > MAX_TIMED for n in sizes):
        raise ValueError(f"every size must be between 1 and {MAX_TIMED}")
    seconds = []
    for n in sizes:
        x = rng.normal(size=(n, d))
        mask = causal_mask(n)
        best = np.inf
        for _ in range(max(1, repeats)):
            start = time.perf_counter()
            scaled_dot_product_attention(x, x, x, mask=mask)
            best = min(best, time.perf_counter() - start)
        seconds.append(best)
    arr = np.array(sizes)
    return Timing(arr, np.array(seconds), arr * arr * 8)
