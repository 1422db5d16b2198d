"""The mini GPT's layers, each forward function beside its backward function.

A forward function returns its output and what its backward pass needs (a
cache); the backward function takes the gradient of the loss with respect to
that output and returns the gradient with respect to the input plus the
layer's weight gradients, grouped like its weights (``LayerNormParams``, ...).
Shapes use N for the tokens of a (packed) sequence and d for d_model.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from lesson_core.multihead import multi_head_attention, split_heads
from lesson_core.positional import sinusoidal_encoding

LN_EPS = 1e-5

# --- weights, one group per layer ---------------------------------------------------


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


# --- the layers, in the order the data flows through them --------------------------


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

    ``attention`` and ``feed_forward`` add the residual x themselves, so each sum
    is computed in one fixed order (x + act W_2 + b_2), whoever calls them.

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
