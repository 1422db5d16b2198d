"""Rotary position embedding (RoPE; Su et al., 2021): instead of adding a
position vector to the token (lesson 5), turn q and k by an angle that grows
with their position. Coordinates (2i, 2i+1) form pair i, which turns at the
rate θ_i = 10000^(−2i/d) radians per position: the clock hands of the
sinusoidal encoding, applied to q and k themselves.

Because turning q by mθ and k by nθ changes their dot product only through
the difference of the angles, q·k depends on the positions only through m − n.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

BASE = 10000.0
MAX_POSITION = 1_000_000

# The lesson's q and k (d = 8, four pairs): hand-made, not from a trained model.
EXAMPLE_Q = np.array([1.0, 0.2, 0.8, -0.4, 0.5, 0.5, -0.3, 0.9])
EXAMPLE_K = np.array([0.9, -0.1, 0.6, 0.3, 0.4, 0.7, 0.2, 0.8])
EXAMPLE_Q.flags.writeable = EXAMPLE_K.flags.writeable = False


def frequencies(d: int, base: float = BASE) -> np.ndarray:
    """θ_i = base^(−2i/d) for pair i = 0 … d/2 − 1 (radians per position).

    Shapes: -> [d / 2]
    """
    if int(d) != d or d < 2 or d % 2:
        raise ValueError(f"d must be an even integer >= 2, got {d!r}")
    return base ** (-2.0 * np.arange(d // 2) / d)


def rotate(x: np.ndarray, positions: np.ndarray | int, base: float = BASE) -> np.ndarray:
    """RoPE(x, m): pair i of x, (x_2i, x_2i+1), turned by the angle m θ_i:

        x'_2i   = x_2i cos(m θ_i) − x_2i+1 sin(m θ_i)
        x'_2i+1 = x_2i sin(m θ_i) + x_2i+1 cos(m θ_i)

    ``positions`` gives m for every row of x (or one m for a single vector).

    Shapes: x [..., n, d], positions [n] -> [..., n, d]; x [d], positions scalar -> [d]
    """
    x = np.asarray(x, dtype=float)
    pos = np.asarray(positions, dtype=float)
    if not np.all(np.isfinite(pos)) or np.any(np.abs(pos) > MAX_POSITION):
        raise ValueError(f"positions must be finite and at most {MAX_POSITION} in size")
    theta = frequencies(x.shape[-1], base)
    angle = pos[..., None] * theta  # [n, d/2] or [d/2]
    cos, sin = np.cos(angle), np.sin(angle)
    even, odd = x[..., 0::2], x[..., 1::2]
    out = np.empty_like(x)
    out[..., 0::2] = even * cos - odd * sin
    out[..., 1::2] = even * sin + odd * cos
    return out


@dataclass(frozen=True)
class RopeScore:
    """q at position m and k at position n, turned and compared.

    q_rot, k_rot [d]; score = q_rot · k_rot; offset = m − n;
    angles_q, angles_k [d / 2]: each pair's angle in radians (m θ_i, n θ_i)
    """

    q_rot: np.ndarray
    k_rot: np.ndarray
    score: float
    offset: int
    angles_q: np.ndarray
    angles_k: np.ndarray


def rope_score(q: np.ndarray, k: np.ndarray, m: int, n: int, base: float = BASE) -> RopeScore:
    """score(m, n) = RoPE(q, m) · RoPE(k, n) = Σ_i |q_i| |k_i| cos(φ_i + (m − n) θ_i),
    q_i, k_i the pairs as complex numbers and φ_i the angle between them:
    a function of m − n alone.

    Shapes: q [d], k [d] -> RopeScore
    """
    theta = frequencies(len(q), base)
    q_rot, k_rot = rotate(q, m, base), rotate(k, n, base)
    return RopeScore(q_rot, k_rot, float(q_rot @ k_rot), int(m) - int(n), m * theta, n * theta)


def score_by_offset(q: np.ndarray, k: np.ndarray, offsets: np.ndarray, base: float = BASE) -> np.ndarray:
    """s(Δ) = RoPE(q, Δ) · k: the score of any pair m, n with m − n = Δ.

    Shapes: q [d], k [d], offsets [m] -> [m]
    """
    offsets = np.asarray(offsets)
    q_rot = rotate(np.tile(q, (len(offsets), 1)), offsets, base)
    return q_rot @ np.asarray(k, dtype=float)
