"""What the causal mask is for: next-token training pairs, how much weight
reaches the positions a mask should hide, and the sliding-window mask."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

# The values the causal-mask lesson lets the learner add to the hidden scores:
# the model's -inf, the "very large negative number" of real code, and three
# that are not large enough.
MASK_FILLS: tuple[float, ...] = (-np.inf, -1e9, -10.0, -1.0, 0.0)


def training_pairs(tokens: Sequence[str]) -> list[tuple[tuple[str, ...], str]]:
    """The next-token questions one sentence gives at once: for every position
    i >= 1, (tokens[0..i-1], tokens[i]) — what the model may see, and the
    answer it must give.

    Shapes: tokens [n] -> n - 1 pairs (context of length i, answer)
    """
    tokens = tuple(tokens)
    return [(tokens[:i], tokens[i]) for i in range(1, len(tokens))]


def hidden_weight(weights: np.ndarray, allowed: np.ndarray) -> np.ndarray:
    """leak_i = sum over j with allowed_ij False of weights_ij: the share of
    query i's weight that lands on keys it must not see (for the causal mask,
    the future j > i). Exactly 0 when the mask was filled with -inf.

    Shapes: weights [..., n_q, n_k], allowed [n_q, n_k] (bool) -> [..., n_q]
    """
    weights = np.asarray(weights, dtype=float)
    blocked = ~np.asarray(allowed, dtype=bool)
    return np.sum(np.where(blocked, weights, 0.0), axis=-1)


def sliding_window_mask(n: int, window: int) -> np.ndarray:
    """allowed_ij = True where 0 <= i − j < window: query i sees itself and the
    window − 1 tokens just to its left, nothing to its right and nothing further back.

    window >= n gives the causal mask; window = 1 lets each position see only itself.
    Each query then looks at no more than ``window`` keys, however long the sequence.

    Shapes: -> [n, n] (bool)
    """
    if isinstance(n, bool) or isinstance(window, bool) or int(n) != n or int(window) != window:
        raise ValueError("n and window must be whole numbers")
    if n < 0 or window < 1:
        raise ValueError("n must be >= 0 and window >= 1")
    i = np.arange(int(n))
    distance = i[:, None] - i[None, :]
    return (distance >= 0) & (distance < int(window))
