"""Layer 1: rotary position embedding against a second implementation with
complex numbers, hand-computed cases and properties for any positions."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from lesson_core.rope import (
    EXAMPLE_K,
    EXAMPLE_Q,
    frequencies,
    rope_score,
    rotate,
    score_by_offset,
)

finite = st.floats(-10, 10, allow_nan=False)
vectors = st.integers(1, 8).flatmap(lambda h: arrays(float, 2 * h, elements=finite))
positions = st.integers(-500, 500)


def rotate_complex(x: np.ndarray, m: float, base: float = 10000.0) -> np.ndarray:
    """The same rotation written independently: pair i as the complex number
    x_2i + i·x_2i+1, multiplied by e^{i m θ_i}."""
    d = len(x)
    theta = np.array([base ** (-2 * i / d) for i in range(d // 2)])
    z = (x[0::2] + 1j * x[1::2]) * np.exp(1j * m * theta)
    out = np.empty(d)
    out[0::2], out[1::2] = z.real, z.imag
    return out


def test_frequencies_by_hand():
    np.testing.assert_allclose(frequencies(4), [1.0, 0.01])
    np.testing.assert_allclose(frequencies(8), [1.0, 0.1, 0.01, 0.001])
    with pytest.raises(ValueError):
        frequencies(3)


def test_quarter_turn_by_hand():
    # d = 2: θ_0 = 1, so position π/2 turns (1, 0) to (0, 1)
    np.testing.assert_allclose(rotate(np.array([1.0, 0.0]), np.pi / 2), [0.0, 1.0], atol=1e-15)
    # position 0 changes nothing
    np.testing.assert_array_equal(rotate(EXAMPLE_Q, 0), EXAMPLE_Q)


@settings(max_examples=60, deadline=None)
@given(vectors, positions)
def test_agrees_with_complex_numbers(x, m):
    np.testing.assert_allclose(rotate(x, m), rotate_complex(x, m), atol=1e-9)


def test_rows_get_their_own_positions():
    x = np.tile(EXAMPLE_Q, (4, 1))
    rows = rotate(x, np.arange(4))
    for m in range(4):
        np.testing.assert_allclose(rows[m], rotate_complex(EXAMPLE_Q, m), atol=1e-12)


@settings(max_examples=60, deadline=None)
@given(vectors, positions)
def test_rotation_keeps_lengths(x, m):
    assert np.linalg.norm(rotate(x, m)) == pytest.approx(np.linalg.norm(x), rel=1e-9, abs=1e-9)


@settings(max_examples=60, deadline=None)
@given(
    st.integers(1, 6).flatmap(
        lambda h: st.tuples(arrays(float, 2 * h, elements=finite), arrays(float, 2 * h, elements=finite))
    ),
    positions,
    positions,
    st.integers(-1000, 1000),
)
def test_shifting_both_positions_leaves_the_score_unchanged(qk, m, n, shift):
    q, k = qk
    before = rope_score(q, k, m, n).score
    after = rope_score(q, k, m + shift, n + shift).score
    assert after == pytest.approx(before, abs=1e-7 * (1 + np.linalg.norm(q) * np.linalg.norm(k)))


def test_score_depends_on_the_offset_only():
    table = np.array([[rope_score(EXAMPLE_Q, EXAMPLE_K, m, n).score for n in range(12)] for m in range(12)])
    for offset in range(-11, 12):
        diagonal = np.diagonal(table, offset=-offset)  # cells with m − n = offset
        np.testing.assert_allclose(diagonal, diagonal[0], atol=1e-12)
    offsets = np.arange(-11, 12)
    np.testing.assert_allclose(
        score_by_offset(EXAMPLE_Q, EXAMPLE_K, offsets),
        [rope_score(EXAMPLE_Q, EXAMPLE_K, max(o, 0), max(-o, 0)).score for o in offsets],
        atol=1e-12,
    )
    # and the offset matters: different offsets give different scores here
    assert len(set(np.round(score_by_offset(EXAMPLE_Q, EXAMPLE_K, offsets), 6))) == len(offsets)


def test_score_at_offset_zero_is_the_plain_dot_product():
    res = rope_score(EXAMPLE_Q, EXAMPLE_K, 7, 7)
    assert res.offset == 0
    assert res.score == pytest.approx(float(EXAMPLE_Q @ EXAMPLE_K))
    np.testing.assert_allclose(res.angles_q, 7 * frequencies(8))


def test_bad_positions_are_refused():
    with pytest.raises(ValueError):
        rotate(EXAMPLE_Q, np.nan)
    with pytest.raises(ValueError):
        rotate(EXAMPLE_Q, 10**9)
