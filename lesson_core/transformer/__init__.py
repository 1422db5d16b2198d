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
package adds LayerNorm, the feed-forward layer, the hand-written backward pass,
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
``parameter_names`` is the one place that spells the names, ``pack`` and ``unpack``
turn one form into the other. Each layer's forward function sits beside its
backward function, which returns its gradients in the same groups.

Shapes use N for the tokens of a (packed) sequence, plus the axis names
of ``lesson_core/__init__.py``.

The modules, read in this order:

    data.py      Vocab, with_bos, Batch, make_batch: the tokens and the packed corpus
    layers.py    each layer's weights, forward and backward: embed, layer_norm,
                 attention, feed_forward, block, unembed (and their *_backward)
    model.py     Config, Params and ModelParams (parameter_names, pack, unpack), init_params,
                 forward and backward through the whole model; next_token_distribution,
                 attention_maps, generate, next_token_stages (the sampling
                 steps themselves are lesson_core.sampling)
    training.py  cross_entropy, loss_and_grads, clip_by_global_norm, adam_step, train,
                 TrainResult; the budget (training_work, max_steps, MAX_TRAIN_WORK)

Everything other code uses is imported here: ``from lesson_core.transformer import train``.
"""

from lesson_core.transformer.data import BOS, EOS, MAX_TRAIN_TOKENS, Batch, Vocab, make_batch, with_bos
from lesson_core.transformer.layers import gelu, gelu_grad, layer_norm, layer_norm_backward
from lesson_core.transformer.model import (
    FFN_MULT,
    MAX_SEQUENCE,
    Config,
    ForwardCache,
    ModelParams,
    Params,
    attention_maps,
    backward,
    forward,
    generate,
    init_params,
    next_token_distribution,
    next_token_stages,
    pack,
    parameter_count,
    parameter_names,
    unpack,
)
from lesson_core.transformer.training import (
    LOSS_TARGET,
    MAX_TRAIN_WORK,
    TrainResult,
    adam_step,
    clip_by_global_norm,
    cross_entropy,
    loss_and_grads,
    max_steps,
    train,
    training_work,
)

__all__ = [
    "BOS",
    "EOS",
    "FFN_MULT",
    "LOSS_TARGET",
    "MAX_SEQUENCE",
    "MAX_TRAIN_TOKENS",
    "MAX_TRAIN_WORK",
    "Batch",
    "Config",
    "ForwardCache",
    "ModelParams",
    "Params",
    "TrainResult",
    "Vocab",
    "adam_step",
    "attention_maps",
    "backward",
    "clip_by_global_norm",
    "cross_entropy",
    "forward",
    "gelu",
    "gelu_grad",
    "generate",
    "init_params",
    "layer_norm",
    "layer_norm_backward",
    "loss_and_grads",
    "make_batch",
    "max_steps",
    "next_token_distribution",
    "next_token_stages",
    "pack",
    "parameter_count",
    "parameter_names",
    "train",
    "training_work",
    "unpack",
    "with_bos",
]
