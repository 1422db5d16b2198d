"""A learner's progress and its compact form for the URL (``?p=``).

Form: one group per visited lesson, joined by "_"; a group is
``<code>.<task bits>.<quiz bits>`` with one 0/1 digit per task and per quiz
in course order, e.g. ``at.101.110``: attention visited, tasks 1 and 3 done,
quizzes 1 and 2 answered right. Anything that does not parse is dropped, and
the caller is told, so a tampered link never raises.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from lesson_core.course import LESSONS, Lesson

_GROUP = re.compile(r"^([a-z]{1,4})\.([01]*)\.([01]*)$")
MAX_LENGTH = 2000


@dataclass
class Progress:
    visited: set[str] = field(default_factory=set)  # lesson ids
    tasks: set[str] = field(default_factory=set)  # "<lesson>.<task>"
    quizzes: set[str] = field(default_factory=set)  # "<lesson>.<quiz>" answered right

    def lesson_counts(self, lesson: Lesson) -> tuple[int, int]:
        """(done, total) over the lesson's tasks and quizzes."""
        done = sum(f"{lesson.id}.{x}" in self.tasks for x in lesson.tasks)
        done += sum(f"{lesson.id}.{q.id}" in self.quizzes for q in lesson.quizzes)
        return done, len(lesson.tasks) + len(lesson.quizzes)


def _bits(lesson: Lesson, names: list[str], done: set[str]) -> str:
    return "".join("1" if f"{lesson.id}.{name}" in done else "0" for name in names)


def encode(progress: Progress, lessons: tuple[Lesson, ...] = LESSONS) -> str:
    groups = [
        f"{lesson.code}.{_bits(lesson, list(lesson.tasks), progress.tasks)}"
        f".{_bits(lesson, [q.id for q in lesson.quizzes], progress.quizzes)}"
        for lesson in lessons
        if lesson.id in progress.visited
    ]
    return "_".join(groups)


def decode(text: str, lessons: tuple[Lesson, ...] = LESSONS) -> tuple[Progress, bool]:
    """Parse ``text``; returns (progress, clean). ``clean`` is False when any
    part was unreadable and dropped (unknown lesson, bad digits, too long)."""
    progress, clean = Progress(), True
    if len(text) > MAX_LENGTH:
        return progress, False
    by_code = {lesson.code: lesson for lesson in lessons}
    for group in filter(None, text.split("_")):
        match = _GROUP.match(group)
        lesson = by_code.get(match.group(1)) if match else None
        if lesson is None:
            clean = False
            continue
        progress.visited.add(lesson.id)
        for names, digits, into in (
            (lesson.tasks, match.group(2), progress.tasks),
            ([q.id for q in lesson.quizzes], match.group(3), progress.quizzes),
        ):
            clean &= len(digits) <= len(names)
            into.update(f"{lesson.id}.{n}" for n, d in zip(names, digits, strict=False) if d == "1")
    return progress, clean
