"""Layer 1: the positional-encoding functions against hand-computed values,
the lesson's worked figures and properties that hold for any size."""

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lesson_core.examples import SAME_TOKEN_POSITIONS, SAME_TOKEN_VECTOR, WORD_ORDER, WORD_ORDER_EMBEDDINGS
from lesson_core.positional import (
    MAX_D_MODEL,
    MAX_POSITIONS,
    EncodingSizeError,
    add_positions,
    compare_word_orders,
    embed,
    encoding_explorer,
    pairwise_distances,
    position_similarity,
    self_attention,
    single_hand,
    sinusoidal_encoding,
    token_at_positions,
    wavelengths,
)

sizes = st.tuples(st.integers(2, 80), st.integers(1, 32).map(lambda h: 2 * h))


def test_table_12_by_8_hand_values():
    pe = sinusoidal_encoding(12, 8)
    assert pe.shape == (12, 8)
    # angles at position pos: pos * [1, 1, 0.1, 0.1, 0.01, 0.01, 0.001, 0.001]
    # (10000^(2/8) = 10, 10000^(4/8) = 100, 10000^(6/8) = 1000)
    for pos in (0, 1, 5, 11):
        angle = pos * np.array([1, 1, 0.1, 0.1, 0.01, 0.01, 0.001, 0.001])
        expected = np.where(np.arange(8) % 2 == 0, np.sin(angle), np.cos(angle))
        np.testing.assert_allclose(pe[pos], expected, atol=1e-12)
    np.testing.assert_allclose(pe[2, :2], [0.9093, -0.4161], atol=5e-5)


def test_same_token_at_positions_0_1_2():
    # the lesson's worked example: [0.8, 0.2, -0.1, 0.5] at positions 0, 1, 2, d_model = 4
    placed = token_at_positions(SAME_TOKEN_VECTOR, SAME_TOKEN_POSITIONS)
    np.testing.assert_allclose(placed.position_vectors[0], [0, 1, 0, 1], atol=1e-15)
    # position 1: angles 1 and 1/10000^(2/4) = 0.01
    np.testing.assert_allclose(placed.position_vectors[1], [np.sin(1), np.cos(1), np.sin(0.01), np.cos(0.01)])
    np.testing.assert_allclose(placed.inputs[0], [0.8, 1.2, -0.1, 1.5])
    np.testing.assert_allclose(placed.inputs[1], [1.641, 0.740, -0.090, 1.500], atol=5e-4)
    np.testing.assert_allclose(placed.inputs[2], [1.709, -0.216, -0.080, 1.500], atol=5e-4)
    assert len({tuple(np.round(x, 9)) for x in placed.inputs}) == 3


def test_word_order_without_positions_is_a_permutation():
    a, b = WORD_ORDER
    cmp = compare_word_orders(a, b, WORD_ORDER_EMBEDDINGS, with_positions=False)
    np.testing.assert_array_equal(cmp.match, [2, 1, 0, 3, 4])  # ねこ and いぬ swap places
    assert cmp.largest < 1e-12
    # the same rows, in another order
    np.testing.assert_allclose(np.sort(cmp.outputs_a, axis=0), np.sort(cmp.outputs_b, axis=0), atol=1e-12)
    assert np.abs(cmp.outputs_a - cmp.outputs_b).max() > 0.01  # but not in the same rows


def test_word_order_with_positions_differs():
    a, b = WORD_ORDER
    cmp = compare_word_orders(a, b, WORD_ORDER_EMBEDDINGS, with_positions=True)
    # computed independently: attention on X + PE, the same token compared
    xa = np.array([WORD_ORDER_EMBEDDINGS[t] for t in a]) + sinusoidal_encoding(5, 4)
    xb = np.array([WORD_ORDER_EMBEDDINGS[t] for t in b]) + sinusoidal_encoding(5, 4)

    def attend(x):
        s = x @ x.T / 2.0
        w = np.exp(s - s.max(axis=1, keepdims=True))
        return (w / w.sum(axis=1, keepdims=True)) @ x

    oa, ob = attend(xa), attend(xb)
    diff = np.abs(oa - ob[[2, 1, 0, 3, 4]]).max(axis=1)
    np.testing.assert_allclose(cmp.differences, diff, atol=1e-12)
    assert cmp.largest == pytest.approx(diff.max())
    assert cmp.largest > 0.3
    assert a[cmp.largest_at] in ("ねこ", "いぬ")  # the two tokens that moved change most


