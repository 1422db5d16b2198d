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

Parameter names (``init_params``): ``embed`` [V, d]; per block ``b{i}.ln1.gain``,
``b{i}.ln1.bias``, ``b{i}.attn.w_q``/``w_k``/``w_v``/``w_o`` [d, d], ``b{i}.ln2.gain``,
``b{i}.ln2.bias``, ``b{i}.ffn.w1`` [d, 4d], ``b{i}.ffn.b1`` [4d], ``b{i}.ffn.w2`` [4d, d],
``b{i}.ffn.b2`` [d]; then ``final_ln.gain``, ``final_ln.bias``, ``out.w`` [d, V], ``out.b`` [V].

Shapes below use N for the tokens of a (packed) sequence, plus the axis names
of ``lesson_core/__init__.py``.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Literal

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
    return n_blocks * d_model * (d_model + 32)


def max_steps(d_model: int, n_blocks: int) -> int:
    """The most steps one training may take at this size (see MAX_TRAIN_WORK)."""
    return MAX_TRAIN_WORK // _work_per_step(d_model, n_blocks)


def _check_int(name: str, value: object, low: int, high: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int | np.integer):
        raise ValueError(f"{name} must be an integer, got {value!r}")
    if not low <= value <= high:
        raise ValueError(f"{name} must be between {low} and {high}, got {value}")


def _check_positive(name: str, value: object) -> None:
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

    params: Params = {"embed": normal(vocab_size, d, std=1.0)}
    for b in range(config.n_blocks):
        p = f"b{b}."
        params |= {
            p + "ln1.gain": np.ones(d),
            p + "ln1.bias": np.zeros(d),
            p + "attn.w_q": normal(d, d, std=d**-0.5),
            p + "attn.w_k": normal(d, d, std=d**-0.5),
            p + "attn.w_v": normal(d, d, std=d**-0.5),
            p + "attn.w_o": normal(d, d, std=d**-0.5 / deep),
            p + "ln2.gain": np.ones(d),
            p + "ln2.bias": np.zeros(d),
            p + "ffn.w1": normal(d, f, std=d**-0.5),
            p + "ffn.b1": np.zeros(f),
            p + "ffn.w2": normal(f, d, std=f**-0.5 / deep),
            p + "ffn.b2": np.zeros(d),
        }
    params |= {
        "final_ln.gain": np.ones(d),
        "final_ln.bias": np.zeros(d),
        "out.w": normal(d, vocab_size, std=0.01),
        "out.b": np.zeros(vocab_size),
    }
    return params


def parameter_count(params: Params) -> int:
    """How many numbers training adjusts."""
    return sum(a.size for a in params.values())


# --- layers (forward and backward) ------------------------------------------------


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
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """dx = inv_std · (g − mean(g) − x_hat · mean(g · x_hat)), g = dy · gain;
    dgain = Σ_rows dy · x_hat; dbias = Σ_rows dy.

    Shapes: dy, x_hat [N, d], inv_std [N, 1], gain [d] -> dx [N, d], dgain [d], dbias [d]
    """
    g = dy * gain
    dx = inv_std * (g - g.mean(axis=-1, keepdims=True) - x_hat * (g * x_hat).mean(axis=-1, keepdims=True))
    return dx, (dy * x_hat).sum(axis=0), dy.sum(axis=0)


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


def merge_heads(x: np.ndarray) -> np.ndarray:
    """The inverse of ``split_heads``: put the heads' slices side by side again.

    Shapes: x [h, N, d_head] -> [N, h · d_head]
    """
    return x.transpose(1, 0, 2).reshape(x.shape[1], -1)


