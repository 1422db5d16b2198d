"""From a model's scores (logits) to the next token, one step at a time.

The steps, applied in this order (as most GPT libraries do):

1. temperature: p_T = softmax(z / T); T = 0 is greedy (all mass on the argmax);
2. top-k: keep the k likeliest tokens of p_T (and every token tied with the k-th);
3. top-p (nucleus): of what top-k kept, renormalised, keep the smallest set of the
   likeliest tokens whose mass reaches p (and every token tied with the last one);
4. renormalise: the kept tokens' p_T divided by their sum, the cut ones 0;
5. draw one token from that with the given ``rng``.

A token whose logit is −inf (the model's "<s>", which is never generated) has
probability 0 at every stage and is never kept. Ties are decided the same way
everywhere: "the likeliest" on a tie is the first in vocabulary order (as
``np.argmax``), and a cut never separates two tokens of exactly equal
probability.

Shapes: logits [V] -> every stage [V]; V the vocabulary size.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from lesson_core.attention import softmax

MASS_TOLERANCE = 1e-12  # a cumulative mass within this of p counts as reaching p (rounding of sums)


def check_temperature(temperature: object) -> float:
    """The temperature as a float; ValueError unless it is a finite number >= 0 (not a bool)."""
    if isinstance(temperature, bool) or not isinstance(temperature, int | float | np.number):
        raise ValueError(f"temperature must be a number, got {temperature!r}")
    if not math.isfinite(temperature) or temperature < 0:
        raise ValueError(f"temperature must be a finite number >= 0, got {temperature!r}")
    return float(temperature)


def check_top_k(top_k: object, vocab_size: int) -> int:
    """top_k as an int; ValueError unless it is an integer (not a bool) in 1..vocab_size."""
    if isinstance(top_k, bool) or not isinstance(top_k, int | np.integer):
        raise ValueError(f"top_k must be an integer, got {top_k!r}")
    if not 1 <= top_k <= vocab_size:
        raise ValueError(f"top_k must be between 1 and {vocab_size}, got {top_k}")
    return int(top_k)


def check_top_p(top_p: object) -> float:
    """top_p as a float; ValueError unless it is a finite number with 0 < top_p <= 1."""
    if isinstance(top_p, bool) or not isinstance(top_p, int | float | np.number):
        raise ValueError(f"top_p must be a number, got {top_p!r}")
    if not math.isfinite(top_p) or not 0 < top_p <= 1:
        raise ValueError(f"top_p must be in (0, 1], got {top_p!r}")
    return float(top_p)


def check_logits(logits: np.ndarray) -> np.ndarray:
    """The logits as a float vector; ValueError for NaN, +inf, an empty or non-1-D
    array, or one with no finite score (nothing could be drawn).

    Shapes: [V] -> [V]
    """
    z = np.asarray(logits, dtype=float)
    if z.ndim != 1 or z.size == 0:
        raise ValueError(f"logits must be a non-empty vector, got shape {z.shape}")
    if np.isnan(z).any() or np.isposinf(z).any():
        raise ValueError("logits must not be NaN or +inf")
    if not np.isfinite(z).any():
        raise ValueError("at least one logit must be finite")
    return z


def greedy(logits: np.ndarray) -> int:
    """argmax_j z_j; on a tie at the top, the first of the tied tokens in vocabulary order.

    Shapes: [V] -> scalar
    """
    return int(np.argmax(check_logits(logits)))


def with_temperature(logits: np.ndarray, temperature: float) -> np.ndarray:
    """p_T = softmax(z / T) for T > 0, computed as softmax((z − max z) / T) so that
    a tiny T cannot overflow; T = 1 gives the model's own softmax. T = 0: the
    greedy limit, 1 on ``greedy(z)`` (the first of a tie) and 0 elsewhere.

    Shapes: [V] -> [V] (sums to 1)
    """
    z = check_logits(logits)
    t = check_temperature(temperature)
    if t == 0:
        return np.eye(len(z))[greedy(z)]
    with np.errstate(over="ignore", under="ignore"):
        return softmax((z - z.max()) / t)


def top_k_keep(p: np.ndarray, k: int) -> np.ndarray:
    """Keep_j = p_j >= p_(k) and p_j > 0, with p_(k) the k-th largest probability:
    the k likeliest tokens, plus every token tied with the k-th (so more than k on
    a tie at the cut); a token of probability 0 is never kept. k = V keeps every
    token with p > 0.

    Shapes: p [V] -> [V] (bool), at least one True
    """
    p = np.asarray(p, dtype=float)
    k = check_top_k(k, len(p))
    kth = np.sort(p)[::-1][k - 1]
    return (p >= kth) & (p > 0)


def top_p_keep(p: np.ndarray, top_p: float) -> np.ndarray:
    """The nucleus: with the tokens sorted by probability (largest first, a tie in
    vocabulary order), the first n such that p_(1) + … + p_(n) >= top_p (within
    ``MASS_TOLERANCE``, so a p exactly equal to a cumulative mass stops there),
    plus every token tied with the n-th; top_p = 1 keeps every token with p > 0.
    p need not sum to 1: it is renormalised first (top-p reads what top-k kept).

    Shapes: p [V] -> [V] (bool), at least one True
    """
    p = np.asarray(p, dtype=float)
    top_p = check_top_p(top_p)
    positive = p > 0
    if top_p == 1:
        return positive
    q = p / p.sum()
    n = nucleus_size(q, top_p)
    return (q >= np.sort(q)[::-1][n - 1]) & positive


def nucleus_size(p: np.ndarray, top_p: float) -> int:
    """The fewest of the likeliest tokens whose probabilities (p renormalised)
    add up to at least top_p (within ``MASS_TOLERANCE``), before the tokens tied
    with the last of them join them in ``top_p_keep``; top_p = 1: every token with
    p > 0.

    Shapes: p [V] -> an int in 1..V
    """
    p = np.asarray(p, dtype=float)
    top_p = check_top_p(top_p)
    if top_p == 1:
        return int(np.count_nonzero(p > 0))
    mass = np.cumsum(np.sort(p / p.sum())[::-1])
    return min(int(np.searchsorted(mass, top_p - MASS_TOLERANCE)), len(p) - 1) + 1


def renormalise(p: np.ndarray, keep: np.ndarray) -> np.ndarray:
    """r_j = p_j / Σ_{i kept} p_i for a kept token, 0 for a cut one (p itself when
    nothing with p > 0 is cut, so that nothing changes when nothing is cut).

    Shapes: p [V], keep [V] (bool) -> [V] (sums to 1)
    """
    p = np.asarray(p, dtype=float)
    kept = np.where(keep, p, 0.0)
    if np.array_equal(kept, p):
        return p.copy()
    return kept / kept.sum()


def draw(r: np.ndarray, rng: np.random.Generator) -> int:
    """One token j with probability r_j. When only one token has r > 0 it is that
    token, and ``rng`` is not used (greedy needs no randomness).

    Shapes: [V] -> scalar
    """
    r = np.asarray(r, dtype=float)
    if np.count_nonzero(r > 0) == 1:
        return int(np.argmax(r))
    return int(rng.choice(len(r), p=r))


@dataclass(frozen=True)
class Stages:
    """Every stage of one sampling step, as the capstone draws them.

    raw       softmax(z): the model's own probabilities [V]
    tempered  p_T after temperature [V]
    top_k     which tokens top-k keeps (of p_T) [V] bool
    kept      which tokens top-k and then top-p keep [V] bool
    final     p_T of the kept tokens renormalised to 1, the cut ones 0 [V]
    drawn     the token drawn from ``final``
    kept_mass Σ p_T over the kept tokens (what top-k and top-p left, before renormalising)
    temperature, k, p   the settings
    """

    raw: np.ndarray
    tempered: np.ndarray
    top_k: np.ndarray
    kept: np.ndarray
    final: np.ndarray
    drawn: int
    kept_mass: float
    temperature: float
    k: int
    p: float

    @property
    def n_kept(self) -> int:
        """How many tokens can be drawn."""
        return int(np.count_nonzero(self.kept))

    @property
    def greedy(self) -> bool:
        """True when one token alone is kept: whatever the seed, the draw is the
        likeliest token (T = 0; top-k = 1 without a tie at the top; or a top-p that
        the likeliest token already reaches)."""
        return self.n_kept == 1


def sampling_stages(
    logits: np.ndarray,
    temperature: float,
    top_k: int,
    top_p: float,
    rng: np.random.Generator,
) -> Stages:
    """Temperature, then top-k, then top-p (on the top-k set renormalised), then
    the kept mass renormalised and one token drawn from it with ``rng``.
    ValueError for a temperature that is not a finite number >= 0, a top_k outside
    1..V, a top_p outside (0, 1] or logits with NaN, +inf or nothing finite.

    Shapes: logits [V] -> Stages of [V] arrays
    """
    z = check_logits(logits)
    temperature = check_temperature(temperature)
    top_k = check_top_k(top_k, len(z))
    top_p = check_top_p(top_p)
    tempered = with_temperature(z, temperature)
    by_k = top_k_keep(tempered, top_k)
    kept = top_p_keep(np.where(by_k, tempered, 0.0), top_p)
    final = renormalise(tempered, kept)
    return Stages(
        raw=softmax(z),
        tempered=tempered,
        top_k=by_k,
        kept=kept,
        final=final,
        drawn=draw(final, rng),
        kept_mass=float(tempered[kept].sum()),
        temperature=temperature,
        k=top_k,
        p=top_p,
    )
