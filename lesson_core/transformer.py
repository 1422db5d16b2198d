"""A tiny decoder-only transformer (a mini GPT), trained in NumPy on corpus F.

The model, for a sequence of token ids t_1..t_n that starts with "<s>":

    x_0 = E[t] + PE                                  token embedding + sinusoidal position
    for each block b:
        x = x + MultiHead(LN(x)) with the causal mask  (pre-norm, residual)
        x = x + FFN(LN(x)),  FFN(u) = GELU(u W_1 + b_1) W_2 + b_2   (width 4·d_model)
    logits = LN(x) W_out + b_out                      one row per position: scores for the next token
    loss = mean over positions of −log softmax(logits)[next token]

Attention, the mask and the position vectors are the lessons' own functions
(``multi_head_attention``, ``causal_mask``, ``sinusoidal_encoding``); this
module adds LayerNorm, the feed-forward layer, the hand-written backward pass,
Adam and the training loop. Everything is float64 and deterministic for a
given seed.

Training packs every sentence ("<s> … </s>") into one sequence of N tokens
and blocks attention across sentence borders (a block-diagonal causal mask),
so there is no padding and every position of every sentence is a target.

Parameters travel as ``Params``, one flat dict of arrays by name (what Adam,
the page and ``kv_cache`` read): ``embed`` [V, d]; per block ``b{i}.ln1.gain``,
``b{i}.ln1.bias``, ``b{i}.attn.w_q``/``w_k``/``w_v``/``w_o`` [d, d], ``b{i}.ln2.gain``,
``b{i}.ln2.bias``, ``b{i}.ffn.w1`` [d, 4d], ``b{i}.ffn.b1`` [4d], ``b{i}.ffn.w2`` [4d, d],
``b{i}.ffn.b2`` [d]; then ``final_ln.gain``, ``final_ln.bias``, ``out.w`` [d, V], ``out.b`` [V].
The layers read them grouped (``ModelParams``: one ``BlockParams`` per block, ...);
``pack`` and ``unpack`` are the only places that spell the names. Each layer's
forward function sits beside its backward function, which returns its gradients
in the same groups.

Shapes below use N for the tokens of a (packed) sequence, plus the axis names
of ``lesson_core/__init__.py``.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Literal, NamedTuple, TypeVar

import numpy as np

from lesson_core.attention import causal_mask, softmax
from lesson_core.bigram import vocabulary
from lesson_core.examples import CORPUS
from lesson_core.multihead import multi_head_attention, split_heads
from lesson_core.positional import sinusoidal_encoding

BOS = "<s>"
EOS = "</s>"

# Mean cross-entropy (nats per predicted token) that training on corpus F aims for.
# The best any model can do on corpus F is 0.435 (the entropy of the next token given
# the whole prefix). A model whose distribution after "ねこ は" equals the one after
# "いぬ は" (a bigram's blind spot) can do no better than 0.500: there the 8 objects
# have probability ≤ 1/8 instead of 1/4. So reaching 0.45 means the two distributions
# differ; with everything else learned it leaves at most ~0.15 of the mass on the
# other animal's objects (total variation ≳ 0.7).
LOSS_TARGET = 0.45

FFN_MULT = 4  # feed-forward width = FFN_MULT · d_model
LN_EPS = 1e-5
ADAM_BETA1, ADAM_BETA2, ADAM_EPS = 0.9, 0.999, 1e-8
MAX_TRAIN_TOKENS = 600  # packed training tokens (the attention matrix is N × N)
MAX_SEQUENCE = 64  # tokens in one prediction / generation prefix
# The work one training may do, in units of steps × n_blocks × d_model × (d_model + 32)
# (the matrix products of a step grow with d_model², attention with d_model):
# twice the default run (300 steps at width 32 with 2 blocks), which is a few
# seconds on one core at the widest setting (tests/benchmarks/training.py --worst).
MAX_TRAIN_WORK = 2 * 300 * 2 * 32 * (32 + 32)

Status = Literal["finished", "stopped", "diverged"]
Params = dict[str, np.ndarray]
Callback = Callable[[int, float], bool | None]  # (step, loss) -> False to stop training


# --- configuration and vocabulary -------------------------------------------------


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


def training_work(config: Config) -> int:
    """steps × n_blocks × d_model × (d_model + 32): what ``MAX_TRAIN_WORK`` bounds."""
    return config.steps * _work_per_step(config.d_model, config.n_blocks)


def _work_per_step(d_model: int, n_blocks: int) -> int:
    """n_blocks × d_model × (d_model + 32): the work of one step, in MAX_TRAIN_WORK's units."""
    return n_blocks * d_model * (d_model + 32)


