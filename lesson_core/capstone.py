"""What the capstone says about its own model, measured rather than typed:
how far a single head gets on corpus F with the page's default settings."""

from __future__ import annotations

import functools
from dataclasses import dataclass, replace

from lesson_core.examples import CORPUS
from lesson_core.transformer import LOSS_TARGET, Config, train


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
def heads_check(n_heads: int = 1) -> HeadsCheck:
    """Train Config(n_heads=n_heads) (every other setting the default) on corpus F
    once per process and report whether and when it reached LOSS_TARGET.

    Shapes: -> scalars
    """
    config = replace(Config(), n_heads=n_heads)
    result = train(CORPUS, config)
    return HeadsCheck(
        n_heads=n_heads,
        steps=config.steps,
        reached=result.reached_target and result.status == "finished",
        target_step=result.target_step,
        final_loss=float(result.final_loss) if result.final_loss is not None else float("nan"),
    )


__all__ = ["LOSS_TARGET", "HeadsCheck", "heads_check"]
