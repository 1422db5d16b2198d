"""Training speed of the capstone's mini GPT with the default configuration.

    python tests/benchmarks/training.py [--repeats 5] [--worst]

Trains on corpus F (lesson_core.examples.CORPUS) with ``Config()`` several
times and prints the medians of: Adam steps per second, seconds until the loss
first reaches LOSS_TARGET, and seconds for the whole default run. Goal: the
whole run within 10 s on the 2-core machine (aim: 2–5 s or less).
With ``--worst``: the largest training one learner may ask for (width 64,
2 blocks, 8 heads, as many steps as MAX_TRAIN_WORK allows), timed with
``train`` alone; the page adds its redraws. Goal: a few seconds on one core.
Like the app (course_app/blas.py), it runs BLAS on one thread;
``--blas-threads`` keeps OpenBLAS's default (one thread per core) to compare.
Compare numbers from one run only: the machine is shared and noisy.
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from course_app.blas import one_blas_thread
from lesson_core.bigram import total_variation
from lesson_core.transformer import LOSS_TARGET, Config, max_steps, next_token_distribution, train


def worst(repeats: int) -> None:
    """The largest allowed training: its wall time, median and maximum."""
    config = Config(d_model=64, n_heads=8, n_blocks=2, steps=max_steps(64, 2) // 10 * 10)
    print(f"config: {config}")
    seconds = [train(config=config).seconds for _ in range(repeats)]
    median, most = statistics.median(seconds), max(seconds)
    print(f"seconds for the largest allowed training: median {median:.2f}, max {most:.2f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--worst", action="store_true")
    parser.add_argument("--blas-threads", action="store_true", help="keep OpenBLAS's own thread count")
    args = parser.parse_args()
    if not args.blas_threads:
        one_blas_thread()
    if args.worst:
        worst(args.repeats)
        return
    config = Config()
    print(f"config: {config}  loss target: {LOSS_TARGET}")
    rates, to_target, totals, target_steps = [], [], [], []
    for _ in range(args.repeats):
        result = train(config=config)
        if result.status != "finished" or result.seconds_to_target is None:
            sys.exit(f"default training did not reach the target: {result.status} at step {result.step}")
        rates.append(result.step / result.seconds)
        to_target.append(result.seconds_to_target)
        totals.append(result.seconds)
        target_steps.append(result.target_step)
    cat, dog = (
        next_token_distribution(result.params, config, result.vocab, [animal, "は"])
        for animal in ("ねこ", "いぬ")
    )
    print(f"steps per second:          {statistics.median(rates):8.1f}")
    print(f"seconds to loss target:    {statistics.median(to_target):8.3f}  (step {target_steps[0]})")
    print(f"seconds for {config.steps} steps:     {statistics.median(totals):8.3f}")
    print(f"final loss:                {result.final_loss:8.4f}")
    print(f"TV(after ねこ は, after いぬ は): {total_variation(cat, dog):.3f}")


if __name__ == "__main__":
    main()