def attention_backward(
    d_out: np.ndarray,
    u: np.ndarray,
    weights: np.ndarray,
    concat: np.ndarray,
    params: Params,
    p: str,
    n_heads: int,
) -> tuple[np.ndarray, Params]:
    """Backward through ``multi_head_attention`` (output = Concat(heads) W_O,
    head = softmax(Q Kᵀ / √d_head + M) V), from what it returned (weights, concat):

        dW_O = concatᵀ d_out;   dHead = split(d_out W_Oᵀ)
        dV = Aᵀ dHead;          dA = dHead Vᵀ
        dS = A ⊙ (dA − rowsum(dA ⊙ A)) / √d_head    (masked cells have A = 0, so dS = 0)
        dQ = dS K;  dK = dSᵀ Q;  dW_Q = uᵀ merge(dQ) (same for K, V);  du = Σ merge(d·) W_·ᵀ

    Q, K, V are recomputed from the block's input u (three small matrix products).

    Shapes: d_out, u, concat [N, d], weights [h, N, N] -> du [N, d], grads of w_q, w_k, w_v, w_o [d, d]
    """
    w_q, w_k, w_v, w_o = (params[f"{p}attn.{name}"] for name in ("w_q", "w_k", "w_v", "w_o"))
    q, k, v = (split_heads(u @ w, n_heads) for w in (w_q, w_k, w_v))
    d_head = split_heads(d_out @ w_o.T, n_heads)
    d_v = np.swapaxes(weights, -1, -2) @ d_head
    d_weights = d_head @ np.swapaxes(v, -1, -2)
    d_scores = (
        weights * (d_weights - (d_weights * weights).sum(axis=-1, keepdims=True)) / math.sqrt(q.shape[-1])
    )
    d_q, d_k = d_scores @ k, np.swapaxes(d_scores, -1, -2) @ q
    d_q, d_k, d_v = merge_heads(d_q), merge_heads(d_k), merge_heads(d_v)
    grads = {
        f"{p}attn.w_q": u.T @ d_q,
        f"{p}attn.w_k": u.T @ d_k,
        f"{p}attn.w_v": u.T @ d_v,
        f"{p}attn.w_o": concat.T @ d_out,
    }
    return d_q @ w_q.T + d_k @ w_k.T + d_v @ w_v.T, grads


# --- the model ----------------------------------------------------------------------


@dataclass(frozen=True)
class BlockCache:
    """What one block's forward keeps for its backward pass and for the page.

    ln1 / ln2: (x_hat, inv_std) of the two LayerNorms; u1 [N, d] attention input;
    weights [h, N, N] attention weights; concat [N, d] heads before W_O;
    u2 [N, d] feed-forward input; pre [N, 4d] before GELU; act [N, 4d] after GELU.
    """

    ln1: tuple[np.ndarray, np.ndarray]
    u1: np.ndarray
    weights: np.ndarray
    concat: np.ndarray
    ln2: tuple[np.ndarray, np.ndarray]
    u2: np.ndarray
    pre: np.ndarray
    act: np.ndarray


@dataclass(frozen=True)
class ForwardCache:
    """token_ids [N]; blocks: one BlockCache per block; final_ln (x_hat, inv_std);
    final [N, d] the last LayerNorm's output (what W_out reads)."""

    token_ids: np.ndarray
    blocks: tuple[BlockCache, ...]
    final_ln: tuple[np.ndarray, np.ndarray]
    final: np.ndarray


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
    x = params["embed"][token_ids] + sinusoidal_encoding(int(positions.max()) + 1, config.d_model)[positions]
    blocks = []
    for b in range(config.n_blocks):
        p = f"b{b}."
        u1, *ln1 = layer_norm(x, params[p + "ln1.gain"], params[p + "ln1.bias"])
        att = multi_head_attention(
            u1, *(params[f"{p}attn.{w}"] for w in ("w_q", "w_k", "w_v", "w_o")), config.n_heads, mask=mask
        )
        x = x + att.output
        u2, *ln2 = layer_norm(x, params[p + "ln2.gain"], params[p + "ln2.bias"])
        pre = u2 @ params[p + "ffn.w1"] + params[p + "ffn.b1"]
        act = gelu(pre)
        x = x + act @ params[p + "ffn.w2"] + params[p + "ffn.b2"]
        blocks.append(BlockCache(tuple(ln1), u1, att.weights, att.concat, tuple(ln2), u2, pre, act))
    final, *final_ln = layer_norm(x, params["final_ln.gain"], params["final_ln.bias"])
    logits = final @ params["out.w"] + params["out.b"]
    return logits, ForwardCache(token_ids, tuple(blocks), tuple(final_ln), final)


def log_softmax(logits: np.ndarray) -> np.ndarray:
    """log softmax(z)_j = z_j − max z − log Σ_k exp(z_k − max z); finite for finite z.

    Shapes: logits [N, V] -> [N, V]
    """
    shifted = logits - logits.max(axis=-1, keepdims=True)
    return shifted - np.log(np.exp(shifted).sum(axis=-1, keepdims=True))


def cross_entropy(logits: np.ndarray, targets: np.ndarray) -> float:
    """loss = −(1/N) Σ_i log softmax(logits_i)[target_i]  (nats per token).

    Shapes: logits [N, V], targets [N] -> scalar
    """
    return float(-log_softmax(logits)[np.arange(len(targets)), targets].mean())


