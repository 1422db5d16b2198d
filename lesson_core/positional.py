"""Sinusoidal position vectors (Vaswani et al., 2017), and what the positional
encoding lesson shows about them: attention alone is blind to word order, the
encoding's "clock hands", and how alike the marks of two positions are."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from lesson_core.attention import AttentionResult, causal_mask, scaled_dot_product_attention

BASE = 10000.0
GPT2_POSITIONS = 1024  # GPT-2 learns one position vector for each of its 1,024 positions (n_ctx)
SAME_OUTPUT = 1e-12  # outputs closer than this are the same numbers up to floating-point rounding
MAX_POSITIONS = 4096  # far beyond what a page draws; a guard against a huge request
MAX_D_MODEL = 1024


class EncodingSizeError(ValueError):
    """A size the encoding cannot take. ``reason`` names the broken rule
    ("odd_d_model", "too_few_positions" or "too_large") so that a page can
    explain it in the learner's language."""

    def __init__(self, reason: str, message: str) -> None:
        super().__init__(message)
        self.reason = reason


def _check_size(n_positions: int, d_model: int, min_positions: int) -> None:
    if d_model != int(d_model) or d_model < 2 or d_model % 2:
        raise EncodingSizeError("odd_d_model", f"d_model must be an even number >= 2, got {d_model}")
    if n_positions != int(n_positions) or n_positions < min_positions:
        raise EncodingSizeError(
            "too_few_positions", f"n_positions must be an integer >= {min_positions}, got {n_positions}"
        )
    if n_positions > MAX_POSITIONS or d_model > MAX_D_MODEL:
        raise EncodingSizeError(
            "too_large",
            f"at most {MAX_POSITIONS} positions and d_model {MAX_D_MODEL}, got {n_positions}, {d_model}",
        )


