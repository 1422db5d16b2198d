"""Numbers the tests work out again on their own, to check the pages against:
never computed by the code under test."""

from __future__ import annotations

import numpy as np

from lesson_core.examples import CORPUS


def vocab_size() -> int:
    """Distinct corpus tokens plus the start and end markers, counted here."""
    return len({tok for s in CORPUS for tok in s}) + 2


def expected_parameters(d: int, blocks: int) -> int:
    """The mini GPT's parameter count written out: embeddings, per block two
    LayerNorms (2d each), W_Q/W_K/W_V/W_O (d²), the feed-forward layer (d·4d + 4d
    + 4d·d + d), then the final LayerNorm and the output layer (d·V + V)."""
    v = vocab_size()
    block = 2 * 2 * d + 4 * d * d + (d * 4 * d + 4 * d + 4 * d * d + d)
    return v * d + blocks * block + 2 * d + d * v + v


def softmax_rows(s: np.ndarray, allowed: np.ndarray) -> np.ndarray:
    s = np.where(allowed, s, -np.inf)
    e = np.exp(s - s.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def independent_run(seed: int, h: int) -> np.ndarray:
    """The run written out again: X = F E, random W's, per-head attention, concat, W_O."""
    features = np.array(
        [
            [3, 0, 0, 0],
            [0, 0, 0, 2],
            [1, 3, 0, 0],
            [0, 0, 0, 2],
            [0, 0.5, 3, 0],
            [0, 0, 0, 1],
            [0.3, 0.3, 0, 1],
            [0, 0, 0, 2],
            [0, 1.5, 0, 0],
            [0, 0, 0.5, 1.5],
        ]
    )
    e = np.random.default_rng(2017).normal(0, 1 / 2, size=(1, 4, 8))[0]
    x = features @ e
    w_q, w_k, w_v, w_o = np.random.default_rng(seed).normal(0, 1 / np.sqrt(8), size=(4, 8, 8))
    allowed = np.tril(np.ones((10, 10), dtype=bool))
    d = 8 // h
    outs = []
    for k in range(h):
        cut = slice(k * d, (k + 1) * d)
        q, kk, v = x @ w_q[:, cut], x @ w_k[:, cut], x @ w_v[:, cut]
        outs.append(softmax_rows(q @ kk.T / np.sqrt(d), allowed) @ v)
    return np.hstack(outs) @ w_o
