"""The mini GPT's data: its vocabulary and the corpus packed into one training batch."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from lesson_core.attention import causal_mask
from lesson_core.bigram import vocabulary

BOS = "<s>"
EOS = "</s>"
MAX_TRAIN_TOKENS = 600  # packed training tokens (the attention matrix is N × N)


@dataclass(frozen=True)
class Vocab:
    """tokens: "<s>", "</s>", then the corpus tokens in order of first appearance."""

    tokens: tuple[str, ...]
    _where: dict[str, int] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if len(set(self.tokens)) != len(self.tokens):
            raise ValueError("vocabulary tokens must be unique")
        object.__setattr__(self, "_where", {tok: i for i, tok in enumerate(self.tokens)})

    @classmethod
    def from_sentences(cls, sentences: Sequence[Sequence[str]]) -> Vocab:
        """Shapes: sentences: list of token lists -> Vocab of V tokens"""
        words = [tok for tok in vocabulary(sentences) if tok not in (BOS, EOS)]
        return cls((BOS, EOS, *words))

    def __len__(self) -> int:
        return len(self.tokens)

    def index(self, token: str) -> int:
        return self._where[token]

    def encode(self, tokens: Sequence[str]) -> np.ndarray:
        """Token strings -> ids; ValueError naming the tokens the vocabulary lacks.

        Shapes: tokens [n] -> [n] (int)
        """
        unknown = [tok for tok in tokens if tok not in self._where]
        if unknown:
            raise ValueError(f"unknown tokens: {', '.join(dict.fromkeys(unknown))}")
        return np.array([self._where[tok] for tok in tokens], dtype=np.int64)

    def decode(self, ids: Sequence[int] | np.ndarray) -> tuple[str, ...]:
        """Shapes: ids [n] -> [n] tokens"""
        return tuple(self.tokens[int(i)] for i in ids)


def with_bos(tokens: Sequence[str]) -> tuple[str, ...]:
    """The sequence the model reads: "<s>" first (added unless already there).

    Shapes: tokens [n] -> [n + 1], or [n] when tokens[0] is "<s>"
    """
    tokens = tuple(tokens)
    return tokens if tokens[:1] == (BOS,) else (BOS, *tokens)


@dataclass(frozen=True)
class Batch:
    """Every sentence "<s> w_1 … w_m </s>" packed into one sequence.

    inputs [N] ids read; targets [N] ids to predict (the next token of the same
    sentence); positions [N] index within the sentence (0 = "<s>");
    mask [N, N] True where query i may see key j: same sentence and j <= i.
    """

    inputs: np.ndarray
    targets: np.ndarray
    positions: np.ndarray
    mask: np.ndarray


def make_batch(sentences: Sequence[Sequence[str]], vocab: Vocab) -> Batch:
    """Pack the sentences; the mask is the causal mask cut into one block per sentence.

    Shapes: sentences: S token lists -> Batch with N = Σ (len + 1) positions
    """
    if not sentences or not all(len(s) for s in sentences):
        raise ValueError("the corpus needs at least one sentence, and no empty sentences")
    ids = [vocab.encode([BOS, *s, EOS]) for s in sentences]
    inputs = np.concatenate([s[:-1] for s in ids])
    if len(inputs) > MAX_TRAIN_TOKENS:
        raise ValueError(f"the corpus has {len(inputs)} training tokens; at most {MAX_TRAIN_TOKENS}")
    sentence = np.concatenate([np.full(len(s) - 1, k) for k, s in enumerate(ids)])
    return Batch(
        inputs=inputs,
        targets=np.concatenate([s[1:] for s in ids]),
        positions=np.concatenate([np.arange(len(s) - 1) for s in ids]),
        mask=causal_mask(len(inputs)) & (sentence[:, None] == sentence[None, :]),
    )
