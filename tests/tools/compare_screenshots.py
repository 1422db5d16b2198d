"""Compare two folders of screenshots pixel by pixel (before and after a change).

    python tests/tools/screenshots.py /tmp/before        # on the old commit
    python tests/tools/screenshots.py /tmp/after         # on the new one
    python tests/tools/compare_screenshots.py /tmp/before /tmp/after [--diffs DIR]

Prints one line per image: "same", or its size change, or how many pixels
differ and the box around them; with --diffs, writes each differing pair's
changed pixels in red over a faded copy of the "after" image, to look at.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
from PIL import Image

TOLERANCE = 16  # per-channel difference below this is anti-aliasing noise, not a change


def load(path: Path) -> np.ndarray:
    return np.asarray(Image.open(path).convert("RGB"), dtype=np.int16)


def changed(before: np.ndarray, after: np.ndarray) -> np.ndarray:
    """Pixels where any channel differs by more than TOLERANCE. Shapes: (h, w, 3) x2 -> (h, w)."""
    return np.abs(before - after).max(axis=2) > TOLERANCE


def describe(name: str, before: np.ndarray, after: np.ndarray) -> tuple[str, np.ndarray | None]:
    if before.shape != after.shape:
        return f"{name}: size {before.shape[1]}x{before.shape[0]} -> {after.shape[1]}x{after.shape[0]}", None
    mask = changed(before, after)
    if not mask.any():
        return f"{name}: same", None
    rows, cols = np.nonzero(mask)
    box = f"x {cols.min()}-{cols.max()}, y {rows.min()}-{rows.max()}"
    return f"{name}: {mask.sum()} pixels differ ({mask.mean():.3%}), {box}", mask


def save_diff(after: np.ndarray, mask: np.ndarray, path: Path) -> None:
    faded = (255 - (255 - after) // 4).astype(np.uint8)
    faded[mask] = (220, 0, 0)
    Image.fromarray(faded).save(path)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("before", type=Path)
    parser.add_argument("after", type=Path)
    parser.add_argument("--diffs", type=Path, help="write the changed pixels of each differing pair here")
    args = parser.parse_args()
    names = sorted({p.name for p in args.before.glob("*.png")} | {p.name for p in args.after.glob("*.png")})
    same = 0
    for name in names:
        if not (args.before / name).exists() or not (args.after / name).exists():
            print(f"{name}: only in {'after' if (args.after / name).exists() else 'before'}")
            continue
        after = load(args.after / name)
        line, mask = describe(name, load(args.before / name), after)
        same += line.endswith(": same")
        print(line)
        if mask is not None and args.diffs:
            args.diffs.mkdir(parents=True, exist_ok=True)
            save_diff(after, mask, args.diffs / name)
    print(f"{same} of {len(names)} the same")


if __name__ == "__main__":
    main()