def masked_attend(x: np.ndarray) -> np.ndarray:
    """Causal self-attention written out again: row i sees rows 0 … i only."""
    n = len(x)
    s = x @ x.T / np.sqrt(x.shape[1])
    s = np.where(np.tril(np.ones((n, n), bool)), s, -np.inf)
    w = np.exp(s - s.max(axis=1, keepdims=True))
    return (w / w.sum(axis=1, keepdims=True)) @ x


def test_word_order_under_the_causal_mask_changes_only_the_first_three_positions():
    """With the causal mask and no positions, swapping ねこ and いぬ (positions 0
    and 2) changes the outputs at ねこ, が, いぬ and leaves を and 追う identical:
    from position 3 on the prefix holds the same tokens, only in another order."""
    a, b = WORD_ORDER
    cmp = compare_word_orders(a, b, WORD_ORDER_EMBEDDINGS, with_positions=False, causal=True)
    oa = masked_attend(np.array([WORD_ORDER_EMBEDDINGS[t] for t in a]))
    ob = masked_attend(np.array([WORD_ORDER_EMBEDDINGS[t] for t in b]))
    diff = np.abs(oa - ob[[2, 1, 0, 3, 4]]).max(axis=1)
    np.testing.assert_allclose(cmp.differences, diff, atol=1e-12)
    assert (cmp.differences[:3] > 0.05).all()
    assert (cmp.differences[3:] < 1e-12).all()
    np.testing.assert_array_equal(cmp.unchanged, [False, False, False, True, True])
    # by position too: rows 3 and 4 are the same numbers in both sentences
    np.testing.assert_allclose(cmp.outputs_a[3:], cmp.outputs_b[3:], atol=1e-12)
    # without the mask nothing changes; with positions everything does
    assert compare_word_orders(a, b, WORD_ORDER_EMBEDDINGS, with_positions=False).unchanged.all()
    placed = compare_word_orders(a, b, WORD_ORDER_EMBEDDINGS, with_positions=True, causal=True)
    assert not placed.unchanged.any()


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(3, 7), st.data())
def test_masked_swap_leaves_every_later_position_alone(seed, n, data):
    """Any swap of positions i < j: under the mask the outputs from j + 1 on stay the same."""
    i = data.draw(st.integers(0, n - 2))
    j = data.draw(st.integers(i + 1, n - 1))
    rng = np.random.default_rng(seed)
    tokens = [f"w{k}" for k in range(n)]
    table = {tok: rng.normal(size=3) for tok in tokens}
    swapped = list(tokens)
    swapped[i], swapped[j] = swapped[j], swapped[i]
    cmp = compare_word_orders(tokens, swapped, table, with_positions=False, causal=True)
    assert cmp.unchanged[j + 1 :].all()
    assert not cmp.unchanged[i]  # at i, the prefix holds another token


def test_one_hand_one_turn_is_not_near_many_turns_are():
    hand = single_hand(encoding_explorer(50, 2))
    assert hand.wavelength == pytest.approx(2 * np.pi)
    assert hand.one_turn == 6
    assert hand.one_turn_distance == pytest.approx(2 * abs(np.sin(3.0)))  # 0.282: not near
    assert hand.one_turn_distance > 0.25
    assert hand.turns_apart == pytest.approx(44 / (2 * np.pi))  # about 7 turns
    assert hand.closest_distance < 0.02
    with pytest.raises(ValueError):
        single_hand(encoding_explorer(50, 4))


def test_compare_word_orders_needs_the_same_tokens():
    with pytest.raises(ValueError):
        compare_word_orders(("ねこ", "が"), ("いぬ", "が"), WORD_ORDER_EMBEDDINGS, with_positions=False)
    with pytest.raises(ValueError):
        compare_word_orders(("が", "が"), ("が", "が"), WORD_ORDER_EMBEDDINGS, with_positions=False)


@settings(max_examples=30)
@given(st.permutations(range(5)), st.integers(0, 2**32 - 1))
def test_self_attention_is_permutation_equivariant(perm, seed):
    x = np.random.default_rng(seed).normal(size=(5, 4))
    perm = list(perm)
    np.testing.assert_allclose(self_attention(x[perm]).output, self_attention(x).output[perm], atol=1e-12)


def test_embed_and_add_positions():
    x = embed(("が", "を"), WORD_ORDER_EMBEDDINGS)
    np.testing.assert_allclose(x, [[0.0, 0.1, 0.0, 0.8], [0.1, 0.0, 0.0, 0.9]])
    np.testing.assert_allclose(add_positions(x), x + sinusoidal_encoding(2, 4))
    np.testing.assert_allclose(add_positions(x, start=3), x + sinusoidal_encoding(5, 4)[3:])


