"""The teacher's tables, computed from a class's members and events (plain
Python, no database, no Streamlit): the progress grid, the quiz questions
hardest first, the tasks, and who is stuck."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from course_app.classroom.store import (
    QUIZ_FIRST_RIGHT,
    QUIZ_FIRST_WRONG,
    QUIZ_RIGHT,
    TASK,
    VISIT,
    Done,
    Member,
)
from course_app.course import LESSONS, Lesson


def _done_items(events: list[Done]) -> dict[int, set[tuple[str, str]]]:
    """learner id -> the (lesson, item) pairs done: tasks, and quizzes answered right."""
    done: dict[int, set[tuple[str, str]]] = defaultdict(set)
    for e in events:
        if e.kind in (TASK, QUIZ_FIRST_RIGHT, QUIZ_RIGHT):
            done[e.learner_id].add((e.lesson, ("quiz:" if e.kind != TASK else "task:") + e.item))
    return done


def progress_grid(
    members: list[Member], events: list[Done], lessons: tuple[Lesson, ...] = LESSONS
) -> list[list[object]]:
    """One row per learner: the nickname, then per lesson how many of its tasks
    and quizzes are done, or None for a lesson not visited and nothing done."""
    done, visited = _done_items(events), defaultdict(set)
    for e in events:
        visited[e.learner_id].add(e.lesson)
    rows = []
    for member in members:
        row: list[object] = [member.nickname]
        for lesson in lessons:
            n = sum(1 for lesson_id, _ in done[member.id] if lesson_id == lesson.id)
            row.append(n if n or lesson.id in visited[member.id] else None)
        rows.append(row)
    return rows


@dataclass(frozen=True)
class QuizRow:
    lesson: str
    quiz: str
    answered: int  # learners who answered it at least once
    right_first: int  # of them, right on their first try

    @property
    def share(self) -> float:
        return self.right_first / self.answered if self.answered else 0.0


def quiz_rows(events: list[Done], lessons: tuple[Lesson, ...] = LESSONS) -> list[QuizRow]:
    """Per quiz question, how many learners answered and how many were right
    on their first try (a learner's earliest first-try event counts), the
    questions answered by anyone first, hardest first (ties: course order)."""
    first: dict[tuple[str, str, int], bool] = {}
    for e in events:  # oldest first
        if e.kind in (QUIZ_FIRST_RIGHT, QUIZ_FIRST_WRONG):
            first.setdefault((e.lesson, e.item, e.learner_id), e.kind == QUIZ_FIRST_RIGHT)
    rows = []
    for lesson in lessons:
        for question in lesson.quizzes:
            tries = [ok for (l_id, q_id, _), ok in first.items() if (l_id, q_id) == (lesson.id, question.id)]
            rows.append(QuizRow(lesson.id, question.id, len(tries), sum(tries)))
    order = {(row.lesson, row.quiz): i for i, row in enumerate(rows)}
    return sorted(rows, key=lambda r: (r.answered == 0, r.share, order[(r.lesson, r.quiz)]))


def task_rows(events: list[Done], lessons: tuple[Lesson, ...] = LESSONS) -> list[tuple[str, str, int]]:
    """Per task, in course order: (lesson, task, how many learners did it)."""
    did = defaultdict(set)
    for e in events:
        if e.kind == TASK:
            did[(e.lesson, e.item)].add(e.learner_id)
    return [(lesson.id, task, len(did[(lesson.id, task)])) for lesson in lessons for task in lesson.tasks]


@dataclass(frozen=True)
class Stuck:
    nickname: str
    lesson: str
    minutes: float  # since the visit or the last thing done, whichever is later


def stuck(
    members: list[Member], events: list[Done], now: float, minutes: float, lessons=LESSONS
) -> list[Stuck]:
    """Learners still in the class whose last visit was to a lesson they have
    not finished, with nothing done for ``minutes`` or more since that visit
    (or since the last thing they did after it), longest first."""
    totals = {lesson.id: len(lesson.tasks) + len(lesson.quizzes) for lesson in lessons}
    last_visit: dict[int, Done] = {}
    last_done: dict[int, float] = {}
    for e in events:
        if e.kind == VISIT:
            last_visit[e.learner_id] = e
        elif e.kind in (TASK, QUIZ_FIRST_RIGHT, QUIZ_RIGHT):
            last_done[e.learner_id] = e.at
    done = _done_items(events)
    found = []
    for member in members:
        visit = last_visit.get(member.id)
        if member.left or visit is None or visit.lesson not in totals:
            continue
        finished = sum(1 for lesson_id, _ in done[member.id] if lesson_id == visit.lesson)
        idle = now - max(visit.at, last_done.get(member.id, visit.at))
        if finished < totals[visit.lesson] and idle >= minutes * 60:
            found.append(Stuck(member.nickname, visit.lesson, idle / 60))
    return sorted(found, key=lambda s: -s.minutes)
