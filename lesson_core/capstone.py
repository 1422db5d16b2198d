"""What the capstone says about its own model, measured rather than typed: how
far a single head gets on corpus F with the page's default settings; the rules
a configuration follows; what the model is made of; and, for a trained model,
its next-token predictions beside the bigram's and the corpus's and where は's
attention looks."""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np

from lesson_core.bigram import compare_prefix, top_k, total_variation
from lesson_core.examples import CAT_WA, CORPUS, DOG_WA
from lesson_core.ranking import tops
from lesson_core.transformer import (
    BOS,
    EOS,
    LOSS_TARGET,
    MAX_TRAIN_WORK,
    Config,
    TrainResult,
    init_params,
    max_steps,
    next_token_distribution,
    parameter_count,
    train,
    training_work,
    with_bos,
)

WIDTH = (8, 64, 8)  # d_model: min, max, step (multiples of 8: every one has 1, 2, 4 and 8 heads)
MAX_HEADS = 8  # more heads than this would not leave room to draw them
BLOCKS = (1, 2)
STEPS = (20, 600, 10)  # min, max, step
LEARNING_RATES = (0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0)
SEEDS = (0, 999)
SHOW_MIN, SHOW_MAX = 0.02, 12  # bars: tokens some series gives >= 2 %, at most 12
WA = "は"


# --- one head on corpus F -------------------------------------------------------------


@dataclass(frozen=True)
class HeadsCheck:
    """One training run with ``n_heads`` heads and otherwise the default Config.

    n_heads, steps      the configuration trained
    reached             whether the loss fell to LOSS_TARGET
    target_step         the first step at or below LOSS_TARGET (None if never)
    final_loss          the loss at the last step
    """

    n_heads: int
    steps: int
    reached: bool
    target_step: int | None
    final_loss: float


@functools.lru_cache(maxsize=4)
def heads_check(n_heads: int = 1, n_blocks: int = 1) -> HeadsCheck:
    """Train Config(n_heads=n_heads, n_blocks=n_blocks) (every other setting the
    default) on corpus F once per process and report whether and when it reached
    LOSS_TARGET. One head in one block is the clean evidence that one relation
    suffices: no second block can carry a second way of looking.

    Shapes: -> scalars
    """
    config = replace(Config(), n_heads=n_heads, n_blocks=n_blocks)
    result = train(CORPUS, config)
    return HeadsCheck(
        n_heads=n_heads,
        steps=config.steps,
        reached=result.reached_target and result.status == "finished",
        target_step=result.target_step,
        final_loss=float(result.final_loss) if result.final_loss is not None else float("nan"),
    )


# --- what the loss can be compared with ----------------------------------------------


@dataclass(frozen=True)
class ReferenceLosses:
    """Mean next-token cross-entropy (nats) on corpus F that the loss curve can be
    read against, each the conditional entropy of the next token given a context:

    bigram   given the previous token only (the best a bigram can do)
    blind    given the whole prefix, but ねこ は and いぬ は pooled: the best a model
             that cannot tell them apart can do
    best     given the whole prefix: the best any model can do
    """

    bigram: float
    blind: float
    best: float


def _conditional_entropy(corpus: Sequence[Sequence[str]], context) -> float:
    """Σ −count · log(count / context total) / positions, over every position of every
    "<s> … </s>" sentence, the next token counted per ``context(prefix)``."""
    counts: dict[tuple[str, ...], dict[str, int]] = {}
    for sentence in corpus:
        ids = (BOS, *sentence, EOS)
        for i in range(1, len(ids)):
            row = counts.setdefault(context(ids[:i]), {})
            row[ids[i]] = row.get(ids[i], 0) + 1
    nats = positions = 0.0
    for row in counts.values():
        total = sum(row.values())
        nats -= sum(k * np.log(k / total) for k in row.values())
        positions += total
    return float(nats / positions)


@functools.lru_cache(maxsize=2)
def reference_losses(corpus: Sequence[Sequence[str]] = CORPUS) -> ReferenceLosses:
    """The three reference losses of corpus F (bigram 0.835, blind 0.500, best 0.435).

    Shapes: -> scalars
    """
    pooled = {(BOS, *CAT_WA), (BOS, *DOG_WA)}
    return ReferenceLosses(
        bigram=_conditional_entropy(corpus, lambda p: p[-1:]),
        blind=_conditional_entropy(corpus, lambda p: ("*",) if p in pooled else p),
        best=_conditional_entropy(corpus, lambda p: p),
    )


