"""Another learner's slider move while others train the capstone's model.

    python tests/benchmarks/concurrent_training.py [--trainers 3] [--moves 40] [--no-slot]

Everything runs in one process, as in the server: ``--trainers`` sessions
(AppTest, each in its own thread) train the mini GPT at the largest size one
training may take, one after another with new seeds, while a further session
moves the attention lesson's temperature slider and times each rerun. Prints
the slider move's p50 / p95 with nobody training and while the others train,
and how long each training took (from pressing the button to the result,
waiting for the training slot included). ``--no-slot`` lets every training run
at once (no semaphore), to compare. Compare numbers from one run only: the
machine is shared and noisy.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import threading
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parent), str(HERE.parent.parent)]

from helpers.apptest import open_page

from lesson_core.transformer import max_steps
from lessons.capstone import training

WIDTH, BLOCKS = 64, 2
STEPS = max_steps(WIDTH, BLOCKS) // 10 * 10


def train_repeatedly(seed0: int, stop: threading.Event, seconds: list[float]) -> None:
    at = open_page("pages/7_capstone.py", "en")
    at.slider(key="gpt_width").set_value(WIDTH)
    at.radio(key="gpt_blocks").set_value(BLOCKS)
    at.slider(key="gpt_steps").set_value(STEPS).run()
    seed = seed0
    while not stop.is_set():
        at.number_input(key="gpt_seed").set_value(seed).run()
        start = time.perf_counter()
        at.button(key="gpt_train").click().run(timeout=600)
        seconds.append(time.perf_counter() - start)
        assert not at.exception, [e.value for e in at.exception]
        seed += 1


def slider_moves(n: int) -> list[float]:
    at = open_page("pages/2_attention.py", "en")
    slider = at.slider(key="at_temp")
    times = []
    for i in range(n):
        slider.set_value(1.0 + 0.1 * (i % 10 + 1))
        start = time.perf_counter()
        at.run()
        times.append(time.perf_counter() - start)
        slider = at.slider(key="at_temp")
    return times


def p95(values: list[float]) -> float:
    return sorted(values)[max(0, round(0.95 * len(values)) - 1)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trainers", type=int, default=3)
    parser.add_argument("--moves", type=int, default=40)
    parser.add_argument("--no-slot", action="store_true")
    args = parser.parse_args()
    if args.no_slot:
        training.TRAINING_SLOTS = threading.BoundedSemaphore(args.trainers)
    alone = slider_moves(args.moves)
    stop, seconds = threading.Event(), []
    threads = [
        threading.Thread(target=train_repeatedly, args=(100 * (k + 1), stop, seconds), daemon=True)
        for k in range(args.trainers)
    ]
    for thread in threads:
        thread.start()
    time.sleep(5)  # let the trainings start
    busy = slider_moves(args.moves)
    stop.set()
    for thread in threads:
        thread.join()
    print(f"training: width {WIDTH}, {BLOCKS} blocks, {STEPS} steps; {args.trainers} trainers", end="")
    print(" (no slot: all at once)" if args.no_slot else " (one at a time)")
    for name, times in (("alone", alone), ("while training", busy)):
        p50_ms, p95_ms = statistics.median(times) * 1000, p95(times) * 1000
        print(f"slider move {name:15s} p50 {p50_ms:7.0f} ms  p95 {p95_ms:7.0f} ms")
    print(
        f"trainings finished: {len(seconds)}; seconds each (button to result, waiting included): "
        f"median {statistics.median(seconds):.1f}, max {max(seconds):.1f}"
    )


if __name__ == "__main__":
    main()
