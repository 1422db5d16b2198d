"""Layer 1: the bigram model and corpus F."""

import numpy as np

from lesson_core.bigram import fit_bigram, normalize, prefix_next_counts, total_variation
from lesson_core.examples import CORPUS


def test_counts_hand_computed():
    model = fit_bigram([["a", "b", "a"], ["a", "b"]])
    assert model.vocab == ("a", "b")
    np.testing.assert_array_equal(model.counts, [[0, 2], [1, 0]])
    np.testing.assert_allclose(model.next_distribution("a"), [0.0, 1.0])
    np.testing.assert_allclose(model.next_distribution("unseen"), [0.0, 0.0])


def test_corpus_f_shows_the_bigram_blind_spot():
    model = fit_bigram(CORPUS)
    after_wa = model.next_distribution("は")
    # The bigram's answer after ねこ は and after いぬ は is one and the same row.
    np.testing.assert_allclose(after_wa.sum(), 1.0)
    cat = normalize(prefix_next_counts(CORPUS, ["ねこ", "は"], model.vocab))
    dog = normalize(prefix_next_counts(CORPUS, ["いぬ", "は"], model.vocab))
    assert total_variation(cat, dog) == 1.0  # the corpus says: nothing in common
    assert total_variation(cat, after_wa) > 0.5 and total_variation(dog, after_wa) > 0.5


def test_corpus_f_has_no_duplicates_and_is_small():
    assert len(set(CORPUS)) == len(CORPUS)
    assert 10 <= len(CORPUS) <= 20