def loss_and_grads(params: Params, batch: Batch, config: Config) -> tuple[float, Params]:
    """The mean next-token cross-entropy on the batch and its exact gradient for every parameter.

    Backward, from the top: dlogits = (softmax(logits) − onehot(target)) / N,
    then the output layer, LayerNorm, and each block in reverse: the residual
    passes dx straight through and adds the branch's input gradient.

    Shapes: batch of N positions -> loss scalar, grads {name: same shape as params[name]}
    """
    logits, cache = forward(params, batch.inputs, config, batch.positions, batch.mask)
    n = len(batch.targets)
    log_p = log_softmax(logits)
    loss = float(-log_p[np.arange(n), batch.targets].mean())
    d_logits = np.exp(log_p)
    d_logits[np.arange(n), batch.targets] -= 1.0
    d_logits /= n

    grads: Params = {"out.w": cache.final.T @ d_logits, "out.b": d_logits.sum(axis=0)}
    dx, grads["final_ln.gain"], grads["final_ln.bias"] = layer_norm_backward(
        d_logits @ params["out.w"].T, *cache.final_ln, params["final_ln.gain"]
    )
    for b in reversed(range(config.n_blocks)):
        p, c = f"b{b}.", cache.blocks[b]
        # x = x + FFN(LN2(x))
        grads[p + "ffn.w2"] = c.act.T @ dx
        grads[p + "ffn.b2"] = dx.sum(axis=0)
        d_pre = (dx @ params[p + "ffn.w2"].T) * gelu_grad(c.pre)
        grads[p + "ffn.w1"] = c.u2.T @ d_pre
        grads[p + "ffn.b1"] = d_pre.sum(axis=0)
        d_u2, grads[p + "ln2.gain"], grads[p + "ln2.bias"] = layer_norm_backward(
            d_pre @ params[p + "ffn.w1"].T, *c.ln2, params[p + "ln2.gain"]
        )
        dx = dx + d_u2
        # x = x + MultiHead(LN1(x))
        d_u1, attn_grads = attention_backward(dx, c.u1, c.weights, c.concat, params, p, config.n_heads)
        grads |= attn_grads
        d_in, grads[p + "ln1.gain"], grads[p + "ln1.bias"] = layer_norm_backward(
            d_u1, *c.ln1, params[p + "ln1.gain"]
        )
        dx = dx + d_in
    grads["embed"] = np.zeros_like(params["embed"])
    np.add.at(grads["embed"], cache.token_ids, dx)
    return loss, {name: grads[name] for name in params}


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


def _finite(grads: Params) -> bool:
    return all(np.isfinite(g).all() for g in grads.values())


def train(
    corpus: Sequence[Sequence[str]] = CORPUS,
    config: Config | None = None,
    callback: Callable[[int, float], bool | None] | None = None,
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
    batch = make_batch(corpus, vocab)
    params = init_params(config, len(vocab), np.random.default_rng(config.seed))
    m = {k: np.zeros_like(a) for k, a in params.items()}
    v = {k: np.zeros_like(a) for k, a in params.items()}
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
        with np.errstate(all="ignore"):
            updated, m, v = adam_step(
                params, clip_by_global_norm(grads, config.clip_norm), m, v, step, config.learning_rate
            )
        if not _finite(updated):
            status = "diverged"
            break
        params = updated
    return TrainResult(
        params=params,
        vocab=vocab,
        config=config,
        losses=np.array(losses),
        status=status,
        step=step,
        target_step=target_step,
        seconds=time.perf_counter() - start,
        seconds_to_target=seconds_to_target,
    )


# --- using a trained model ----------------------------------------------------------


def _encode_prefix(vocab: Vocab, tokens: Sequence[str]) -> np.ndarray:
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
) -> tuple[str, ...]:
    """Sample one token at a time from softmax(logits / temperature) (temperature 0:
    always the most likely token), append it and repeat, until "</s>" or max_tokens.

    "<s>" is never sampled. Returns the new tokens only; they end with "</s>"
    when the model chose to stop.

    Shapes: prefix [n] -> at most max_tokens tokens
    """
    if isinstance(temperature, bool) or not isinstance(temperature, int | float | np.number):
        raise ValueError(f"temperature must be a number, got {temperature!r}")
    if not math.isfinite(temperature) or temperature < 0:
        raise ValueError(f"temperature must be a finite number >= 0, got {temperature!r}")
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