# --- what a learning rate suggests -----------------------------------------------------

RATE_STEADY = (0.005, 0.05)  # the default rate up to the largest that still settles at the defaults


def rate_advice(rate: float) -> str:
    """Which hint a run that ended above the target gets: "larger" below the steady
    range (a larger rate or more steps), "smaller" above it (the steps overshoot:
    at 0.1 and 0.2 the loss keeps jumping, so whether a run ends below the target
    is luck that even the NumPy version changes; 0.5 diverges; 0.02 and 0.05
    reach it at steps 22 and 29), else "steps" (more steps or a wider model)."""
    low, high = RATE_STEADY
    return "larger" if rate < low else "smaller" if rate > high else "steps"


# --- what a configuration may be ---------------------------------------------------------


def snap(value: float, low: int, high: int, step: int) -> int:
    """The nearest allowed value (a link or a script may pass anything):
    min(high, max(low, low + step · round((value − low) / step))).

    Shapes: scalars -> scalar
    """
    return int(min(high, max(low, low + step * round((float(value) - low) / step))))


def head_options(d_model: int, max_heads: int = MAX_HEADS) -> list[int]:
    """The head counts h = 1 … max_heads with d_model mod h = 0: each head gets
    d_model / h dimensions.

    Shapes: scalar -> [k], ascending
    """
    return [h for h in range(1, max_heads + 1) if d_model % h == 0]


def nearest_heads(options: Sequence[int], wanted: int) -> int:
    """The option closest to ``wanted``, argmin |h − wanted|; a tie goes to the
    larger h (so 5 heads at width 48 become 6, not 4).

    Shapes: options [k] -> scalar
    """
    return min(options, key=lambda h: (abs(h - wanted), -h))


@dataclass(frozen=True)
class StepBudget:
    """Whether one training of a configuration is within MAX_TRAIN_WORK.

    over        training_work(config) > MAX_TRAIN_WORK
    max_steps   the most steps this width and depth may train, rounded down
                to the steps slider's step (STEPS[2])
    """

    over: bool
    max_steps: int


def step_budget(config: Config) -> StepBudget:
    """over = training_work(config) > MAX_TRAIN_WORK;
    max_steps = m − m mod STEPS[2] with m = transformer.max_steps(d_model, n_blocks).

    Shapes: -> scalars
    """
    allowed = max_steps(config.d_model, config.n_blocks)
    return StepBudget(over=training_work(config) > MAX_TRAIN_WORK, max_steps=allowed - allowed % STEPS[2])


# --- what the model is made of ------------------------------------------------------------

_GROUPS = (  # part, parameter-name prefixes, whether it repeats in every block
    ("embed", ("embed",), False),
    ("ln", ("b0.ln1.", "b0.ln2."), True),
    ("attn", ("b0.attn.",), True),
    ("ffn", ("b0.ffn.",), True),
    ("final_ln", ("final_ln.",), False),
    ("out", ("out.",), False),
)


@dataclass(frozen=True)
class ParameterGroup:
    """One part of the model.

    part     "embed", "ln", "attn", "ffn", "final_ln" or "out"
    shapes   the shape of each of its arrays, in the model's order
    size     how many numbers it holds once (in one block, for a per-block part)
    times    how many times it is there: n_blocks for a per-block part, else 1
    """

    part: str
    shapes: tuple[tuple[int, ...], ...]
    size: int
    times: int


@dataclass(frozen=True)
class ParameterGroups:
    """Every part of the model in order, and the number of parameters in all
    (= Σ size · times over the groups)."""

    groups: tuple[ParameterGroup, ...]
    total: int


@functools.lru_cache(maxsize=32)
def parameter_groups(d_model: int, n_blocks: int, vocab_size: int) -> ParameterGroups:
    """The parameters, read off freshly initialized weights of this size. With
    d = d_model, V = vocab_size: embed V·d; per block ln 2·2d, attn 4·d² (W_Q,
    W_K, W_V, W_O), ffn d·4d + 4d + 4d·d + d; final_ln 2d; out d·V + V.

    Shapes: scalars -> 6 groups
    """
    config = Config(d_model=d_model, n_heads=1, n_blocks=n_blocks)
    params = init_params(config, vocab_size, np.random.default_rng(0))
    groups = []
    for part, starts, per_block in _GROUPS:
        arrays = [a for name, a in params.items() if name.startswith(starts)]
        size = sum(a.size for a in arrays)
        groups.append(
            ParameterGroup(part, tuple(a.shape for a in arrays), size, n_blocks if per_block else 1)
        )
    return ParameterGroups(tuple(groups), parameter_count(params))


