"""A bigram model: the next token predicted from the previous token only."""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

Sentence = Sequence[str]


@dataclass(frozen=True)
class BigramModel:
    """vocab: tokens in order of first appearance; counts[i, j]: how often
    vocab[j] directly follows vocab[i] in the corpus.

    Shapes: counts [V, V]
    """

    vocab: tuple[str, ...]
    counts: np.ndarray

    def index(self, token: str) -> int:
        return self.vocab.index(token)

    def next_distribution(self, previous: str) -> np.ndarray:
        """P(next = vocab[j] | previous) = counts[prev, j] / sum_j counts[prev, j].

        All zeros for a token the corpus never continues (or never saw).

        Shapes: -> [V]
        """
        if previous not in self.vocab:
            return np.zeros(len(self.vocab))
        return normalize(self.counts[self.index(previous)])


def vocabulary(sentences: Sequence[Sentence]) -> tuple[str, ...]:
    """Every token once, in order of first appearance."""
    return tuple(dict.fromkeys(tok for sentence in sentences for tok in sentence))


def fit_bigram(sentences: Sequence[Sentence]) -> BigramModel:
    """Count every pair of neighbouring tokens.

    Shapes: sentences: list of token lists -> counts [V, V]
    """
    vocab = vocabulary(sentences)
    where = {tok: i for i, tok in enumerate(vocab)}
    counts = np.zeros((len(vocab), len(vocab)), dtype=np.int64)
    for sentence in sentences:
        for a, b in itertools.pairwise(sentence):
            counts[where[a], where[b]] += 1
    return BigramModel(vocab=vocab, counts=counts)


def prefix_next_counts(sentences: Sequence[Sentence], prefix: Sentence, vocab: Sequence[str]) -> np.ndarray:
    """How often each vocab token follows the whole ``prefix`` in the corpus:
    the answer a model that sees all previous tokens could learn.

    Shapes: -> [V]
    """
    prefix, where = tuple(prefix), {tok: i for i, tok in enumerate(vocab)}
    counts = np.zeros(len(vocab), dtype=np.int64)
    m = len(prefix)
    for sentence in sentences:
        for start in range(len(sentence) - m):
            if tuple(sentence[start : start + m]) == prefix and sentence[start + m] in where:
                counts[where[sentence[start + m]]] += 1
    return counts


def normalize(counts: np.ndarray) -> np.ndarray:
    """counts / sum(counts), or all zeros when there is nothing to count."""
    counts = np.asarray(counts, dtype=float)
    total = counts.sum()
    return counts / total if total > 0 else np.zeros_like(counts)


def total_variation(p: np.ndarray, q: np.ndarray) -> float:
    """TV(p, q) = ½ Σ |p_i - q_i|: 0 for identical distributions, 1 for disjoint ones."""
    return 0.5 * float(np.abs(np.asarray(p) - np.asarray(q)).sum())
