"""A learner's progress and its compact form for the URL (``?p=``).

Form: one group per visited lesson, joined by "_"; a group is
``<code>.<task bits>.<quiz bits>`` with one 0/1 digit per task and per quiz
in course order, e.g. ``at.101.110``: attention visited, tasks 1 and 3 done,
quizzes 1 and 2 answered right. Anything that does not parse is dropped, and
the caller is told, so a tampered link never raises.
"""

from __future__ import annotations

import json
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


MAX_FILE_BYTES = 100_000
FILE_VERSION = 1


def to_json(progress: Progress) -> str:
    """The progress as a small JSON document, for the learner to keep."""
    return json.dumps(
        {
            "app": "attention-lessons",
            "version": FILE_VERSION,
            "visited": sorted(progress.visited),
            "tasks": sorted(progress.tasks),
            "quizzes": sorted(progress.quizzes),
        },
        ensure_ascii=False,
        indent=2,
    )


def from_json(data: bytes | str, lessons: tuple[Lesson, ...] = LESSONS) -> tuple[Progress | None, bool]:
    """Read a file made by ``to_json``. Returns (None, False) when it is not such
    a file at all; otherwise (progress, clean) where entries that name no known
    lesson, task or quiz are dropped (clean is then False). Unknown fields are
    ignored."""
    if len(data) > MAX_FILE_BYTES:
        return None, False
    try:
        doc = json.loads(data)
    except (ValueError, UnicodeDecodeError):
        return None, False
    if not isinstance(doc, dict) or not all(
        isinstance(doc.get(k, []), list) for k in ("visited", "tasks", "quizzes")
    ):
        return None, False
    known_lessons = {lesson.id for lesson in lessons}
    known_tasks = {f"{lesson.id}.{task}" for lesson in lessons for task in lesson.tasks}
    known_quizzes = {f"{lesson.id}.{quiz.id}" for lesson in lessons for quiz in lesson.quizzes}
    picked, clean = Progress(), True
    for name, known, into in (
        ("visited", known_lessons, picked.visited),
        ("tasks", known_tasks, picked.tasks),
        ("quizzes", known_quizzes, picked.quizzes),
    ):
        entries = [e for e in doc.get(name, []) if isinstance(e, str)]
        into.update(e for e in entries if e in known)
        clean &= len(into) == len(doc.get(name, []))
    picked.visited |= {item.split(".")[0] for item in picked.tasks | picked.quizzes}
    return picked, clean
