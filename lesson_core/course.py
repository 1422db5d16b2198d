"""The course map: which lessons exist, in what order, with which tasks and quizzes.

Data only. A lesson's ``id`` is also its prefix in the locale catalogs
(``attention.title``) and its ``code`` names it in the progress URL value,
so never reuse or rename a code once published; append new lessons.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Quiz:
    id: str
    answer: int  # index of the right option in the catalog's option list


@dataclass(frozen=True)
class Lesson:
    id: str
    page: str
    code: str
    tasks: tuple[str, ...] = ()
    quizzes: tuple[Quiz, ...] = ()

    def quiz(self, quiz_id: str) -> Quiz:
        return next(q for q in self.quizzes if q.id == quiz_id)


HOME = "streamlit_app.py"

LESSONS: tuple[Lesson, ...] = (
    Lesson(
        id="attention",
        page="pages/2_attention.py",
        code="at",
        tasks=("cat_top", "unmask_cat", "sharpen"),
        quizzes=(Quiz("q1", 1), Quiz("q2", 2), Quiz("q3", 0)),
    ),
)

BY_ID = {lesson.id: lesson for lesson in LESSONS}


def neighbours(lesson_id: str) -> tuple[Lesson | None, Lesson | None]:
    """The lessons before and after ``lesson_id`` in course order."""
    i = [lesson.id for lesson in LESSONS].index(lesson_id)
    before = LESSONS[i - 1] if i > 0 else None
    after = LESSONS[i + 1] if i + 1 < len(LESSONS) else None
    return before, after