def max_steps(d_model: int, n_blocks: int) -> int:
    """The most steps one training may take at this size (see MAX_TRAIN_WORK)."""
    return MAX_TRAIN_WORK // _work_per_step(d_model, n_blocks)


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
    """The sequence the model reads: "<s>" first (added unless already there)."""
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


# --- parameters -------------------------------------------------------------------


class LayerNormParams(NamedTuple):
    """gain [d], bias [d]."""

    gain: np.ndarray
    bias: np.ndarray


class AttentionParams(NamedTuple):
    """w_q, w_k, w_v, w_o [d, d]."""

    w_q: np.ndarray
    w_k: np.ndarray
    w_v: np.ndarray
    w_o: np.ndarray


class FeedForwardParams(NamedTuple):
    """w1 [d, 4d], b1 [4d], w2 [4d, d], b2 [d]."""

    w1: np.ndarray
    b1: np.ndarray
    w2: np.ndarray
    b2: np.ndarray


class BlockParams(NamedTuple):
    """One block: LayerNorm, attention, LayerNorm, feed-forward."""

    ln1: LayerNormParams
    attn: AttentionParams
    ln2: LayerNormParams
    ffn: FeedForwardParams


class OutputParams(NamedTuple):
    """w [d, V], b [V]: the logits are LN(x) w + b."""

    w: np.ndarray
    b: np.ndarray


class ModelParams(NamedTuple):
    """Every weight, grouped by layer. ``pack`` names the arrays (``Params``),
    ``unpack`` groups them again; the backward pass returns its gradients in
    the same structure."""

    embed: np.ndarray
    blocks: tuple[BlockParams, ...]
    final_ln: LayerNormParams
    out: OutputParams


_Group = TypeVar("_Group", LayerNormParams, AttentionParams, FeedForwardParams, OutputParams)


def pack(model: ModelParams) -> Params:
    """The name of an array is its place: "embed", "b{i}.{layer}.{field}"
    (layer: ln1, attn, ln2, ffn), "final_ln.{field}", "out.{field}".

    Shapes: ModelParams -> {name: array}, in the order of ``ModelParams``
    """
    groups: list[tuple[str, NamedTuple]] = [
        (f"b{b}.{layer}", group)
        for b, block in enumerate(model.blocks)
        for layer, group in zip(block._fields, block, strict=True)
    ]
    params: Params = {"embed": model.embed}
    for prefix, group in [*groups, ("final_ln", model.final_ln), ("out", model.out)]:
        params |= {f"{prefix}.{field}": array for field, array in zip(group._fields, group, strict=True)}
    return params


def unpack(params: Params, n_blocks: int) -> ModelParams:
    """The inverse of ``pack`` for a model of n_blocks blocks (the arrays are not copied).

    Shapes: {name: array} -> ModelParams
    """

    def group(kind: type[_Group], prefix: str) -> _Group:
        return kind(*(params[f"{prefix}.{field}"] for field in kind._fields))

    blocks = tuple(
        BlockParams(
            group(LayerNormParams, f"b{b}.ln1"),
            group(AttentionParams, f"b{b}.attn"),
            group(LayerNormParams, f"b{b}.ln2"),
            group(FeedForwardParams, f"b{b}.ffn"),
        )
        for b in range(n_blocks)
    )
    return ModelParams(
        params["embed"], blocks, group(LayerNormParams, "final_ln"), group(OutputParams, "out")
    )


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
    """How many numbers training adjusts: Σ over the arrays of their sizes."""
    return sum(a.size for a in params.values())


# --- layers: each forward pass beside its backward pass -----------------------------


def embed(table: np.ndarray, token_ids: np.ndarray, positions: np.ndarray) -> np.ndarray:
    """x_0 = E[t] + PE[pos]: each token's row of the embedding table plus its position's vector.

    Shapes: table [V, d], token_ids [N], positions [N] -> x [N, d]
    """
    return table[token_ids] + sinusoidal_encoding(int(positions.max()) + 1, table.shape[1])[positions]


