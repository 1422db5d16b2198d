"""SudachiPy's small dictionary against its core one, for the word split of
Japanese a learner types (lesson_core/japanese.py): do they split a few
hundred learner-like sentences the same, how much disk does each take, and
how much memory does a process gain by loading each?

    pip install -e ".[bench]"   # brings sudachidict_core beside the app's small one
    python tests/benchmarks/sudachi_dicts.py [--sentences 400]

Each dictionary is loaded in a fresh Python (peak memory of that process,
minus a process that only imported SudachiPy). Prints every sentence the two
split differently, then a table.
"""

from __future__ import annotations

import argparse
import importlib.util
import itertools
import json
import random
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from lesson_core.examples import CORPUS

SUBJECTS = ("ねこ", "いぬ", "猫", "犬", "わたし", "先生", "学生", "子ども", "母", "友だち")
OBJECTS = ("さかな", "魚", "ほね", "本", "ボール", "りんご", "水", "パン", "手紙", "映画")
VERBS = ("食べる", "食べた", "食べました", "読む", "読んだ", "見る", "見た", "かじる", "追う", "追いかけた")
LIKES = ("すき", "すきだった", "きらい", "かわいい", "おいしかった", "新鮮だった", "大きい")
PLACES = ("公園", "家", "学校", "部屋", "駅", "海")
TEMPLATES = (
    "{s}が{o}を{v}",
    "{s}は{o}を{v}",
    "{s}は{o}が{a}",
    "{s}は{p}で{o}を{v}",
    "きょう{s}は{o}を{v}",
    "{s}が{o}を{v}。それは{a}",
    "{s}と{s2}は{p}にいる",
    "{o}は{a}",
)


def sentences(count: int, seed: int = 0) -> list[str]:
    """The corpus's own sentences without spaces, then template sentences."""
    found = ["".join(s) for s in CORPUS]
    rng = random.Random(seed)
    while len(found) < count:
        found.append(
            rng.choice(TEMPLATES).format(
                s=rng.choice(SUBJECTS),
                s2=rng.choice(SUBJECTS),
                o=rng.choice(OBJECTS),
                v=rng.choice(VERBS),
                a=rng.choice(LIKES),
                p=rng.choice(PLACES),
            )
        )
    return found


CHILD = """
import functools, json, resource, sys
sys.path.insert(0, {root!r})
from sudachipy import Dictionary, SplitMode
base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
from lesson_core import japanese
if {name!r}:
    japanese._tokenizer = functools.cache(lambda: Dictionary(dict={name!r}).tokenizer(mode=SplitMode.C))
    splits = [japanese.split_words(s) for s in json.loads(sys.stdin.read())]
else:
    splits = []
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(json.dumps({{"splits": splits, "gain_kb": peak - base, "peak_kb": peak}}))
"""


def run(name: str, texts: list[str]) -> dict:
    code = CHILD.format(root=str(ROOT), name=name)
    out = subprocess.run(
        [sys.executable, "-c", code], input=json.dumps(texts), capture_output=True, text=True, check=True
    )
    return json.loads(out.stdout)


def installed_mb(package: str) -> float:
    spec = importlib.util.find_spec(package)
    folder = Path(spec.origin).parent
    return sum(f.stat().st_size for f in folder.rglob("*") if f.is_file()) / 1e6


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sentences", type=int, default=400)
    args = parser.parse_args()
    texts = sentences(args.sentences)
    bare = run("", texts)
    core, small = run("core", texts), run("small", texts)
    differ = [(t, c, s) for t, c, s in zip(texts, core["splits"], small["splits"], strict=True) if c != s]
    for text, c, s in differ:
        print(f"{text}\n  core:  {' '.join(c)}\n  small: {' '.join(s)}")
    unique = len(set(texts))
    print(f"\n{len(texts)} sentences ({unique} distinct), split differently: {len(differ)}")
    print(f"{'dictionary':<12}{'installed MB':>14}{'peak MB':>10}{'+MB over bare':>15}")
    for name, seen in (("core", core), ("small", small)):
        gain = (seen["peak_kb"] - bare["peak_kb"]) / 1024
        size, peak = installed_mb(f"sudachidict_{name}"), seen["peak_kb"] / 1024
        print(f"{name:<12}{size:>14.0f}{peak:>10.0f}{gain:>15.0f}")
    words = itertools.chain.from_iterable(core["splits"])
    print(f"(words in the core split: {len(set(words))} distinct)")


if __name__ == "__main__":
    main()
