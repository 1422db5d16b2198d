"""Layer 1: the bigram model and corpus F."""

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from lesson_core.bigram import (
    blind_spot,
    compare_prefix,
    fit_bigram,
    follows,
    frequent_tokens,
    normalize,
    prefix_next_counts,
    prefixes_ending_in,
    top_k,
    total_variation,
    vocabulary,
)
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


# --- the lesson's comparisons (hand-computed on corpus F) ----------------------

words = st.sampled_from(["a", "b", "c", "d"])
corpora = st.lists(st.lists(words, min_size=2, max_size=6), min_size=1, max_size=6)


def by_token(comp, dist):
    return {comp.vocab[i]: float(dist[i]) for i in np.flatnonzero(dist)}


def test_after_wa_by_hand():
    # は is followed 11 times in corpus F: いぬ twice (わたし は いぬ, きょう は いぬ), nine tokens once.
    cat = compare_prefix(CORPUS, ["ねこ", "は"])
    assert cat.n_bigram == 11 and cat.n_corpus == 4
    bigram = by_token(cat, cat.bigram)
    assert bigram.pop("いぬ") == pytest.approx(2 / 11)
    assert len(bigram) == 9 and all(p == pytest.approx(1 / 11) for p in bigram.values())
    assert by_token(cat, cat.corpus) == pytest.approx(
        dict.fromkeys(["ひるね", "さかな", "こたつ", "ひなたぼっこ"], 0.25)
    )
    # TV = ½ (4 · (1/4 − 1/11) + 7/11) = 7/11
    assert cat.tv == pytest.approx(float(Fraction(7, 11)))


def test_cat_and_dog_share_the_bigram_row_but_not_the_corpus():
    cat, dog = compare_prefix(CORPUS, ["ねこ", "は"]), compare_prefix(CORPUS, ["いぬ", "は"])
    np.testing.assert_array_equal(cat.bigram, dog.bigram)
    assert total_variation(cat.bigram, dog.bigram) == 0.0
    assert total_variation(cat.corpus, dog.corpus) == pytest.approx(1.0)
    assert by_token(dog, dog.corpus) == pytest.approx(
        dict.fromkeys(["さんぽ", "ボール", "ほね", "はしる"], 0.25)
    )
    assert cat.tv == pytest.approx(dog.tv)


def test_blind_spot_lists_every_prefix_ending_in_wa():
    assert prefixes_ending_in(CORPUS, "は") == (
        ("ねこ", "は"),
        ("いぬ", "は"),
        ("わたし", "は"),
        ("きょう", "は"),
    )
    spots = blind_spot(CORPUS, "は")
    for comp in spots:
        np.testing.assert_array_equal(comp.bigram, spots[0].bigram)
    # わたし は -> ねこ / いぬ half each: TV = ½ (|½ − 1/11| + |½ − 2/11| + 8/11) = 8/11
    assert spots[2].tv == pytest.approx(8 / 11)
    assert spots[3].tv == pytest.approx(9 / 11)  # きょう は -> いぬ only


def test_a_prefix_where_bigram_and_corpus_agree():
    # を is always followed by する, so knowing more than を changes nothing
    comp = compare_prefix(CORPUS, ["ねこ", "が", "ひるね", "を"])
    assert comp.tv == 0.0 and by_token(comp, comp.corpus) == {"する": 1.0}


def test_compare_prefix_edge_cases():
    with pytest.raises(ValueError):
        compare_prefix(CORPUS, [])
    unseen = compare_prefix(CORPUS, ["ねこ", "ペンギン"])
    assert unseen.n_bigram == unseen.n_corpus == 0 and len(unseen.shown) == 0
    end = compare_prefix(CORPUS, ["が", "すき"])  # nothing ever follows すき
    assert end.n_bigram == 0 and np.all(end.bigram == 0)


def test_probabilities_rows():
    model = fit_bigram([["a", "b", "a"], ["a", "b"], ["b", "c"]])
    # a -> b twice; b -> a once, b -> c once; c -> nothing
    np.testing.assert_allclose(model.probabilities, [[0, 1, 0], [0.5, 0, 0.5], [0, 0, 0]])


def test_follows_top_k_and_frequent_tokens():
    assert follows(CORPUS, "を") == {"する": 2}
    assert sum(follows(CORPUS, "は").values()) == 11
    np.testing.assert_array_equal(top_k(np.array([0.1, 0.4, 0.0, 0.4, 0.1]), 3), [1, 3, 0])
    assert len(top_k(np.zeros(4), 3)) == 0
    sentences = [["x", "y", "y"], ["z", "y", "x"]]  # x 2, y 3, z 1
    np.testing.assert_array_equal(frequent_tokens(sentences, 2), [0, 1])
    assert vocabulary(sentences) == ("x", "y", "z")


@given(corpora)
def test_one_token_prefix_is_the_bigram_itself(sentences):
    comp = compare_prefix(sentences, sentences[0][:1])
    np.testing.assert_allclose(comp.bigram, comp.corpus)
    assert comp.tv == pytest.approx(0.0, abs=1e-12)


@given(corpora, st.integers(2, 5))
def test_comparisons_are_distributions(sentences, m):
    prefix = sentences[0][: min(m, len(sentences[0]) - 1)]
    comp = compare_prefix(sentences, prefix)
    for dist in (comp.bigram, comp.corpus):
        assert np.all(np.isfinite(dist)) and np.all(dist >= 0)
        assert dist.sum() == pytest.approx(1.0)  # a sentence prefix is always followed by something
    assert 0.0 <= comp.tv <= 1.0 + 1e-12
    probs = fit_bigram(sentences).probabilities
    assert np.all(np.isfinite(probs))
    assert all(s == pytest.approx(1.0) or s == 0.0 for s in probs.sum(axis=1))