TOKENS = "n"  # the token axis of every shape below: as many rows as the sequence has tokens


@dataclass(frozen=True)
class PipelineShapes:
    """The arrays the forward pass hands on, from the tokens to the next one, for
    a sequence of n tokens (the axis named ``TOKENS``; every other axis a number).
    A block is pre-norm: x ← x + MultiHead(LN_1(x)); x ← x + FFN(LN_2(x)).

    tokens        the token ids                                   [n]
    embedded      E[t] + PE, what the first block reads           [n, d_model]
    head          one head's output, before the heads are joined  [n, d_head]
    attention     MultiHead(LN_1(x)), the heads joined through W_O  [n, d_model]
    residual      x + MultiHead(LN_1(x)), the first residual add  [n, d_model]
    hidden        inside the feed-forward layer, after GELU       [n, 4 · d_model]
    feed_forward  FFN(LN_2(x))                                    [n, d_model]
    block         x + FFN(LN_2(x)), out of each block             [n, d_model]
    logits        LN(x) W_out + b_out, a score per token          [n, V]
    next          softmax of the last row: P(next token)          [V]
    sampled       the token drawn from it                         [1]
    """

    tokens: tuple[int | str, ...]
    embedded: tuple[int | str, ...]
    head: tuple[int | str, ...]
    attention: tuple[int | str, ...]
    residual: tuple[int | str, ...]
    hidden: tuple[int | str, ...]
    feed_forward: tuple[int | str, ...]
    block: tuple[int | str, ...]
    logits: tuple[int | str, ...]
    next: tuple[int | str, ...]
    sampled: tuple[int | str, ...]


def pipeline_shapes(config: Config, vocab_size: int) -> PipelineShapes:
    """The shape after each stage of ``forward`` (and one sampling step) for
    this configuration: d = d_model, d_head = d / h, the feed-forward width 4d, V.

    Shapes: scalars -> shapes with the token axis n left as a name
    """
    n, d = TOKENS, config.d_model
    return PipelineShapes(
        tokens=(n,),
        embedded=(n, d),
        head=(n, config.d_head),
        attention=(n, d),
        residual=(n, d),
        hidden=(n, config.d_ff),
        feed_forward=(n, d),
        block=(n, d),
        logits=(n, vocab_size),
        next=(vocab_size,),
        sampled=(1,),
    )


# --- a trained model's predictions ------------------------------------------------------------


@dataclass(frozen=True)
class NextTokens:
    """What comes after "<s>" + prefix, over the trained model's vocabulary.

    prefix   the tokens after "<s>"
    model    [V]  the model's next-token distribution
    bigram   [V]  the bigram's, P(next | prefix[-1]), counted in the corpus
    corpus   [V]  the corpus's own, P(next | the whole prefix as a sentence start)
    """

    prefix: tuple[str, ...]
    model: np.ndarray
    bigram: np.ndarray
    corpus: np.ndarray

    @property
    def series(self) -> tuple[tuple[str, np.ndarray], ...]:
        """("model", …), ("bigram", …), ("corpus", …): the three in the page's order."""
        return (("model", self.model), ("bigram", self.bigram), ("corpus", self.corpus))


def distributions(
    result: TrainResult, prefix: Sequence[str], corpus: Sequence[Sequence[str]] = CORPUS
) -> NextTokens:
    """After "<s>" + prefix: the model's softmax over the last position's scores;
    the bigram's count(prefix[-1], next) / count(prefix[-1], ·) and the corpus's
    count("<s>" + prefix, next) / count("<s>" + prefix, ·), both counted in the
    sentences wrapped in "<s>" … "</s>" and put in the model's vocabulary order.

    Shapes: prefix [m] -> three arrays [V]
    """
    model = next_token_distribution(result.params, result.config, result.vocab, prefix)
    marked = [(BOS, *s, EOS) for s in corpus]
    comp = compare_prefix(marked, (BOS, *prefix))
    order = [comp.vocab.index(tok) for tok in result.vocab.tokens]
    return NextTokens(tuple(prefix), model, comp.bigram[order], comp.corpus[order])


