"""The mini GPT: its configuration, its weights, the forward and backward pass
through every layer, and what a trained model does (predict, show attention, generate)."""

from __future__ import annotations

import functools
import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import NamedTuple, TypeVar

import numpy as np

from lesson_core.attention import causal_mask, softmax
from lesson_core.sampling import Stages, check_temperature, check_top_k, check_top_p, sampling_stages
from lesson_core.transformer.data import BOS, EOS, Vocab, with_bos
from lesson_core.transformer.layers import (
    AttentionParams,
    BlockCache,
    BlockParams,
    FeedForwardParams,
    LayerNormParams,
    OutputParams,
    UnembedCache,
    block,
    block_backward,
    embed,
    embed_backward,
    unembed,
    unembed_backward,
)

FFN_MULT = 4  # feed-forward width = FFN_MULT · d_model
MAX_SEQUENCE = 64  # tokens in one prediction / generation prefix

Params = dict[str, np.ndarray]  # every weight by its name ("b0.attn.w_q", ...; see pack)


# --- configuration --------------------------------------------------------------------


@dataclass(frozen=True)
class Config:
    """Hyperparameters. The defaults train on corpus F to ``LOSS_TARGET`` in ~1 s.

    d_model       size of every token vector (even, so the sine/cosine pairs fit)
    n_heads       attention heads per block; must divide d_model
    n_blocks      transformer blocks (attention + feed-forward)
    steps         Adam steps (one step = the whole corpus)
    learning_rate Adam step size
    seed          seed of ``np.random.default_rng`` for the initial weights
    clip_norm     rescale the gradient when its global L2 norm exceeds this (None: never)
    blowup_factor training stops as "diverged" when the loss exceeds this × the first loss
    """

    d_model: int = 32
    n_heads: int = 4
    n_blocks: int = 2
    steps: int = 300
    learning_rate: float = 0.005
    seed: int = 0
    clip_norm: float | None = 1.0
    blowup_factor: float = 3.0

    def __post_init__(self) -> None:
        for name, low, high in (("d_model", 2, 256), ("n_heads", 1, 64), ("n_blocks", 1, 4)):
            _check_int(name, getattr(self, name), low, high)
        _check_int("steps", self.steps, 1, 100_000)
        _check_int("seed", self.seed, 0, 2**63 - 1)
        if self.d_model % 2:
            raise ValueError(f"d_model must be even (sine/cosine pairs), got {self.d_model}")
        if self.d_model % self.n_heads:
            raise ValueError(f"n_heads ({self.n_heads}) must divide d_model ({self.d_model})")
        _check_positive("learning_rate", self.learning_rate)
        _check_positive("blowup_factor", self.blowup_factor)
        if self.clip_norm is not None:
            _check_positive("clip_norm", self.clip_norm)

    @property
    def d_head(self) -> int:
        return self.d_model // self.n_heads

    @property
    def d_ff(self) -> int:
        return FFN_MULT * self.d_model


def _check_int(name: str, value: object, low: int, high: int) -> None:
    """ValueError unless value is an integer (not a bool) with low <= value <= high."""
    if isinstance(value, bool) or not isinstance(value, int | np.integer):
        raise ValueError(f"{name} must be an integer, got {value!r}")
    if not low <= value <= high:
        raise ValueError(f"{name} must be between {low} and {high}, got {value}")


def _check_positive(name: str, value: object) -> None:
    """ValueError unless value is a finite number > 0 (not a bool)."""
    if isinstance(value, bool) or not isinstance(value, int | float | np.number):
        raise ValueError(f"{name} must be a number, got {value!r}")
    if not math.isfinite(value) or value <= 0:
        raise ValueError(f"{name} must be a positive finite number, got {value!r}")


# --- parameters -------------------------------------------------------------------


class ModelParams(NamedTuple):
    """Every weight, grouped by layer. ``pack`` names the arrays (``Params``),
    ``unpack`` groups them again; the backward pass returns its gradients in
    the same structure."""

    embed: np.ndarray
    blocks: tuple[BlockParams, ...]
    final_ln: LayerNormParams
    out: OutputParams


_Group = TypeVar("_Group", LayerNormParams, AttentionParams, FeedForwardParams, OutputParams)

# The layers of one block, in the order of BlockParams: (name in Params, weights' type).
_BLOCK_LAYERS = (
    ("ln1", LayerNormParams),
    ("attn", AttentionParams),
    ("ln2", LayerNormParams),
    ("ffn", FeedForwardParams),
)


@functools.cache
def parameter_names(n_blocks: int) -> tuple[str, ...]:
    """Every name in ``Params``, in order: "embed"; per block b "b{b}.{layer}.{field}"
    (e.g. "b0.ln1.gain", "b1.attn.w_q", "b0.ffn.b2"); "final_ln.gain", "final_ln.bias",
    "out.w", "out.b". The one place that spells the names.

    Shapes: -> 5 + 12 · n_blocks names
    """
    per_block = [(layer, field) for layer, kind in _BLOCK_LAYERS for field in kind._fields]
    blocks = [f"b{b}.{layer}.{field}" for b in range(n_blocks) for layer, field in per_block]
    ends = [f"final_ln.{field}" for field in LayerNormParams._fields]
    return ("embed", *blocks, *ends, *(f"out.{field}" for field in OutputParams._fields))