def sinusoidal_encoding(n_positions: int, d_model: int) -> np.ndarray:
    """PE[pos, i] = sin(angle) for even i, cos(angle) for odd i,
    angle = pos / 10000^(2·⌊i/2⌋ / d_model).

    Raises EncodingSizeError (a ValueError) for an odd or too small d_model,
    a negative number of positions, or sizes above MAX_POSITIONS / MAX_D_MODEL.

    Shapes: -> [n_positions, d_model]
    """
    _check_size(n_positions, d_model, min_positions=0)
    pos = np.arange(int(n_positions), dtype=float)[:, None]
    pair = (np.arange(d_model) // 2) * 2
    angle = pos / BASE ** (pair / d_model)
    return np.where(np.arange(d_model) % 2 == 0, np.sin(angle), np.cos(angle))


def wavelengths(d_model: int) -> np.ndarray:
    """λ_i = 2π · 10000^(2·⌊i/2⌋ / d_model): how many positions dimension i
    needs for one full turn (the speed of its "clock hand"). Dimensions 2m and
    2m+1 are the sin and cos of the same hand and share a wavelength.

    Shapes: -> [d_model]
    """
    _check_size(1, d_model, min_positions=0)
    pair = (np.arange(d_model) // 2) * 2
    return 2 * np.pi * BASE ** (pair / d_model)


def position_similarity(pe: np.ndarray) -> np.ndarray:
    """S = PE PEᵀ, the dot product of every pair of position vectors. For the
    sinusoidal encoding S_ij = Σ_m cos((i − j) · ω_m): it depends only on the
    distance i − j, and S_ii = d_model / 2.

    Shapes: pe [n, d_model] -> [n, n]
    """
    pe = np.asarray(pe, dtype=float)
    return pe @ pe.T


def pairwise_distances(pe: np.ndarray) -> np.ndarray:
    """D_ij = ‖PE_i − PE_j‖ (Euclidean), from the dot products:
    ‖a − b‖² = a·a + b·b − 2 a·b (clipped at 0 against rounding).

    Shapes: pe [n, d_model] -> [n, n]
    """
    s = position_similarity(pe)
    sq = np.diag(s)[:, None] + np.diag(s)[None, :] - 2 * s
    return np.sqrt(np.clip(sq, 0.0, None))


@dataclass(frozen=True)
class PositionMap:
    """What the encoding explorer draws for one (n_positions, d_model).

    pe            [n, d]  the position vectors
    similarity    [n, n]  PE PEᵀ
    wavelengths   [d]     positions per turn of each dimension
    turns         [d]     turns each dimension makes from position 0 to n − 1
    closest       (i, j)  the two different positions whose vectors are nearest
    closest_distance      ‖PE_i − PE_j‖ for that pair
    neighbour_cosine      cosine similarity of positions 0 and 1
    """

    pe: np.ndarray
    similarity: np.ndarray
    wavelengths: np.ndarray
    turns: np.ndarray
    closest: tuple[int, int]
    closest_distance: float
    neighbour_cosine: float


def encoding_explorer(n_positions: int, d_model: int) -> PositionMap:
    """Everything the explorer shows: the encoding, PE PEᵀ, the wavelengths,
    turns_i = (n − 1) / λ_i, the closest pair argmin_{i≠j} ‖PE_i − PE_j‖ and
    cos(PE_0, PE_1) = PE_0·PE_1 / (‖PE_0‖ ‖PE_1‖).

    Needs at least 2 positions (EncodingSizeError otherwise).

    Shapes: -> pe [n, d_model], similarity [n, n], wavelengths / turns [d_model]
    """
    _check_size(n_positions, d_model, min_positions=2)
    pe = sinusoidal_encoding(n_positions, d_model)
    similarity = position_similarity(pe)
    lam = wavelengths(d_model)
    dist = pairwise_distances(pe)
    np.fill_diagonal(dist, np.inf)
    # ties (the same distance recurs for every pair at the same offset): the first pair
    i, j = np.argwhere(np.triu(dist <= dist.min() + 1e-9, 1))[0]
    norms = np.sqrt(np.diag(similarity))
    return PositionMap(
        pe=pe,
        similarity=similarity,
        wavelengths=lam,
        turns=(n_positions - 1) / lam,
        closest=(int(i), int(j)),
        closest_distance=float(dist[i, j]),
        neighbour_cosine=float(similarity[0, 1] / (norms[0] * norms[1])),
    )


def add_positions(x: np.ndarray, start: int = 0) -> np.ndarray:
    """The model's input: token vector + position vector, X + PE[start : start + n].

    Shapes: x [n, d_model] -> [n, d_model]
    """
    x = np.asarray(x, dtype=float)
    return x + sinusoidal_encoding(start + x.shape[0], x.shape[1])[start:]


@dataclass(frozen=True)
class PlacedToken:
    """One token vector placed at several positions.

    positions [p]; token [d]; position_vectors [p, d]; inputs [p, d] = token + position vector.
    """

    positions: np.ndarray
    token: np.ndarray
    position_vectors: np.ndarray
    inputs: np.ndarray


def token_at_positions(token: np.ndarray, positions: Sequence[int]) -> PlacedToken:
    """The same token vector x at each position p: input_p = x + PE[p].

    Shapes: token [d_model], positions [p] -> inputs [p, d_model]
    """
    token = np.asarray(token, dtype=float)
    pos = np.asarray(positions, dtype=int)
    pe = sinusoidal_encoding(int(pos.max()) + 1, token.shape[0])[pos]
    return PlacedToken(positions=pos, token=token, position_vectors=pe, inputs=token + pe)


def embed(tokens: Sequence[str], table: Mapping[str, Sequence[float]]) -> np.ndarray:
    """Look up each token's vector: X[i] = table[tokens[i]].

    Shapes: tokens [n] -> [n, d_model]
    """
    return np.array([table[tok] for tok in tokens], dtype=float)


def self_attention(x: np.ndarray, causal: bool = False) -> AttentionResult:
    """Attention with Q = K = V = X: softmax(X Xᵀ / √d + M) X, where M is the
    causal mask of lesson 4 when ``causal`` (position i sees keys j ≤ i), else 0.

    Shapes: x [n, d] -> output [n, d], weights [n, n]
    """
    mask = causal_mask(x.shape[0]) if causal else None
    return scaled_dot_product_attention(x, x, x, mask=mask)


def stacked_self_attention(x: np.ndarray, causal: bool = False, layers: int = 1) -> np.ndarray:
    """The last of ``layers`` self_attention layers, each reading the one before
    with a residual connection: h_0 = X, out_l = Attn(h_(l−1)), h_l = h_(l−1) + out_l;
    returns out_L (for one layer, self_attention(x).output).

    Shapes: x [n, d] -> [n, d]
    """
    if layers < 1:
        raise ValueError(f"layers must be at least 1, got {layers}")
    h = np.asarray(x, dtype=float)
    out = h
    for _ in range(int(layers)):
        out = self_attention(h, causal).output
        h = h + out
    return out


@dataclass(frozen=True)
class OrderComparison:
    """Self-attention on two orderings of the same tokens, matched up by token.

    outputs_a [n, d]  outputs for sentence a, in a's order
    outputs_b [n, d]  outputs for sentence b, in b's order
    match     [n]     match[i] = position in b of the token at position i of a
    differences [n]   max_k |outputs_a[i, k] − outputs_b[match[i], k]|
    largest           the largest of those differences
    largest_at        the position in a of the token where it occurs
    unchanged [n]     differences[i] <= SAME_OUTPUT: the token's output is the same in
                      both sentences (up to rounding in the last bits)
    """

    outputs_a: np.ndarray
    outputs_b: np.ndarray
    match: np.ndarray
    differences: np.ndarray
    largest: float
    largest_at: int

    @property
    def unchanged(self) -> np.ndarray:
        return self.differences <= SAME_OUTPUT


def compare_word_orders(
    tokens_a: Sequence[str],
    tokens_b: Sequence[str],
    table: Mapping[str, Sequence[float]],
    with_positions: bool,
    causal: bool = False,
    layers: int = 1,
) -> OrderComparison:
    """Run self_attention on both sentences (X, or X + PE when
    ``with_positions``; with the causal mask when ``causal``) and compare each
    token's output with the same token's output in the other sentence.

    Without positions and without the mask the two output sets are the same
    vectors, permuted: attention is permutation-equivariant,
    Attention(P X) = P Attention(X). With the mask (still no positions), the
    output at position i depends only on the token there and the *set* of
    tokens at 0 … i, so a swap of two tokens changes the outputs at and after
    the first of them up to the second (their prefixes are different sets, or
    the query differs) and leaves every later position identical: for ONE
    layer. With ``layers`` = 2 (stacked_self_attention) the second layer reads
    the first layer's outputs, which already differ at the swapped positions,
    so later positions change too: stacked masked layers recover some order.
    Without the mask any number of layers stays permutation-equivariant.

    The sentences must use the same tokens, each once (ValueError otherwise).

    Shapes: tokens_a, tokens_b [n] -> outputs [n, d_model], differences [n]
    """
    if sorted(tokens_a) != sorted(tokens_b) or len(set(tokens_a)) != len(tokens_a):
        raise ValueError("the two sentences must be orderings of the same distinct tokens")
    xa, xb = embed(tokens_a, table), embed(tokens_b, table)
    if with_positions:
        xa, xb = add_positions(xa), add_positions(xb)
    out_a, out_b = stacked_self_attention(xa, causal, layers), stacked_self_attention(xb, causal, layers)
    match = np.array([list(tokens_b).index(tok) for tok in tokens_a])
    differences = np.max(np.abs(out_a - out_b[match]), axis=1)
    at = int(np.argmax(differences))
    return OrderComparison(out_a, out_b, match, differences, float(differences[at]), at)


@dataclass(frozen=True)
class SingleHand:
    """What one clock hand (d_model = 2, wavelength λ = 2π positions) does.

    wavelength           λ, positions per turn
    one_turn             round(λ), the whole number of positions closest to one turn
    one_turn_distance    ‖PE_0 − PE_one_turn‖: a whole turn never lands on a position
    turns_apart          (j − i) / λ for the closest pair (i, j) of the positions shown
    closest_distance     ‖PE_i − PE_j‖ for that pair
    """

    wavelength: float
    one_turn: int
    one_turn_distance: float
    turns_apart: float
    closest_distance: float


def single_hand(view: PositionMap) -> SingleHand:
    """For an explorer view with d_model = 2: ‖PE_p − PE_q‖ = 2 |sin((p − q) / 2)|,
    which is 0 only when p − q is a multiple of 2π; no whole number is, so the
    marks come close only where p − q is near k · 2π, and the more turns the
    positions make, the closer some offset gets (44 ≈ 7 · 2π).

    Raises ValueError for a view with d_model other than 2.

    Shapes: view.pe [n, 2] -> scalars
    """
    if view.pe.shape[1] != 2:
        raise ValueError("single_hand needs d_model = 2")
    lam = float(view.wavelengths[0])
    one = round(lam)
    i, j = view.closest
    return SingleHand(
        wavelength=lam,
        one_turn=one,
        one_turn_distance=float(2 * abs(np.sin(one / 2))),
        turns_apart=float((j - i) / lam),
        closest_distance=view.closest_distance,
    )


@dataclass(frozen=True)
class SimilarityTrend:
    """How PE_0 · PE_k changes with the distance k over the positions shown
    (row 0 of PE PEᵀ; every other row is the same function of i − j).

    falls          it never rises as k grows, over k = 0 … n − 1
    low_at, low    the start of its largest rise: 1 ≤ low_at < high_at maximising
                   PE_0·PE_high_at − PE_0·PE_low_at (for ``falls``: the last k)
    high_at, high  the end of that rise (None when ``falls``)
    """

    falls: bool
    low_at: int
    low: float
    high_at: int | None
    high: float | None


RISE = 1e-12  # a rise smaller than this is rounding, not a rise


def similarity_trend(similarity: np.ndarray) -> SimilarityTrend:
    """Read row 0 of S = PE PEᵀ: whether it only falls with the distance, else
    the pair of distances with the largest rise from the nearer to the farther
    one (so a sentence can say "farther is not always less alike" with the
    clearest numbers the positions shown allow).

    Shapes: similarity [n, n] -> scalars
    """
    row = np.asarray(similarity, dtype=float)[0]
    if len(row) < 3 or not np.any(np.diff(row[1:]) > RISE):
        last = len(row) - 1
        return SimilarityTrend(True, last, float(row[last]), None, None)
    lows = np.minimum.accumulate(row[1:])  # lows[j] = min of row[1 … j + 1]
    rise = row[2:] - lows[:-1]
    high_at = 2 + int(np.argmax(rise))
    low_at = 1 + int(np.argmin(row[1:high_at]))
    return SimilarityTrend(False, low_at, float(row[low_at]), high_at, float(row[high_at]))