def test_wavelengths():
    lam = wavelengths(8)
    np.testing.assert_allclose(lam, 2 * np.pi * np.array([1, 1, 10, 10, 100, 100, 1000, 1000]))
    np.testing.assert_allclose(wavelengths(2), [2 * np.pi, 2 * np.pi])


def test_similarity_hand_values():
    pe = sinusoidal_encoding(12, 8)
    s = position_similarity(pe)
    # S_ij = sum over the 4 hands of cos((i - j) * w), w = 1, 0.1, 0.01, 0.001
    w = np.array([1, 0.1, 0.01, 0.001])
    assert s[0, 0] == pytest.approx(4.0)
    assert s[0, 1] == pytest.approx(np.cos(w).sum())
    assert s[3, 10] == pytest.approx(np.cos(7 * w).sum())
    np.testing.assert_allclose(pairwise_distances(pe)[0, 1], np.sqrt(8 - 2 * np.cos(w).sum()))


def test_explorer_defaults_and_one_hand_collision():
    view = encoding_explorer(50, 16)
    assert view.pe.shape == (50, 16) and view.similarity.shape == (50, 50)
    assert view.closest == (0, 1)  # with 8 hands, neighbours are the closest pair
    assert view.neighbour_cosine == pytest.approx(np.cos(10000 ** (-np.arange(8) / 8)).mean())
    assert view.neighbour_cosine < 0.95 < encoding_explorer(50, 32).neighbour_cosine
    np.testing.assert_allclose(view.turns[[0, -1]], 49 / wavelengths(16)[[0, -1]])
    # one hand: 44 is 7 turns of 2π (43.98), so positions 0 and 44 nearly coincide
    one = encoding_explorer(50, 2)
    assert one.closest == (0, 44)
    assert one.closest_distance == pytest.approx(2 * abs(np.sin(22.0)))
    assert one.closest_distance < 0.05
    assert encoding_explorer(44, 2).closest_distance > 0.05


@settings(max_examples=40, deadline=None)
@given(sizes)
def test_explorer_properties(size):
    n, d = size
    view = encoding_explorer(n, d)
    assert np.all(np.isfinite(view.pe)) and np.all(np.abs(view.pe) <= 1)
    np.testing.assert_allclose(np.diag(view.similarity), d / 2)  # sin² + cos² = 1 per hand
    np.testing.assert_allclose(view.similarity, view.similarity.T)
    # S depends only on the distance i - j
    np.testing.assert_allclose(view.similarity[1:, 1:], view.similarity[:-1, :-1], atol=1e-9)
    assert 0 <= view.closest[0] < view.closest[1] < n
    assert np.isfinite(view.closest_distance) and view.closest_distance >= 0
    assert -1 <= view.neighbour_cosine <= 1


def test_nearby_positions_are_more_alike_with_many_dimensions():
    s = encoding_explorer(64, 64).similarity
    by_distance = [s[0, k] for k in range(64)]
    assert by_distance[1] > by_distance[8] > by_distance[40]


@pytest.mark.parametrize(
    ("n", "d", "reason"),
    [
        (10, 5, "odd_d_model"),
        (10, 0, "odd_d_model"),
        (10, -4, "odd_d_model"),
        (-1, 4, "too_few_positions"),
        (MAX_POSITIONS + 1, 4, "too_large"),
        (10, MAX_D_MODEL + 2, "too_large"),
    ],
)
def test_bad_sizes_raise_with_a_reason(n, d, reason):
    with pytest.raises(EncodingSizeError) as err:
        sinusoidal_encoding(n, d)
    assert err.value.reason == reason
    assert isinstance(err.value, ValueError)


@pytest.mark.parametrize(("n", "d", "reason"), [(0, 4, "too_few_positions"), (1, 4, "too_few_positions")])
def test_explorer_needs_two_positions(n, d, reason):
    assert sinusoidal_encoding(n, d).shape == (n, d)  # the encoding itself allows it
    with pytest.raises(EncodingSizeError) as err:
        encoding_explorer(n, d)
    assert err.value.reason == reason


def test_more_hands_make_neighbours_more_alike():
    """The positional quiz: adding slower hands raises cos(PE_0, PE_1), it never lowers it."""
    cosines = [encoding_explorer(50, d).neighbour_cosine for d in range(2, 130, 2)]
    assert all(b >= a - 1e-12 for a, b in itertools.pairwise(cosines))
    assert cosines[0] == pytest.approx(np.cos(1.0))  # one hand: neighbours are 1 rad apart
