"""Sinusoidal position vectors (Vaswani et al., 2017)."""

from __future__ import annotations

import numpy as np

BASE = 10000.0


def sinusoidal_encoding(n_positions: int, d_model: int) -> np.ndarray:
    """PE[pos, i] = sin(angle) for even i, cos(angle) for odd i,
    angle = pos / 10000^(2·⌊i/2⌋ / d_model).

    Shapes: -> [n_positions, d_model]
    """
    if d_model < 2 or d_model % 2:
        raise ValueError(f"d_model must be an even number >= 2, got {d_model}")
    if n_positions < 0:
        raise ValueError(f"n_positions must be >= 0, got {n_positions}")
    pos = np.arange(n_positions, dtype=float)[:, None]
    pair = (np.arange(d_model) // 2) * 2
    angle = pos / BASE ** (pair / d_model)
    return np.where(np.arange(d_model) % 2 == 0, np.sin(angle), np.cos(angle))
