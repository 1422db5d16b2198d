"""Audit of the sentences that make a claim about the numbers on screen (a
maximum, a ranking, a tie, a trend, a comparison), shared by every lesson's
``tests/tasks_and_statements/test_statements_<lesson>.py``, as ``task_audit.py`` is for the tasks.

A sentence is a claim: it must hold at every setting of the controls it
depends on, not only at the default. So a lesson's statement test

1. builds the grid of those controls with ``grid(name=values, ...)``: every
   option, both ends of every slider, ties (zero queries), the smallest and
   largest sizes;
2. writes one *claim* per sentence: a function of one setting that computes
   the numbers the page shows (with ``lesson_core``, as the page does) and,
   where the sentence is built by a page function (``course_app.ranking.top_text``
   and the like), renders it in each language with ``in_lang``; it returns
   None when the sentence holds and a short reason when it does not;
3. calls ``audit(claim, settings)``, which runs the claim on every setting and
   fails with every setting where it does not hold (not only the first).

The checks most sentences need are here: ``top_sentence`` (a sentence naming
the top item(s) names exactly them and reads a tie as a tie), ``ranked``
(items named as first, second, ... really rank so, with no tie between them
or with the next one), ``peaked`` and ``monotone`` (trends along a curve).
Ties are judged as the reader sees them: two values tie when they print the
same (``lesson_core.ranking``). To add a lesson, write its
``tests/tasks_and_statements/test_statements_<lesson>.py`` with these.
"""

from __future__ import annotations

import contextlib
import itertools
from collections.abc import Callable, Iterable, Iterator, Sequence

import numpy as np

from course_app import i18n
from lesson_core.ranking import PERCENT, ranks, tops

Setting = dict[str, object]
Claim = Callable[[Setting], str | None]

# what the .tie form of a top sentence says, per language (course_app.ranking.top_text)
TIE_WORDS = {"ja": ("同点", "高さは同じ"), "en": ("a tie", "equally tall")}


def grid(**axes: Iterable[object]) -> list[Setting]:
    """Every combination of the given control values, as dicts."""
    names = list(axes)
    return [dict(zip(names, values, strict=True)) for values in itertools.product(*axes.values())]


@contextlib.contextmanager
def in_lang(lang: str) -> Iterator[None]:
    """Render catalog text in ``lang``, as a page run with ?lang= would."""
    i18n._this_run.lang = lang
    try:
        yield
    finally:
        i18n.forget_lang()


def audit(claim: Claim, settings: Sequence[Setting], most: int = 5) -> None:
    """Run ``claim`` on every setting; fail listing (up to ``most``) settings
    where the sentence does not hold, and how many there were."""
    assert settings, "an audit needs at least one setting"
    failures = [(s, why) for s in settings if (why := claim(s)) is not None]
    assert not failures, f"{len(failures)} of {len(settings)} settings break the sentence: {failures[:most]}"


def top_sentence(
    text: str,
    labels: Sequence[str],
    values: np.ndarray,
    lang: str,
    scale: float = PERCENT[0],
    digits: int = PERCENT[1],
) -> str | None:
    """None when ``text`` names every top item of ``values`` and reads a tie as
    a tie (and a single leader not as a tie); else the reason."""
    best = tops(values, scale, digits)
    missing = [labels[i] for i in best if labels[i] not in text and i18n.md_escape(labels[i]) not in text]
    if missing:
        return f"top item(s) {missing} not named in {text!r}"
    says_tie = any(word in text for word in TIE_WORDS[lang])
    if len(best) > 1 and not says_tie:
        return f"a tie of {[labels[i] for i in best]} is not read as a tie: {text!r}"
    if len(best) == 1 and says_tie:
        return f"one leader ({labels[best[0]]}) read as a tie: {text!r}"
    return None


def ranked(
    values: np.ndarray, named: Sequence[int], scale: float = PERCENT[0], digits: int = PERCENT[1]
) -> str | None:
    """None when the items ``named`` (first, second, ...) are the largest,
    in that order, each strictly above the next as printed; else the reason."""
    groups = ranks(values, scale, digits)
    order = [g for g in groups for _ in [0]]
    for place, index in enumerate(named):
        if place >= len(order) or len(order[place]) != 1 or order[place][0] != index:
            return (
                f"place {place + 1} is {order[place].tolist() if place < len(order) else None}, not [{index}]"
            )
    return None


def monotone(ys: np.ndarray, rising: bool, strict: bool = True) -> str | None:
    """None when ``ys`` only rises (``rising``) or only falls along its order."""
    steps = np.diff(np.asarray(ys, dtype=float))
    bad = steps <= 0 if rising else steps >= 0
    if not strict:
        bad = steps < 0 if rising else steps > 0
    if bad.any():
        way = "rising" if rising else "falling"
        return f"not {way} at step {int(np.argmax(bad))}: {np.round(ys, 4).tolist()}"
    return None


def peaked(ys: np.ndarray) -> str | None:
    """None when ``ys`` rises to one peak inside the range and falls after it
    (the peak not at either end)."""
    ys = np.asarray(ys, dtype=float)
    peak = int(np.argmax(ys))
    if peak in (0, len(ys) - 1):
        return f"the peak is at an end (index {peak})"
    return monotone(ys[: peak + 1], rising=True) or monotone(ys[peak:], rising=False)
