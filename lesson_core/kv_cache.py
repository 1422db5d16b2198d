"""Generating one token at a time with a KV cache, and sharing keys and values
between heads (multi-query and grouped-query attention).

With the causal mask, a token's key and value depend only on the tokens up to
it, so they never change once it has been read. A model that writes text can
therefore keep every layer's keys and values (the KV cache) and, at each new
token, compute q, k and v for that token alone, append k and v to the cache and
attend over the cache. ``cached_logits`` does exactly that with the mini GPT's
parameters (``lesson_core.transformer``); its logits equal a full recomputation.

Shapes use n for the tokens read so far, L for blocks (layers), h for query
heads and g for key/value heads, plus the axis names of ``lesson_core/__init__.py``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from lesson_core.attention import softmax
from lesson_core.counts import require_counts
from lesson_core.positional import sinusoidal_encoding
from lesson_core.transformer import (
    BOS,
    EOS,
    FFN_MULT,
    MAX_SEQUENCE,
    Config,
    Params,
    Vocab,
    gelu,
    layer_norm,
    with_bos,
)

# --- published model shapes (sources: docs/sources.md) ------------------------------


@dataclass(frozen=True)
class ModelShape:
    """The sizes that set a model's KV cache.

    layers      transformer blocks
    q_heads     query heads per block
    kv_heads    key/value heads per block (= q_heads: multi-head; 1: multi-query)
    d_head      size of one head's key (and value) vector
    window      sliding-window length (None: every earlier token is attended)
    context     the context length the model was trained for (tokens)
    """

    name: str
    layers: int
    q_heads: int
    kv_heads: int
    d_head: int
    window: int | None = None
    context: int | None = None


GPT2_SMALL = ModelShape("GPT-2 small", layers=12, q_heads=12, kv_heads=12, d_head=64, context=1024)
LLAMA2_70B = ModelShape("Llama 2 70B", layers=80, q_heads=64, kv_heads=8, d_head=128, context=4096)
MISTRAL_7B = ModelShape(  # the version whose paper and config give the sliding window
    "Mistral 7B v0.1", layers=32, q_heads=32, kv_heads=8, d_head=128, window=4096, context=8192
)
REAL_MODELS = (GPT2_SMALL, LLAMA2_70B, MISTRAL_7B)
HALF_PRECISION = 2  # bytes per number in 16-bit floats (float16 / bfloat16)
FLOAT64 = 8  # bytes per number in this course's NumPy model


def kv_cache_bytes(layers: int, kv_heads: int, d_head: int, tokens: int, bytes_per_number: int) -> int:
    """Size of the KV cache = 2 (a key and a value) × layers × KV heads × d_head
    × tokens × bytes per number.

    Shapes: integers -> integer (bytes)
    """
    require_counts(1, layers=layers, kv_heads=kv_heads, d_head=d_head, bytes_per_number=bytes_per_number)
    require_counts(0, tokens=tokens)
    return 2 * int(layers) * int(kv_heads) * int(d_head) * int(tokens) * int(bytes_per_number)


def model_cache_bytes(
    model: ModelShape, tokens: int, kv_heads: int | None = None, bytes_per_number: int = 2
) -> int:
    """``kv_cache_bytes`` for a published model; ``kv_heads`` overrides its own
    count (it must divide the query heads). A sliding window caps the tokens kept.

    Shapes: -> integer (bytes)
    """
    g = model.kv_heads if kv_heads is None else kv_heads
    if g < 1 or model.q_heads % g:
        raise ValueError(f"kv_heads must divide {model.q_heads}, got {g}")
    kept = tokens if model.window is None else min(tokens, model.window)
    return kv_cache_bytes(model.layers, g, model.d_head, kept, bytes_per_number)


# --- operation counts ---------------------------------------------------------------


@dataclass(frozen=True)
class OpCounts:
    """Multiply-adds of the blocks while reading tokens 1..n one at a time.

    tokens [n]            1, 2, …, n (the length after each step)
    without_cache [n]     at each step: run every block on all t tokens again
    with_cache [n]        at each step: run every block on the new token only
    total_without, total_with   sums over the n steps
    """

    tokens: np.ndarray
    without_cache: np.ndarray
    with_cache: np.ndarray
    total_without: int
    total_with: int


def operation_counts(n: int, d_model: int, n_blocks: int, ffn_mult: int = FFN_MULT) -> OpCounts:
    """Per block and per token, the weight matrices cost (4 + 2·ffn_mult) d² multiply-adds
    (W_Q, W_K, W_V, W_O and the feed-forward's two layers: 12 d² for ffn_mult 4);
    the i-th token (counting from 1) also scores i keys and mixes i values: 2 i d.

        step t without a cache:  L · Σ_{i=1..t} (12 d² + 2 i d) = L · (12 d² t + d t (t + 1))
        step t with a cache:     L · (12 d² + 2 t d)

    The output layer is the same in both (the last position only) and left out.

    Shapes: -> OpCounts with arrays [n]
    """
    require_counts(1, n=n)
    t = np.arange(1, int(n) + 1, dtype=np.int64)
    weights = (4 + 2 * ffn_mult) * d_model * d_model
    without = n_blocks * (weights * t + d_model * t * (t + 1))
    with_cache = n_blocks * (weights + 2 * t * d_model)
    return OpCounts(t, without, with_cache, int(without.sum()), int(with_cache.sum()))


# --- generation with a KV cache on the mini GPT -------------------------------------


@dataclass(frozen=True)
class CachedRun:
    """The mini GPT reading token_ids one at a time with a KV cache.

    token_ids [n]; logits [n, V] (row t: the scores for the token after t_1..t_t,
    computed at step t); keys, values [L, h, n, d_head] (the cache at the end);
    weights [n, L, h, n]: at step t, row t of the attention weights over the
    cached positions 0..t (zeros to the right).
    """

    token_ids: np.ndarray
    logits: np.ndarray
    keys: np.ndarray
    values: np.ndarray
    weights: np.ndarray


class _Decoder:
    """The mutable state of one cached run: each block's keys and values so far.

    Shapes: keys, values [L, h, capacity, d_head]; weights [capacity, L, h, capacity]
    """

    def __init__(self, params: Params, config: Config, capacity: int) -> None:
        h, dh, blocks = config.n_heads, config.d_head, config.n_blocks
        self.params, self.config, self.t = params, config, 0
        self.pe = sinusoidal_encoding(capacity, config.d_model)
        self.keys = np.zeros((blocks, h, capacity, dh))
        self.values = np.zeros((blocks, h, capacity, dh))
        self.weights = np.zeros((capacity, blocks, h, capacity))
        self.ids = np.zeros(capacity, dtype=np.int64)
        self.logits = np.zeros((capacity, params["out.b"].shape[0]))

    def read(self, token_id: int) -> np.ndarray:
        """Read one token at the next position t: q, k, v of this token only, k and v
        appended to each block's cache, attention over positions 0..t.

        Shapes: token_id scalar -> logits [V]
        """
        params, t = self.params, self.t
        h, dh = self.config.n_heads, self.config.d_head
        x = params["embed"][token_id] + self.pe[t]
        for b in range(self.config.n_blocks):
            p = f"b{b}."
            u, _, _ = layer_norm(x[None, :], params[p + "ln1.gain"], params[p + "ln1.bias"])
            q, k, v = ((u @ params[f"{p}attn.{w}"]).reshape(h, dh) for w in ("w_q", "w_k", "w_v"))
            self.keys[b, :, t], self.values[b, :, t] = k, v
            scores = np.einsum("hd,hjd->hj", q, self.keys[b, :, : t + 1]) / math.sqrt(dh)
            w = softmax(scores, axis=-1)
            self.weights[t, b, :, : t + 1] = w
            mixed = np.einsum("hj,hjd->hd", w, self.values[b, :, : t + 1]).reshape(-1)
            x = x + mixed @ params[p + "attn.w_o"]
            u2, _, _ = layer_norm(x[None, :], params[p + "ln2.gain"], params[p + "ln2.bias"])
            hidden = gelu(u2 @ params[p + "ffn.w1"] + params[p + "ffn.b1"])
            x = x + (hidden @ params[p + "ffn.w2"])[0] + params[p + "ffn.b2"]
        final, _, _ = layer_norm(x[None, :], params["final_ln.gain"], params["final_ln.bias"])
        self.logits[t] = (final @ params["out.w"] + params["out.b"])[0]
        self.ids[t] = token_id
        self.t += 1
        return self.logits[t]

    def run(self) -> CachedRun:
        """Everything read so far, as a frozen copy.

        Shapes: -> CachedRun with n = tokens read
        """
        n = self.t
        return CachedRun(
            self.ids[:n].copy(),
            self.logits[:n].copy(),
            self.keys[:, :, :n].copy(),
            self.values[:, :, :n].copy(),
            self.weights[:n, :, :, :n].copy(),
        )


def cached_logits(params: Params, config: Config, token_ids: Sequence[int] | np.ndarray) -> CachedRun:
    """Feed the tokens one by one. At step t (0-based position t), per block:
    u = LN(x_t); q, k, v = u W_Q, u W_K, u W_V (one row each, split into heads);
    append k and v to that block's cache; a = softmax(q K_cacheᵀ / √d_head) V_cache
    (the cache holds only positions 0..t, so no mask is needed); x_t += a W_O;
    then the feed-forward on x_t alone. Same maths as ``transformer.forward``.

    Shapes: token_ids [n] -> CachedRun(logits [n, V], keys / values [L, h, n, d_head])
    """
    ids = np.asarray(token_ids, dtype=np.int64)
    if len(ids) < 1:
        raise ValueError("token_ids must hold at least one token")
    decoder = _Decoder(params, config, len(ids))
    for token_id in ids:
        decoder.read(int(token_id))
    return decoder.run()


@dataclass(frozen=True)
class Generation:
    """Greedy generation with a KV cache.

    tokens         "<s>", the prefix, then the generated tokens (ending with "</s>"
                   when the model chose to stop)
    prompt_length  how many of ``tokens`` were given (with "<s>")
    run            the CachedRun over every token but the last (whose logits were not needed)
    """

    tokens: tuple[str, ...]
    prompt_length: int
    run: CachedRun


def generate_cached(
    params: Params, config: Config, vocab: Vocab, prefix: Sequence[str], max_tokens: int = 12
) -> Generation:
    """Greedy decoding (always the likeliest token, "<s>" never chosen) with a KV
    cache: the prompt is read once, then each new token is read once (one
    ``read`` step, q, k, v for that token only), until "</s>" or ``max_tokens``
    new tokens (or MAX_SEQUENCE tokens in all).

    Shapes: prefix [m] -> Generation with at most m + 1 + max_tokens tokens
    """
    ids = [int(i) for i in vocab.encode(with_bos(prefix))]
    if len(ids) > MAX_SEQUENCE:
        raise ValueError(f"the sequence has {len(ids)} tokens; at most {MAX_SEQUENCE}")
    prompt_length, bos, eos = len(ids), vocab.index(BOS), vocab.index(EOS)
    decoder = _Decoder(params, config, MAX_SEQUENCE)
    for token_id in ids[:-1]:
        decoder.read(token_id)
    new = 0
    while new < max_tokens and len(ids) < MAX_SEQUENCE:
        scores = decoder.read(ids[-1]).copy()
        scores[bos] = -np.inf
        ids.append(int(np.argmax(scores)))
        new += 1
        if ids[-1] == eos:
            break
    return Generation(vocab.decode(ids), prompt_length, decoder.run())


# --- sharing keys and values between heads -----------------------------------------


@dataclass(frozen=True)
class GroupedResult:
    """Grouped-query attention: output [h, n, d_v]; weights [h, n, n];
    group [h] (query head i uses key/value head group[i])."""

    output: np.ndarray
    weights: np.ndarray
    group: np.ndarray


def kv_group(q_heads: int, kv_heads: int) -> np.ndarray:
    """Query head i uses key/value head ⌊i / (h / g)⌋: consecutive query heads share one.

    Shapes: -> [h] (int)
    """
    if kv_heads < 1 or q_heads % kv_heads:
        raise ValueError(f"kv_heads must divide q_heads={q_heads}, got {kv_heads}")
    return np.arange(q_heads) // (q_heads // kv_heads)


def grouped_query_attention(
    q: np.ndarray, k: np.ndarray, v: np.ndarray, mask: np.ndarray | None = None
) -> GroupedResult:
    """head_i = softmax(Q_i K_{g(i)}ᵀ / √d_k + M) V_{g(i)}, g(i) = ``kv_group``:
    h query heads, g ≤ h key/value heads (g = h: multi-head; g = 1: multi-query).

    Shapes: q [h, n, d_k], k [g, n, d_k], v [g, n, d_v] -> output [h, n, d_v], weights [h, n, n]
    """
    q, k, v = (np.asarray(a, dtype=float) for a in (q, k, v))
    group = kv_group(q.shape[0], k.shape[0])
    scores = q @ np.swapaxes(k[group], -1, -2) / math.sqrt(q.shape[-1])
    if mask is not None:
        scores = np.where(mask, scores, -np.inf)
    weights = softmax(scores, axis=-1)
    return GroupedResult(weights @ v[group], weights, group)
