"""The course map: which lessons exist, in what order, with which tasks and quizzes.

Data only. A lesson's ``id`` is also its prefix in the locale catalogs
(``attention.title``) and its ``code`` names it in the progress URL value,
so never reuse or rename a code once published; append new lessons.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


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


@dataclass(frozen=True)
class Extra:
    """A page after the lessons in the menu (``id`` is its catalog prefix)."""

    id: str
    page: str
    icon: str


HOME = "streamlit_app.py"
GLOSSARY = "pages/8_glossary.py"
PLAYGROUND = "pages/9_playground.py"
TEACHER = "pages/11_teacher.py"
EXTRAS: tuple[Extra, ...] = (
    Extra("playground", PLAYGROUND, ":material/science:"),
    Extra("glossary", GLOSSARY, ":material/menu_book:"),
    Extra("teacher", TEACHER, ":material/co_present:"),
)

LESSONS: tuple[Lesson, ...] = (
    Lesson(
        id="bigram",
        page="pages/1_bigram.py",
        code="bg",
        tasks=("t1", "t2", "t3"),
        quizzes=(Quiz("q1", 1), Quiz("q2", 1), Quiz("q3", 2)),
    ),
    Lesson(
        id="attention",
        page="pages/2_attention.py",
        code="at",
        tasks=("equal", "flat", "fish_half"),
        quizzes=(Quiz("q1", 1), Quiz("q2", 2), Quiz("q3", 0)),
    ),
    Lesson(
        id="scaling",
        page="pages/3_scaling.py",
        code="sc",
        tasks=("raw_one_hot", "one_hot", "undo_scaling"),
        quizzes=(Quiz("q1", 2), Quiz("q2", 1), Quiz("q3", 0)),
    ),
    Lesson(
        id="causal_mask",
        page="pages/4_causal_mask.py",
        code="cm",
        tasks=("tightest_fill", "window_fish", "mask_no_effect"),
        quizzes=(Quiz("q1", 0), Quiz("q2", 2), Quiz("q3", 1)),
    ),
    Lesson(
        id="positional",
        page="pages/5_positional.py",
        code="pe",
        tasks=("t1", "t2", "t3"),
        quizzes=(Quiz("q1", 1), Quiz("q2", 2), Quiz("q3", 0)),
    ),
    Lesson(
        id="multi_head",
        page="pages/6_multi_head.py",
        code="mh",
        tasks=("t1", "t2", "t3"),
        quizzes=(Quiz("q1", 2), Quiz("q2", 0), Quiz("q3", 1)),
    ),
    Lesson(
        id="capstone",
        page="pages/7_capstone.py",
        code="gpt",
        tasks=("t1", "t2", "t3", "t4"),
        quizzes=(Quiz("q1", 0), Quiz("q2", 1), Quiz("q3", 2)),
    ),
    Lesson(
        id="todays_llms",
        page="pages/10_todays_llms.py",
        code="llm",
        tasks=("t1", "t2", "t3", "t4"),
        quizzes=(Quiz("q1", 0), Quiz("q2", 1), Quiz("q3", 1), Quiz("q4", 0)),
    ),
)

BY_ID = {lesson.id: lesson for lesson in LESSONS}
PAGES = (  # every page of the app: id -> path
    {"home": HOME}
    | {lesson.id: lesson.page for lesson in LESSONS}
    | {extra.id: extra.page for extra in EXTRAS}
)


def url_path(page: str) -> str:
    """A page's address below the app's root: "pages/2_attention.py" -> "attention" ("" for home)."""
    return "" if page == HOME else Path(page).stem.split("_", 1)[1]


def neighbours(lesson_id: str, lessons: tuple[Lesson, ...] = LESSONS) -> tuple[Lesson | None, Lesson | None]:
    """The lessons before and after ``lesson_id`` in course order."""
    i = [lesson.id for lesson in lessons].index(lesson_id)
    before = lessons[i - 1] if i > 0 else None
    after = lessons[i + 1] if i + 1 < len(lessons) else None
    return before, after