def pack(model: ModelParams) -> Params:
    """Name every array by its place (``parameter_names``).

    Shapes: ModelParams -> {name: array}, in the order of ``parameter_names``
    """
    in_blocks = [array for block in model.blocks for group in block for array in group]
    arrays = [model.embed, *in_blocks, *model.final_ln, *model.out]
    return dict(zip(parameter_names(len(model.blocks)), arrays, strict=True))


def unpack(params: Params, n_blocks: int) -> ModelParams:
    """The inverse of ``pack`` for a model of n_blocks blocks (the arrays are not copied).

    Shapes: {name: array} -> ModelParams
    """
    arrays = iter([params[name] for name in parameter_names(n_blocks)])

    def take(kind: type[_Group]) -> _Group:  # the next len(kind._fields) arrays
        return kind._make(itertools.islice(arrays, len(kind._fields)))

    embed = next(arrays)
    blocks = tuple(BlockParams(*(take(kind) for _, kind in _BLOCK_LAYERS)) for _ in range(n_blocks))
    return ModelParams(embed, blocks, take(LayerNormParams), take(OutputParams))


def init_params(config: Config, vocab_size: int, rng: np.random.Generator) -> Params:
    """Random starting weights: embeddings ~ N(0, 1) (as large as the position
    vectors), each matrix ~ N(0, 1/fan_in) (the two that write into the residual
    stream also / 2·n_blocks), the output layer ~ N(0, 0.01²) so that the first
    prediction is nearly uniform (loss ≈ ln V); LayerNorm gains 1, biases 0.

    Shapes: -> embed [V, d], attention [d, d], ffn w1 [d, 4d], w2 [4d, d], out.w [d, V]
    """
    d, f = config.d_model, config.d_ff
    deep = math.sqrt(2 * config.n_blocks)

    def normal(*shape: int, std: float) -> np.ndarray:
        return rng.normal(0.0, std, size=shape)

    def layer_norm_params() -> LayerNormParams:
        return LayerNormParams(np.ones(d), np.zeros(d))

    def block() -> BlockParams:  # the draws happen in argument order: w_q, w_k, w_v, w_o, w1, w2
        return BlockParams(
            layer_norm_params(),
            AttentionParams(*(normal(d, d, std=d**-0.5) for _ in range(3)), normal(d, d, std=d**-0.5 / deep)),
            layer_norm_params(),
            FeedForwardParams(
                normal(d, f, std=d**-0.5), np.zeros(f), normal(f, d, std=f**-0.5 / deep), np.zeros(d)
            ),
        )

    embed = normal(vocab_size, d, std=1.0)
    blocks = tuple(block() for _ in range(config.n_blocks))
    out = OutputParams(normal(d, vocab_size, std=0.01), np.zeros(vocab_size))
    return pack(ModelParams(embed, blocks, layer_norm_params(), out))


def parameter_count(params: Params) -> int:
    """How many numbers training adjusts: Σ over the arrays of their sizes.

    Shapes: {name: array} -> scalar
    """
    return sum(a.size for a in params.values())


# --- the model ----------------------------------------------------------------------


@dataclass(frozen=True)
class ForwardCache:
    """model: the weights the forward pass used (the backward pass needs them too);
    token_ids [N]; blocks: one BlockCache per block; head: what ``unembed`` kept."""

    model: ModelParams
    token_ids: np.ndarray
    blocks: tuple[BlockCache, ...]
    head: UnembedCache


def forward(
    params: Params,
    token_ids: np.ndarray,
    config: Config,
    positions: np.ndarray | None = None,
    mask: np.ndarray | None = None,
) -> tuple[np.ndarray, ForwardCache]:
    """logits = LN(blocks(E[t] + PE[pos])) W_out + b_out; row i scores the token after t_1..t_i.

    One sequence by default (positions 0..N−1, the causal mask); a packed Batch
    passes its own positions and block-diagonal mask.

    Shapes: token_ids [N] (int) -> logits [N, V], cache
    """
    token_ids = np.asarray(token_ids, dtype=np.int64)
    n = len(token_ids)
    positions = np.arange(n) if positions is None else np.asarray(positions)
    mask = causal_mask(n) if mask is None else mask
    model = unpack(params, config.n_blocks)
    x = embed(model.embed, token_ids, positions)
    caches = []
    for p in model.blocks:
        x, cache = block(x, p, config.n_heads, mask)
        caches.append(cache)
    logits, head = unembed(x, model.final_ln, model.out)
    return logits, ForwardCache(model, token_ids, tuple(caches), head)