def embed_backward(dx: np.ndarray, token_ids: np.ndarray, vocab_size: int) -> np.ndarray:
    """dE[v] = Σ over the positions i with t_i = v of dx_i (PE has no weights).

    Shapes: dx [N, d], token_ids [N] -> dE [V, d]
    """
    d_table = np.zeros((vocab_size, dx.shape[1]))
    np.add.at(d_table, token_ids, dx)
    return d_table


def layer_norm(
    x: np.ndarray, gain: np.ndarray, bias: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """LN(x) = gain · (x − mean(x)) / sqrt(var(x) + eps) + bias, over the last axis.

    Returns (y, x_hat, inv_std) — the normalized x and 1/std, kept for the backward pass.

    Shapes: x [N, d], gain [d], bias [d] -> y [N, d], x_hat [N, d], inv_std [N, 1]
    """
    centred = x - x.mean(axis=-1, keepdims=True)
    inv_std = 1.0 / np.sqrt((centred**2).mean(axis=-1, keepdims=True) + LN_EPS)
    x_hat = centred * inv_std
    return gain * x_hat + bias, x_hat, inv_std


def layer_norm_backward(
    dy: np.ndarray, x_hat: np.ndarray, inv_std: np.ndarray, gain: np.ndarray
) -> tuple[np.ndarray, LayerNormParams]:
    """dx = inv_std · (g − mean(g) − x_hat · mean(g · x_hat)), g = dy · gain;
    dgain = Σ_rows dy · x_hat; dbias = Σ_rows dy.

    Shapes: dy, x_hat [N, d], inv_std [N, 1], gain [d] -> dx [N, d], (dgain [d], dbias [d])
    """
    g = dy * gain
    dx = inv_std * (g - g.mean(axis=-1, keepdims=True) - x_hat * (g * x_hat).mean(axis=-1, keepdims=True))
    return dx, LayerNormParams((dy * x_hat).sum(axis=0), dy.sum(axis=0))


@dataclass(frozen=True)
class AttentionCache:
    """u [N, d] the attention's input; weights [h, N, N]; concat [N, d] the heads before W_O."""

    u: np.ndarray
    weights: np.ndarray
    concat: np.ndarray


def attention(
    x: np.ndarray, u: np.ndarray, p: AttentionParams, n_heads: int, mask: np.ndarray
) -> tuple[np.ndarray, AttentionCache]:
    """x + MultiHead(u): the residual x plus ``multi_head_attention`` of u under the mask,
    Concat(heads) W_O with head = softmax(Q Kᵀ / √d_head + M) V.

    Shapes: x, u [N, d], mask [N, N] -> [N, d], cache
    """
    att = multi_head_attention(u, *p, n_heads, mask=mask)
    return x + att.output, AttentionCache(u, att.weights, att.concat)


def merge_heads(x: np.ndarray) -> np.ndarray:
    """The inverse of ``split_heads``: put the heads' slices side by side again.

    Shapes: x [h, N, d_head] -> [N, h · d_head]
    """
    return x.transpose(1, 0, 2).reshape(x.shape[1], -1)


def attention_backward(
    d_out: np.ndarray, cache: AttentionCache, p: AttentionParams, n_heads: int
) -> tuple[np.ndarray, AttentionParams]:
    """Backward through MultiHead(u), from what ``attention`` kept (A = weights):

        dW_O = concatᵀ d_out;   dHead = split(d_out W_Oᵀ)
        dV = Aᵀ dHead;          dA = dHead Vᵀ
        dS = A ⊙ (dA − rowsum(dA ⊙ A)) / √d_head    (masked cells have A = 0, so dS = 0)
        dQ = dS K;  dK = dSᵀ Q;  dW_Q = uᵀ merge(dQ) (same for K, V);  du = Σ merge(d·) W_·ᵀ

    Q, K, V are recomputed from u (three small matrix products).

    Shapes: d_out [N, d] -> du [N, d], grads of w_q, w_k, w_v, w_o [d, d]
    """
    u, weights = cache.u, cache.weights
    q, k, v = (split_heads(u @ w, n_heads) for w in (p.w_q, p.w_k, p.w_v))
    d_head = split_heads(d_out @ p.w_o.T, n_heads)
    d_v = np.swapaxes(weights, -1, -2) @ d_head
    d_weights = d_head @ np.swapaxes(v, -1, -2)
    d_scores = (
        weights * (d_weights - (d_weights * weights).sum(axis=-1, keepdims=True)) / math.sqrt(q.shape[-1])
    )
    d_q, d_k = d_scores @ k, np.swapaxes(d_scores, -1, -2) @ q
    d_q, d_k, d_v = merge_heads(d_q), merge_heads(d_k), merge_heads(d_v)
    grads = AttentionParams(u.T @ d_q, u.T @ d_k, u.T @ d_v, cache.concat.T @ d_out)
    return d_q @ p.w_q.T + d_k @ p.w_k.T + d_v @ p.w_v.T, grads


_GELU_C = math.sqrt(2.0 / math.pi)


def gelu(u: np.ndarray) -> np.ndarray:
    """GELU(u) ≈ ½ u (1 + tanh(√(2/π) (u + 0.044715 u³))) (the tanh form of GPT-2).

    Shapes: u [...] -> [...]
    """
    return 0.5 * u * (1.0 + np.tanh(_GELU_C * (u + 0.044715 * u * u * u)))


def gelu_grad(u: np.ndarray) -> np.ndarray:
    """dGELU/du = ½ (1 + tanh a) + ½ u (1 − tanh² a) √(2/π) (1 + 3·0.044715 u²), a as in ``gelu``.

    Shapes: u [...] -> [...]
    """
    th = np.tanh(_GELU_C * (u + 0.044715 * u * u * u))
    return 0.5 * (1.0 + th) + 0.5 * u * (1.0 - th**2) * _GELU_C * (1.0 + 3 * 0.044715 * u * u)


@dataclass(frozen=True)
class FeedForwardCache:
    """u [N, d] the input; pre [N, 4d] before GELU; act [N, 4d] after GELU."""

    u: np.ndarray
    pre: np.ndarray
    act: np.ndarray


def feed_forward(x: np.ndarray, u: np.ndarray, p: FeedForwardParams) -> tuple[np.ndarray, FeedForwardCache]:
    """x + FFN(u), FFN(u) = GELU(u W_1 + b_1) W_2 + b_2: the residual x plus the feed-forward of u.

    Shapes: x, u [N, d] -> [N, d], cache
    """
    pre = u @ p.w1 + p.b1
    act = gelu(pre)
    return x + act @ p.w2 + p.b2, FeedForwardCache(u, pre, act)


def feed_forward_backward(
    d_out: np.ndarray, cache: FeedForwardCache, p: FeedForwardParams
) -> tuple[np.ndarray, FeedForwardParams]:
    """dW_2 = actᵀ d_out; db_2 = Σ_rows d_out; dpre = (d_out W_2ᵀ) ⊙ GELU'(pre);
    dW_1 = uᵀ dpre; db_1 = Σ_rows dpre; du = dpre W_1ᵀ.

    Shapes: d_out [N, d] -> du [N, d], grads of w1 [d, 4d], b1 [4d], w2 [4d, d], b2 [d]
    """
    d_w2, d_b2 = cache.act.T @ d_out, d_out.sum(axis=0)
    d_pre = (d_out @ p.w2.T) * gelu_grad(cache.pre)
    grads = FeedForwardParams(cache.u.T @ d_pre, d_pre.sum(axis=0), d_w2, d_b2)
    return d_pre @ p.w1.T, grads


@dataclass(frozen=True)
class BlockCache:
    """What one block's forward keeps for its backward pass and for the page:
    ln1 / ln2 (x_hat, inv_std) of the two LayerNorms, and the two layers' caches."""

    ln1: tuple[np.ndarray, np.ndarray]
    attn: AttentionCache
    ln2: tuple[np.ndarray, np.ndarray]
    ffn: FeedForwardCache

    @property
    def weights(self) -> np.ndarray:
        """The attention weights [h, N, N] (row i: what position i takes from each position)."""
        return self.attn.weights


def block(x: np.ndarray, p: BlockParams, n_heads: int, mask: np.ndarray) -> tuple[np.ndarray, BlockCache]:
    """x ← x + MultiHead(LN_1(x)); x ← x + FFN(LN_2(x))  (pre-norm, residual).

    Shapes: x [N, d], mask [N, N] -> [N, d], cache
    """
    u1, *ln1 = layer_norm(x, *p.ln1)
    x, attn = attention(x, u1, p.attn, n_heads, mask)
    u2, *ln2 = layer_norm(x, *p.ln2)
    x, ffn = feed_forward(x, u2, p.ffn)
    return x, BlockCache((ln1[0], ln1[1]), attn, (ln2[0], ln2[1]), ffn)


def block_backward(
    dx: np.ndarray, cache: BlockCache, p: BlockParams, n_heads: int
) -> tuple[np.ndarray, BlockParams]:
    """The two residual steps of ``block`` in reverse: each passes dx straight
    through and adds the gradient that reaches x through its branch (layer, then LayerNorm).

    Shapes: dx [N, d] -> dx [N, d], the block's gradients
    """
    d_u2, d_ffn = feed_forward_backward(dx, cache.ffn, p.ffn)
    d_branch, d_ln2 = layer_norm_backward(d_u2, *cache.ln2, p.ln2.gain)
    dx = dx + d_branch
    d_u1, d_attn = attention_backward(dx, cache.attn, p.attn, n_heads)
    d_branch, d_ln1 = layer_norm_backward(d_u1, *cache.ln1, p.ln1.gain)
    return dx + d_branch, BlockParams(d_ln1, d_attn, d_ln2, d_ffn)


@dataclass(frozen=True)
class UnembedCache:
    """ln (x_hat, inv_std) of the final LayerNorm; final [N, d] its output (what W_out reads)."""

    ln: tuple[np.ndarray, np.ndarray]
    final: np.ndarray


def unembed(x: np.ndarray, ln: LayerNormParams, out: OutputParams) -> tuple[np.ndarray, UnembedCache]:
    """logits = LN(x) W_out + b_out; row i scores every token as the next one.

    Shapes: x [N, d] -> logits [N, V], cache
    """
    final, x_hat, inv_std = layer_norm(x, *ln)
    return final @ out.w + out.b, UnembedCache((x_hat, inv_std), final)


def unembed_backward(
    d_logits: np.ndarray, cache: UnembedCache, ln: LayerNormParams, out: OutputParams
) -> tuple[np.ndarray, LayerNormParams, OutputParams]:
    """dW_out = finalᵀ dlogits; db_out = Σ_rows dlogits; dx = LN backward of dlogits W_outᵀ.

    Shapes: d_logits [N, V] -> dx [N, d], grads of final_ln (gain, bias [d]), out (w [d, V], b [V])
    """
    d_out = OutputParams(cache.final.T @ d_logits, d_logits.sum(axis=0))
    dx, d_ln = layer_norm_backward(d_logits @ out.w.T, *cache.ln, ln.gain)
    return dx, d_ln, d_out


# --- the model ----------------------------------------------------------------------


@dataclass(frozen=True)
class ForwardCache:
    """token_ids [N]; blocks: one BlockCache per block; head: what ``unembed`` kept."""

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
    return logits, ForwardCache(token_ids, tuple(caches), head)


def backward(params: Params, cache: ForwardCache, d_logits: np.ndarray, config: Config) -> Params:
    """``forward`` in reverse: from dlogits (the gradient of a loss with respect to
    the logits) through the output layer, each block from the last, and the embedding.

    Shapes: d_logits [N, V] -> grads {name: same shape as params[name]}
    """
    model = unpack(params, config.n_blocks)
    dx, d_final_ln, d_out = unembed_backward(d_logits, cache.head, model.final_ln, model.out)
    d_blocks = []
    for p, block_cache in zip(reversed(model.blocks), reversed(cache.blocks), strict=True):
        dx, d_block = block_backward(dx, block_cache, p, config.n_heads)
        d_blocks.append(d_block)
    d_embed = embed_backward(dx, cache.token_ids, len(model.embed))
    return pack(ModelParams(d_embed, tuple(reversed(d_blocks)), d_final_ln, d_out))


def log_softmax(logits: np.ndarray) -> np.ndarray:
    """log softmax(z)_j = z_j − max z − log Σ_k exp(z_k − max z); finite for finite z.

    Shapes: logits [N, V] -> [N, V]
    """
    shifted = logits - logits.max(axis=-1, keepdims=True)
    return shifted - np.log(np.exp(shifted).sum(axis=-1, keepdims=True))


def cross_entropy(logits: np.ndarray, targets: np.ndarray) -> tuple[float, np.ndarray]:
    """loss = −(1/N) Σ_i log softmax(logits_i)[target_i]  (nats per token).

    Returns (loss, log_p), log_p = log softmax(logits) kept for the backward pass.

    Shapes: logits [N, V], targets [N] -> scalar, log_p [N, V]
    """
    log_p = log_softmax(logits)
    return float(-log_p[np.arange(len(targets)), targets].mean()), log_p


def cross_entropy_backward(log_p: np.ndarray, targets: np.ndarray) -> np.ndarray:
    """dloss/dlogits = (softmax(logits) − onehot(target)) / N.

    Shapes: log_p [N, V], targets [N] -> d_logits [N, V]
    """
    n = len(targets)
    d_logits = np.exp(log_p)
    d_logits[np.arange(n), targets] -= 1.0
    d_logits /= n
    return d_logits


def loss_and_grads(params: Params, batch: Batch, config: Config) -> tuple[float, Params]:
    """The mean next-token cross-entropy on the batch and its exact gradient for
    every parameter: forward, loss, and back the same way.

    Shapes: batch of N positions -> loss scalar, grads {name: same shape as params[name]}
    """
    logits, cache = forward(params, batch.inputs, config, batch.positions, batch.mask)
    loss, log_p = cross_entropy(logits, batch.targets)
    return loss, backward(params, cache, cross_entropy_backward(log_p, batch.targets), config)


# --- training -----------------------------------------------------------------------


@dataclass(frozen=True)
class TrainResult:
    """The outcome of ``train``; never holds NaN or inf.

    params          the weights after the last step (after "diverged": the last weights
                    whose loss was still finite and below the blow-up limit)
    vocab, config   what they were trained with
    losses [steps]  the loss at each completed step (before that step's update)
    status          "finished" (all steps), "stopped" (the callback said stop) or "diverged"
    step            the last step that ran (for "diverged": the step whose loss blew up)
    target_step     first step whose loss was <= LOSS_TARGET (None if never)
    seconds         wall time of the loop; seconds_to_target: until target_step (None if never)
    """

    params: Params
    vocab: Vocab
    config: Config
    losses: np.ndarray
    status: Status
    step: int
    target_step: int | None = None
    seconds: float = 0.0
    seconds_to_target: float | None = None

    @property
    def final_loss(self) -> float | None:
        """The last finite loss (None when not even the first step ran)."""
        return float(self.losses[-1]) if len(self.losses) else None

    @property
    def reached_target(self) -> bool:
        return self.target_step is not None


def clip_by_global_norm(grads: Params, max_norm: float | None) -> Params:
    """g ← g · min(1, max_norm / ‖g‖₂), ‖g‖₂ over all parameters together."""
    if max_norm is None:
        return grads
    norm = math.sqrt(sum(float((g**2).sum()) for g in grads.values()))
    return grads if norm <= max_norm else {k: g * (max_norm / norm) for k, g in grads.items()}


def adam_step(
    params: Params, grads: Params, m: Params, v: Params, step: int, learning_rate: float
) -> tuple[Params, Params, Params]:
    """Adam (β1 0.9, β2 0.999, ε 1e-8), step t = 1, 2, …:
    m ← β1 m + (1 − β1) g;  v ← β2 v + (1 − β2) g²;
    θ ← θ − lr · (m / (1 − β1ᵗ)) / (sqrt(v / (1 − β2ᵗ)) + ε).  Returns new dicts.

    Shapes: every dict maps a name to an array of that parameter's shape
    """
    m = {k: ADAM_BETA1 * m[k] + (1 - ADAM_BETA1) * g for k, g in grads.items()}
    v = {k: ADAM_BETA2 * v[k] + (1 - ADAM_BETA2) * g**2 for k, g in grads.items()}
    c1, c2 = 1 - ADAM_BETA1**step, 1 - ADAM_BETA2**step
    new = {k: params[k] - learning_rate * (m[k] / c1) / (np.sqrt(v[k] / c2) + ADAM_EPS) for k in params}
    return new, m, v


def _clipped_adam_step(
    params: Params, grads: Params, m: Params, v: Params, step: int, config: Config
) -> tuple[Params, Params, Params]:
    """``adam_step`` on g clipped to config.clip_norm, at config.learning_rate; an
    overflow is not an error here (``train`` checks the new weights).

    Shapes: every dict maps a name to an array of that parameter's shape
    """
    with np.errstate(all="ignore"):
        clipped = clip_by_global_norm(grads, config.clip_norm)
        return adam_step(params, clipped, m, v, step, config.learning_rate)


def _finite(arrays: Params) -> bool:
    """True when every number of every array is finite (no NaN, no ±inf)."""
    return all(np.isfinite(a).all() for a in arrays.values())


def train(
    corpus: Sequence[Sequence[str]] = CORPUS,
    config: Config | None = None,
    callback: Callback | None = None,
) -> TrainResult:
    """Full-batch training: each step computes the loss on every position of every
    sentence, its gradient, clips it, and takes one Adam step.

    ``config`` may ask for at most MAX_TRAIN_WORK (ValueError otherwise).
    ``callback(step, loss)`` runs after each step's loss (step = 1, 2, …);
    returning False stops training ("stopped"). A non-finite loss or gradient,
    or a loss above blowup_factor × the first loss, stops it as "diverged".

    Shapes: corpus: S token lists -> TrainResult with losses [steps run]
    """
    config = config or Config()
    if training_work(config) > MAX_TRAIN_WORK:
        raise ValueError(
            f"{config.steps} steps at width {config.d_model} with {config.n_blocks} blocks is more work "
            f"than one training may do; at most {max_steps(config.d_model, config.n_blocks)} steps"
        )
    vocab = Vocab.from_sentences(corpus)
    params = init_params(config, len(vocab), np.random.default_rng(config.seed))
    return _descend(params, make_batch(corpus, vocab), vocab, config, callback)


def _descend(
    params: Params, batch: Batch, vocab: Vocab, config: Config, callback: Callback | None
) -> TrainResult:
    """``train``'s loop: up to config.steps Adam steps from params, stopping as ``train`` describes.

    Shapes: params {name: array}, batch of N positions -> TrainResult
    """
    m = v = {k: np.zeros_like(a) for k, a in params.items()}  # adam_step returns new dicts
    losses: list[float] = []
    status: Status = "finished"
    target_step = seconds_to_target = None
    start = time.perf_counter()
    step, last_good = 0, params
    for step in range(1, config.steps + 1):
        with np.errstate(all="ignore"):  # overflow is caught below as "diverged"
            loss, grads = loss_and_grads(params, batch, config)
        limit = config.blowup_factor * losses[0] if losses else math.inf
        if not (math.isfinite(loss) and loss <= limit and _finite(grads)):
            status, params = "diverged", last_good
            break
        last_good = params
        losses.append(loss)
        if target_step is None and loss <= LOSS_TARGET:
            target_step, seconds_to_target = step, time.perf_counter() - start
        if callback is not None and callback(step, loss) is False:
            status = "stopped"
            break
        updated, m, v = _clipped_adam_step(params, grads, m, v, step, config)
        if not _finite(updated):
            status = "diverged"
            break
        params = updated
    seconds = time.perf_counter() - start
    return TrainResult(
        params, vocab, config, np.array(losses), status, step, target_step, seconds, seconds_to_target
    )


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


def _check_temperature(temperature: object) -> None:
    """ValueError unless temperature is a finite number >= 0."""
    if isinstance(temperature, bool) or not isinstance(temperature, int | float | np.number):
        raise ValueError(f"temperature must be a number, got {temperature!r}")
    if not math.isfinite(temperature) or temperature < 0:
        raise ValueError(f"temperature must be a finite number >= 0, got {temperature!r}")


def generate(
    params: Params,
    config: Config,
    vocab: Vocab,
    prefix: Sequence[str],
    temperature: float,
    rng: np.random.Generator,
    max_tokens: int = 12,
) -> tuple[str, ...]:
    """Sample one token at a time from softmax(logits / temperature) (temperature 0:
    always the most likely token), append it and repeat, until "</s>" or max_tokens.

    "<s>" is never sampled. Returns the new tokens only; they end with "</s>"
    when the model chose to stop.

    Shapes: prefix [n] -> at most max_tokens tokens
    """
    _check_temperature(temperature)
    _check_int("max_tokens", max_tokens, 0, MAX_SEQUENCE)
    ids = list(_encode_prefix(vocab, prefix))
    out: list[str] = []
    bos = vocab.index(BOS)
    while len(out) < max_tokens and len(ids) < MAX_SEQUENCE:
        logits, _ = forward(params, np.array(ids), config)
        scores = logits[-1].copy()
        scores[bos] = -np.inf
        if temperature == 0:
            choice = int(np.argmax(scores))
        else:
            with np.errstate(over="ignore"):
                p = softmax(scores / temperature)
            choice = int(rng.choice(len(scores), p=p))
        ids.append(choice)
        out.append(vocab.tokens[choice])
        if out[-1] == EOS:
            break
    return tuple(out)
