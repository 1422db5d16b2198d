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

    @property
    def probabilities(self) -> np.ndarray:
        """P(next = vocab[j] | previous = vocab[i]): every row of counts normalized;
        a row the corpus never continues (a sentence's last token) is all zeros.

        Shapes: -> [V, V]
        """
        totals = self.counts.sum(axis=1, keepdims=True).astype(float)
        return np.divide(self.counts, totals, out=np.zeros(self.counts.shape), where=totals > 0)


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


@dataclass(frozen=True)
class PrefixComparison:
    """What comes after ``prefix``: the bigram's guess next to the corpus's own counts.

    vocab          [V]  the corpus's tokens in order of first appearance
    bigram_counts  [V]  how often each token follows the prefix's LAST token
    corpus_counts  [V]  how often each token follows the WHOLE prefix
    bigram, corpus [V]  the two rows normalized (all zeros when nothing follows)
    tv                  total_variation(bigram, corpus), in [0, 1]
    """

    prefix: tuple[str, ...]
    vocab: tuple[str, ...]
    bigram_counts: np.ndarray
    corpus_counts: np.ndarray
    bigram: np.ndarray
    corpus: np.ndarray
    tv: float

    @property
    def n_bigram(self) -> int:
        """How often the prefix's last token is followed by anything."""
        return int(self.bigram_counts.sum())

    @property
    def n_corpus(self) -> int:
        """How often the whole prefix is followed by anything."""
        return int(self.corpus_counts.sum())

    @property
    def shown(self) -> np.ndarray:
        """Indices of the tokens either side gives a chance to, in vocab order.

        Shapes: -> [k], k <= V
        """
        return np.flatnonzero((self.bigram_counts > 0) | (self.corpus_counts > 0))


def compare_prefix(sentences: Sequence[Sentence], prefix: Sentence) -> PrefixComparison:
    """The bigram's next-token distribution, P(next | prefix[-1]), against the
    corpus's, P(next | whole prefix) = count(prefix, next) / count(prefix, anything).

    The two agree for a one-token prefix; for longer ones they agree only
    when the tokens before the last one change nothing in the corpus.

    Shapes: sentences: list of token lists, prefix [m], m >= 1 -> distributions [V]
    """
    prefix = tuple(prefix)
    if not prefix:
        raise ValueError("the prefix needs at least one token")
    model = fit_bigram(sentences)
    last = model.vocab.index(prefix[-1]) if prefix[-1] in model.vocab else None
    bigram_counts = model.counts[last] if last is not None else np.zeros(len(model.vocab), dtype=np.int64)
    corpus_counts = prefix_next_counts(sentences, prefix, model.vocab)
    bigram, corpus = normalize(bigram_counts), normalize(corpus_counts)
    return PrefixComparison(
        prefix=prefix,
        vocab=model.vocab,
        bigram_counts=bigram_counts,
        corpus_counts=corpus_counts,
        bigram=bigram,
        corpus=corpus,
        tv=total_variation(bigram, corpus),
    )


def prefixes_ending_in(sentences: Sequence[Sentence], token: str) -> tuple[tuple[str, str], ...]:
    """Every distinct two-token prefix (a, ``token``) that is followed by something,
    in order of first appearance: e.g. (ねこ, は), (いぬ, は), ... for ``token`` = は.

    Shapes: -> [k] pairs
    """
    pairs = (
        (sentence[i - 1], token)
        for sentence in sentences
        for i in range(1, len(sentence) - 1)
        if sentence[i] == token
    )
    return tuple(dict.fromkeys(pairs))


def blind_spot(sentences: Sequence[Sentence], token: str) -> tuple[PrefixComparison, ...]:
    """``compare_prefix`` for every two-token prefix ending in ``token``: their
    bigram rows are all one and the same row, count[token, :], whatever came before.

    Shapes: -> [k] comparisons, each with distributions [V]
    """
    return tuple(compare_prefix(sentences, pair) for pair in prefixes_ending_in(sentences, token))


def follows(sentences: Sequence[Sentence], token: str) -> dict[str, int]:
    """How often each token directly follows ``token``: the bigram's row, as a dict.

    Shapes: -> {next token: count}
    """
    counts: dict[str, int] = {}
    for sentence in sentences:
        for a, b in itertools.pairwise(sentence):
            if a == token:
                counts[b] = counts.get(b, 0) + 1
    return counts


def top_k(p: np.ndarray, k: int) -> np.ndarray:
    """Indices of the k largest values of ``p`` with p > 0, largest first; ties
    keep the lower index first (vocab order), so the order never flickers.

    Shapes: p [V] -> [min(k, count of p > 0)]
    """
    p = np.asarray(p, dtype=float)
    order = np.argsort(-p, kind="stable")
    return order[p[order] > 0][:k]


def frequent_tokens(sentences: Sequence[Sentence], k: int) -> np.ndarray:
    """Indices (into ``vocabulary(sentences)``) of the k most frequent tokens,
    returned in vocabulary order: the rows and columns a count map has room for.

    Shapes: -> [min(k, V)]
    """
    vocab = vocabulary(sentences)
    where = {tok: i for i, tok in enumerate(vocab)}
    freq = np.zeros(len(vocab), dtype=np.int64)
    for sentence in sentences:
        for tok in sentence:
            freq[where[tok]] += 1
    keep = np.argsort(-freq, kind="stable")[:k]
    return np.sort(keep)
