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

from course_app.course import LESSONS, Lesson

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
        match = _GROUP.fullmatch(group)
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


MAX_FILE_BYTES = 64 * 1024  # a real progress file is well under 2 KB
FILE_VERSION = 1
APP_NAME = "attention-lessons"

# Why a file was not read (the page shows home.import_problem.<code>).
TOO_BIG, NOT_JSON, NOT_PROGRESS, OTHER_APP, FUTURE_VERSION, NOTHING = (
    "too_big",
    "not_json",
    "not_progress",
    "other_app",
    "future_version",
    "nothing",
)


def to_json(progress: Progress) -> str:
    """The progress as a small JSON document, for the learner to keep."""
    return json.dumps(
        {
            "app": APP_NAME,
            "version": FILE_VERSION,
            "visited": sorted(progress.visited),
            "tasks": sorted(progress.tasks),
            "quizzes": sorted(progress.quizzes),
        },
        ensure_ascii=False,
        indent=2,
    )


@dataclass(frozen=True)
class FileReading:
    """What a progress file holds: ``progress`` (None when it cannot be used,
    then ``problem`` says why), and how many entries named nothing this course
    knows and were skipped."""

    progress: Progress | None
    problem: str | None = None
    skipped: int = 0


def _document_problem(doc: object) -> str | None:
    """Why a parsed JSON value is not a progress document this version can read
    (not a progress document, another app's file, a newer format), or None."""
    if not isinstance(doc, dict):
        return NOT_PROGRESS
    if doc.get("app") != APP_NAME:
        return OTHER_APP if isinstance(doc.get("app"), str) else NOT_PROGRESS
    version = doc.get("version")
    if isinstance(version, bool) or not isinstance(version, int) or version < 1:
        return NOT_PROGRESS
    if version > FILE_VERSION:
        return FUTURE_VERSION
    if not all(isinstance(doc.get(k, []), list) for k in ("visited", "tasks", "quizzes")):
        return NOT_PROGRESS
    return None


def _known_entries(doc: dict, lessons: tuple[Lesson, ...]) -> tuple[Progress, int]:
    """The entries of a progress document that name a lesson, task or quiz of
    ``lessons`` (a lesson with a task or quiz done counts as visited), and how
    many entries named nothing known and were skipped."""
    known_lessons = {lesson.id for lesson in lessons}
    known_tasks = {f"{lesson.id}.{task}" for lesson in lessons for task in lesson.tasks}
    known_quizzes = {f"{lesson.id}.{quiz.id}" for lesson in lessons for quiz in lesson.quizzes}
    picked, skipped = Progress(), 0
    for name, known, into in (
        ("visited", known_lessons, picked.visited),
        ("tasks", known_tasks, picked.tasks),
        ("quizzes", known_quizzes, picked.quizzes),
    ):
        entries = doc.get(name, [])
        good = {e for e in entries if isinstance(e, str) and e in known}
        into.update(good)
        skipped += sum(1 for e in entries if not (isinstance(e, str) and e in known))
    picked.visited |= {item.split(".")[0] for item in picked.tasks | picked.quizzes}
    return picked, skipped


def read_file(data: bytes | str, lessons: tuple[Lesson, ...] = LESSONS) -> FileReading:
    """Read a file made by ``to_json``, refusing anything else: too big, not JSON
    (any parse error, including nesting too deep to parse), not a progress
    document, another app's file, a newer format, or a file that names nothing
    this course knows. Unknown fields are ignored; unknown entries are skipped
    and counted."""
    if len(data) > MAX_FILE_BYTES:
        return FileReading(None, TOO_BIG)
    try:
        text = data.decode("utf-8-sig") if isinstance(data, bytes) else data
        doc = json.loads(text)
    except Exception:  # ValueError, UnicodeDecodeError, RecursionError, ...: not a file we made
        return FileReading(None, NOT_JSON)
    problem = _document_problem(doc)
    if problem is not None:
        return FileReading(None, problem)
    picked, skipped = _known_entries(doc, lessons)
    if not (picked.visited or picked.tasks or picked.quizzes):
        return FileReading(None, NOTHING, skipped)
    return FileReading(picked, None, skipped)


def merge(a: Progress, b: Progress) -> Progress:
    """Everything either holds: nothing done in one is lost."""
    return Progress(a.visited | b.visited, a.tasks | b.tasks, a.quizzes | b.quizzes)


def counts(progress: Progress) -> dict[str, int]:
    """Lessons visited, tasks done and quizzes answered right (for messages)."""
    return {"visited": len(progress.visited), "tasks": len(progress.tasks), "quizzes": len(progress.quizzes)}