@dataclass(frozen=True)
class Apart:
    """How far apart two prefixes' predictions are, as total variation
    TV(p, q) = ½ Σ |p_i − q_i| in [0, 1], for each of the three sources."""

    model: float
    bigram: float
    corpus: float


def apart(a: NextTokens, b: NextTokens) -> Apart:
    """TV(a.model, b.model), TV(a.bigram, b.bigram), TV(a.corpus, b.corpus).

    Shapes: two NextTokens over the same [V] -> scalars
    """
    return Apart(
        total_variation(a.model, b.model),
        total_variation(a.bigram, b.bigram),
        total_variation(a.corpus, b.corpus),
    )


def cat_dog_tv(result: TrainResult) -> float:
    """How far apart the model's predictions after ねこ は and after いぬ は are:
    TV(p(· | ねこ は), p(· | いぬ は)) = ½ Σ |p_i − q_i|.

    Shapes: -> scalar in [0, 1]
    """
    cat, dog = (
        next_token_distribution(result.params, result.config, result.vocab, p) for p in (CAT_WA, DOG_WA)
    )
    return total_variation(cat, dog)


def shown_tokens(
    series: Sequence[np.ndarray], show_min: float = SHOW_MIN, show_max: int = SHOW_MAX
) -> np.ndarray:
    """The tokens worth a bar: those with max over the series >= show_min; of
    those at most show_max (the largest maxima, ties to the lower index), in
    vocabulary order.

    Shapes: series of [V] -> [k], k <= show_max
    """
    top = np.max(np.stack(series), axis=0)
    keep = top_k(np.where(top >= show_min, top, 0.0), show_max)
    return np.sort(keep)


# --- where は looks -------------------------------------------------------------------------


@dataclass(frozen=True)
class LookBack:
    """は's strongest look at the token just before it (its subject).

    subject       the token before は
    weight        max over blocks b and heads h of A[b, h, i, i − 1], i = は's position
    block, head   where that maximum is, counted from 1 (the first on a tie)
    even          1 / (i + 1): the weight of an even spread over the i + 1
                  positions は can see ("<s>" included)
    places        every (block, head), counted from 1, whose weight prints the
                  same as the maximum (a percentage to one decimal): one pair,
                  or several on a tie, so a sentence can name them all
    """

    subject: str
    weight: float
    block: int
    head: int
    even: float
    places: tuple[tuple[int, int], ...] = ()


def wa_position(tokens: Sequence[str], wa: str = WA) -> int | None:
    """は's position in "<s>" + tokens ("<s>" at 0): its first place after the first
    word, i = min {i >= 2 : labels[i] = は}, so that the token before it (i − 1) is
    a subject; None when no は comes after the first word.

    Shapes: tokens [n − 1] -> scalar
    """
    labels = with_bos(tokens)
    return labels.index(wa, 2) if wa in labels[2:] else None


def look_back(maps: np.ndarray, tokens: Sequence[str], wa: str = WA) -> LookBack | None:
    """Where は's position i (its first place after the first word, counting
    "<s>" as 0) attends to position i − 1 most, over every block and head; None
    when no は comes after the first word.

    Shapes: maps [blocks, h, n, n] with n = len(tokens) + 1 -> scalars
    """
    labels = with_bos(tokens)
    i = wa_position(tokens, wa)
    if i is None:
        return None
    weights = maps[:, :, i, i - 1]
    block, head = np.unravel_index(int(np.argmax(weights)), weights.shape)
    heads = weights.shape[1]
    return LookBack(
        subject=labels[i - 1],
        weight=float(weights[block, head]),
        block=int(block) + 1,
        head=int(head) + 1,
        even=1.0 / (i + 1),
        places=tuple((int(j) // heads + 1, int(j) % heads + 1) for j in tops(weights.ravel())),
    )


__all__ = [
    "BLOCKS",
    "LEARNING_RATES",
    "LOSS_TARGET",
    "MAX_HEADS",
    "SEEDS",
    "SHOW_MAX",
    "SHOW_MIN",
    "STEPS",
    "WA",
    "WIDTH",
    "Apart",
    "HeadsCheck",
    "LookBack",
    "NextTokens",
    "ParameterGroup",
    "ParameterGroups",
    "StepBudget",
    "apart",
    "cat_dog_tv",
    "distributions",
    "head_options",
    "heads_check",
    "look_back",
    "nearest_heads",
    "parameter_groups",
    "shown_tokens",
    "snap",
    "step_budget",
    "wa_position",
]
