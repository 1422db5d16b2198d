"""What each head of the trained mini GPT does, measured on a sentence: how much
weight it gives the previous token, the first token ("<s>"), the position
itself, and, from は, the subject before it; the pattern those scores name;
and which head(s) tell ねこ は from いぬ は, over the corpus.

Scores are weights from the attention map A (rows = queries, columns = keys,
each row summing to 1), so every score lies in [0, 1]. Position 0 is "<s>";
it can see only itself (A[0, 0] = 1 always), so it says nothing about a head
and every mean below skips it: the means run over the query positions
i = 1 … n − 1, where the previous token (i − 1), the first token (0) and the
position itself (i) are all defined. (At i = 1 the previous token *is* the
first token, so one weight counts for both.)

A head is named after a pattern when that pattern's score, as the page prints
it (a percentage to one decimal, ``lesson_core.ranking``), is at least
THRESHOLD as printed; when several pass, the largest names it, and when
several print the same largest value, every one of them does (so "previous
token" and "first token" on a two-position sentence, where they are one
weight). A head no score names is "mixed".

Shapes: one head's weights [n, n]; a model's maps [n_blocks, h, n, n].
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from lesson_core.capstone import WA, wa_position
from lesson_core.examples import CORPUS
from lesson_core.ranking import shown, tops
from lesson_core.transformer import TrainResult, attention_maps

THRESHOLD = 0.5  # a pattern names a head when its score prints at least this (50.0%)
PATTERNS = ("previous", "first", "itself", "subject")  # the order of the scores and of a tie's names


@dataclass(frozen=True)
class HeadScores:
    """One head on one sentence, each a weight in [0, 1].

    previous  mean over i = 1 … n − 1 of A[i, i − 1]: to the token just before
    first     mean over i = 1 … n − 1 of A[i, 0]: to "<s>"
    itself    mean over i = 1 … n − 1 of A[i, i]: to the position itself
    subject   A[w, w − 1] with w = は's position (``capstone.wa_position``):
              from は to the token before it (ねこ, いぬ, …); None when the
              sentence has no は after a subject
    """

    previous: float
    first: float
    itself: float
    subject: float | None

    def defined(self) -> dict[str, float]:
        """The scores that exist for this sentence, by pattern, in PATTERNS order."""
        values = {"previous": self.previous, "first": self.first, "itself": self.itself}
        return values if self.subject is None else values | {"subject": self.subject}


@dataclass(frozen=True)
class HeadRole:
    """A head's scores and the pattern(s) they name.

    scores    its HeadScores
    patterns  the PATTERNS it is named after: one, several on a tie as printed,
              or none (the head is "mixed")
    """

    scores: HeadScores
    patterns: tuple[str, ...]

    @property
    def mixed(self) -> bool:
        """No score reaches THRESHOLD."""
        return not self.patterns


def head_scores(weights: np.ndarray, tokens: Sequence[str], wa: str = WA) -> HeadScores:
    """previous = mean_i A[i, i−1], first = mean_i A[i, 0], itself = mean_i A[i, i]
    over i = 1 … n − 1; subject = A[w, w−1] at は's position w, or None.

    ValueError for an empty sentence (only "<s>": no position to average over).

    Shapes: weights [n, n] with n = len(tokens) + 1 -> scalars
    """
    weights = np.asarray(weights, dtype=float)
    n = len(tokens) + 1
    if n < 2 or weights.shape != (n, n):
        raise ValueError(f"need weights of shape ({n}, {n}) for a sentence of at least one token")
    rows = np.arange(1, n)
    w = wa_position(tokens, wa)
    return HeadScores(
        previous=float(weights[rows, rows - 1].mean()),
        first=float(weights[rows, 0].mean()),
        itself=float(weights[rows, rows].mean()),
        subject=None if w is None else float(weights[w, w - 1]),
    )


def named_patterns(scores: HeadScores, threshold: float = THRESHOLD) -> tuple[str, ...]:
    """The patterns whose score prints >= threshold as printed; of those the one(s)
    printing the largest value (``ranking.tops``: ties kept); () = mixed.

    Shapes: -> k names, 0 <= k <= 4
    """
    values = scores.defined()
    names = [
        name
        for name, value in values.items()
        if shown(np.array([value]))[0] >= shown(np.array([threshold]))[0]
    ]
    if not names:
        return ()
    return tuple(names[i] for i in tops(np.array([values[name] for name in names])))


def head_role(weights: np.ndarray, tokens: Sequence[str], threshold: float = THRESHOLD) -> HeadRole:
    """head_scores and the pattern(s) they name.

    Shapes: weights [n, n] -> HeadRole
    """
    scores = head_scores(weights, tokens)
    return HeadRole(scores, named_patterns(scores, threshold))


def head_roles(
    maps: np.ndarray, tokens: Sequence[str], threshold: float = THRESHOLD
) -> tuple[tuple[HeadRole, ...], ...]:
    """Every head's role: roles[b][h] = head_role(maps[b, h], tokens).

    Shapes: maps [n_blocks, h, n, n] -> n_blocks × h HeadRoles
    """
    return tuple(tuple(head_role(head, tokens, threshold) for head in block) for block in maps)


@dataclass(frozen=True)
class SubjectHeads:
    """Which head(s) look hardest from は to its subject, over a corpus.

    mean       [n_blocks, h]: A[b, h, w, w − 1] averaged over the sentences that
               have は after a subject
    sentences  how many sentences that average is over (>= 1)
    places     every (block, head), counted from 1, whose mean prints the same
               as the largest (``ranking.tops``): one pair, or several on a tie
    """

    mean: np.ndarray
    sentences: int
    places: tuple[tuple[int, int], ...]

    def weight(self, block: int, head: int) -> float:
        """The mean of (block, head), counted from 1."""
        return float(self.mean[block - 1, head - 1])

    @property
    def best(self) -> float:
        """The largest mean."""
        return float(self.mean.max())


def subject_heads_of(maps: Sequence[np.ndarray], sentences: Sequence[Sequence[str]]) -> SubjectHeads | None:
    """mean[b, h] = (1 / m) Σ_s A_s[b, h, w_s, w_s − 1] over the m sentences s with
    は after a subject (w_s its position); the places of its largest value (ties
    kept, as printed). None when no sentence has one.

    Shapes: maps: one [n_blocks, h, n_s, n_s] per sentence -> mean [n_blocks, h]
    """
    picked = [
        m[:, :, w, w - 1] for m, s in zip(maps, sentences, strict=True) if (w := wa_position(s)) is not None
    ]
    if not picked:
        return None
    mean = np.mean(np.stack(picked), axis=0)
    heads = mean.shape[1]
    places = tuple((int(j) // heads + 1, int(j) % heads + 1) for j in tops(mean.ravel()))
    return SubjectHeads(mean=mean, sentences=len(picked), places=places)


def subject_heads(result: TrainResult, sentences: Sequence[Sequence[str]] = CORPUS) -> SubjectHeads | None:
    """The trained model's attention maps on every sentence, then ``subject_heads_of``:
    the head(s) that tell ねこ は from いぬ は by looking from は at the animal.

    Shapes: -> mean [n_blocks, h]
    """
    maps = [attention_maps(result.params, result.config, result.vocab, s) for s in sentences]
    return subject_heads_of(maps, sentences)


__all__ = [
    "PATTERNS",
    "THRESHOLD",
    "HeadRole",
    "HeadScores",
    "SubjectHeads",
    "head_role",
    "head_roles",
    "head_scores",
    "named_patterns",
    "subject_heads",
    "subject_heads_of",
]