def backward(cache: ForwardCache, d_logits: np.ndarray, config: Config) -> Params:
    """``forward`` in reverse: from dlogits (the gradient of a loss with respect to
    the logits) through the output layer, each block from the last, and the embedding.

    Shapes: d_logits [N, V] -> grads {name: same shape as params[name]}
    """
    model = cache.model
    dx, d_final_ln, d_out = unembed_backward(d_logits, cache.head, model.final_ln, model.out)
    d_blocks = []
    for p, block_cache in zip(reversed(model.blocks), reversed(cache.blocks), strict=True):
        dx, d_block = block_backward(dx, block_cache, p, config.n_heads)
        d_blocks.append(d_block)
    d_embed = embed_backward(dx, cache.token_ids, len(model.embed))
    return pack(ModelParams(d_embed, tuple(reversed(d_blocks)), d_final_ln, d_out))


# --- using a trained model ----------------------------------------------------------


def _encode_prefix(vocab: Vocab, tokens: Sequence[str]) -> np.ndarray:
    """The ids of "<s>" + tokens; ValueError past MAX_SEQUENCE tokens or for an unknown token.

    Shapes: tokens [n] -> [n + 1] (int), or [n] when tokens already start with "<s>"
    """
    ids = vocab.encode(with_bos(tokens))
    if len(ids) > MAX_SEQUENCE:
        raise ValueError(f"the sequence has {len(ids)} tokens; at most {MAX_SEQUENCE}")
    return ids


def next_token_distribution(
    params: Params, config: Config, vocab: Vocab, prefix_tokens: Sequence[str]
) -> np.ndarray:
    """P(next = vocab.tokens[j] | "<s>" + prefix) = softmax(logits of the last position)_j.

    "<s>" is put in front unless the prefix starts with it; an empty prefix asks
    for the first word. ValueError for a token outside the vocabulary.

    Shapes: prefix_tokens [n] -> [V] (sums to 1)
    """
    logits, _ = forward(params, _encode_prefix(vocab, prefix_tokens), config)
    return softmax(logits[-1])


def attention_maps(params: Params, config: Config, vocab: Vocab, tokens: Sequence[str]) -> np.ndarray:
    """Every head's attention weights A = softmax(Q Kᵀ / √d_head + M) on "<s>" + tokens;
    row i: how much position i takes from each earlier position (the upper triangle is 0).

    Shapes: tokens [n − 1] -> [n_blocks, h, n, n], n counting "<s>"
    """
    _, cache = forward(params, _encode_prefix(vocab, tokens), config)
    return np.stack([c.weights for c in cache.blocks])


def generate(
    params: Params,
    config: Config,
    vocab: Vocab,
    prefix: Sequence[str],
    temperature: float,
    rng: np.random.Generator,
    max_tokens: int = 12,
    top_k: int | None = None,
    top_p: float = 1.0,
) -> tuple[str, ...]:
    """Sample one token at a time, append it and repeat, until "</s>" or max_tokens.
    Each step is ``lesson_core.sampling.sampling_stages`` on the last position's
    logits: softmax(logits / temperature) (temperature 0: always the most likely
    token, the first in vocabulary order on a tie), then top-k (None: k = V, off),
    then top-p (1: off), renormalised, drawn with ``rng``.

    "<s>" is never sampled (its logit is set to −inf). Returns the new tokens only;
    they end with "</s>" when the model chose to stop. ValueError for a bad
    temperature, top_k (1..V) or top_p ((0, 1]).

    Shapes: prefix [n] -> at most max_tokens tokens
    """
    check_temperature(temperature)
    top_k = len(vocab) if top_k is None else check_top_k(top_k, len(vocab))
    check_top_p(top_p)
    _check_int("max_tokens", max_tokens, 0, MAX_SEQUENCE)
    ids = list(_encode_prefix(vocab, prefix))
    out: list[str] = []
    while len(out) < max_tokens and len(ids) < MAX_SEQUENCE:
        step = _step(params, config, vocab, ids, temperature, top_k, top_p, rng)
        ids.append(step.drawn)
        out.append(vocab.tokens[step.drawn])
        if out[-1] == EOS:
            break
    return tuple(out)


def next_token_stages(
    params: Params,
    config: Config,
    vocab: Vocab,
    prefix_tokens: Sequence[str],
    temperature: float,
    top_k: int,
    top_p: float,
    rng: np.random.Generator,
) -> Stages:
    """The next generation step after "<s>" + prefix, every stage of it: what
    ``generate`` does for one token (same logits, same rules, same draw).

    Shapes: prefix_tokens [n] -> Stages of [V] arrays
    """
    return _step(
        params, config, vocab, list(_encode_prefix(vocab, prefix_tokens)), temperature, top_k, top_p, rng
    )


def _step(
    params: Params,
    config: Config,
    vocab: Vocab,
    ids: list[int],
    temperature: float,
    top_k: int,
    top_p: float,
    rng: np.random.Generator,
) -> Stages:
    """The last position's logits for the ids ("<s>" first), "<s>" set to −inf
    (never generated), through ``sampling_stages``.

    Shapes: ids [n] -> Stages of [V] arrays
    """
    logits, _ = forward(params, np.asarray(ids), config)
    scores = logits[-1].copy()
    scores[vocab.index(BOS)] = -np.inf
    return sampling_stages(scores, temperature, top_k, top_p, rng)
