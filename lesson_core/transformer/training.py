"""Training the mini GPT: the loss and its gradient, gradient clipping, Adam,
the training loop, and the budget that bounds one training's work."""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np

from lesson_core.examples import CORPUS
from lesson_core.transformer.data import Batch, Vocab, make_batch
from lesson_core.transformer.model import Config, Params, backward, forward, init_params

# Mean cross-entropy (nats per predicted token) that training on corpus F aims for.
# The best any model can do on corpus F is 0.435 (the entropy of the next token given
# the whole prefix). A model whose distribution after "ねこ は" equals the one after
# "いぬ は" (a bigram's blind spot) can do no better than 0.500: there the 8 objects
# have probability ≤ 1/8 instead of 1/4. So reaching 0.45 means the two distributions
# differ; with everything else learned it leaves at most ~0.15 of the mass on the
# other animal's objects (total variation ≳ 0.7).
LOSS_TARGET = 0.45

ADAM_BETA1, ADAM_BETA2, ADAM_EPS = 0.9, 0.999, 1e-8
# The work one training may do, in units of steps × n_blocks × d_model × (d_model + 32)
# (the matrix products of a step grow with d_model², attention with d_model):
# twice the default run (300 steps at width 32 with 2 blocks), which is a few
# seconds on one core at the widest setting (tests/benchmarks/training.py --worst).
MAX_TRAIN_WORK = 2 * 300 * 2 * 32 * (32 + 32)

Status = Literal["finished", "stopped", "diverged"]
Callback = Callable[[int, float], bool | None]  # (step, loss) -> False to stop training


# --- budget ---------------------------------------------------------------------------


def training_work(config: Config) -> int:
    """steps × n_blocks × d_model × (d_model + 32): what ``MAX_TRAIN_WORK`` bounds."""
    return config.steps * _work_per_step(config.d_model, config.n_blocks)


def _work_per_step(d_model: int, n_blocks: int) -> int:
    """n_blocks × d_model × (d_model + 32): the work of one step, in MAX_TRAIN_WORK's units."""
    return n_blocks * d_model * (d_model + 32)


def max_steps(d_model: int, n_blocks: int) -> int:
    """The most steps one training may take at this size (see MAX_TRAIN_WORK)."""
    return MAX_TRAIN_WORK // _work_per_step(d_model, n_blocks)


# --- the loss -------------------------------------------------------------------------


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
    return loss, backward(cache, cross_entropy_backward(log_p, batch.targets), config)


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
    """g ← g · min(1, max_norm / ‖g‖₂), ‖g‖₂ over all parameters together.

    Shapes: {name: array} -> the same names and shapes
    """
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
