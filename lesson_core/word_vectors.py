"""Starting vectors for words the course has no hand-made vector for.

Each word gets small numbers of its own, derived from its text (a hash of the
word seeds a random generator), so the same word always starts the same way,
in every session and on every machine, and two different words almost never
start alike. With zeros instead, every new word would score the same and
every attention weight would be equal, which looks broken. Pure NumPy.
"""

from __future__ import annotations

import hashlib

import numpy as np

LOW, HIGH = 0.0, 2.0  # the range of the hand-made vectors' typical entries


def seeded_vector(token: str, d: int) -> np.ndarray:
    """A vector of ``d`` numbers in [LOW, HIGH], one decimal each, that depends
    only on ``token``.

    Shapes: -> [d]"""
    seed = int.from_bytes(hashlib.blake2b(token.encode("utf-8", "surrogatepass"), digest_size=8).digest())
    values = np.random.default_rng(seed).uniform(LOW, HIGH, d)
    return np.round(values, 1)
