"""Starting vectors for words the course has no hand-made vector for."""

import os
import subprocess
import sys

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from lesson_core import scaled_dot_product_attention
from lesson_core.word_vectors import HIGH, LOW, seeded_vector


def test_the_same_in_another_process():
    # Python's own hash() of a string changes from process to process; the
    # starting vectors must not (two servers behind nginx, a reload).
    code = "from lesson_core.word_vectors import seeded_vector; print(list(seeded_vector('いぬ', 4)))"
    env = os.environ | {"PYTHONHASHSEED": "12345"}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == str(list(seeded_vector("いぬ", 4)))


@given(st.text(max_size=40), st.integers(1, 8))
def test_small_one_decimal_numbers_in_range(token, d):
    v = seeded_vector(token, d)
    assert v.shape == (d,) and np.all((v >= LOW) & (v <= HIGH))
    np.testing.assert_array_equal(v, np.round(v, 1))
    np.testing.assert_array_equal(v, seeded_vector(token, d))


def test_a_new_sentence_gives_different_weights():
    tokens = ("いぬ", "ほね", "かじる", "とり", "そら")
    x = np.array([seeded_vector(tok, 4) for tok in tokens])
    weights = scaled_dot_product_attention(x, x, x).weights
    assert np.ptp(weights, axis=1).min() > 0.01
