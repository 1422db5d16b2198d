"""The course map: which lessons exist, in what order, with which tasks and quizzes.

Data only. A lesson's ``id`` is also its prefix in the locale catalogs
(``attention.title``), its package (``lessons/<id>/``) and its address
(``/<id>``), and its ``code`` names it in the progress URL value, so never
reuse or rename a code once published; append new lessons. Each page's
entry point, ``pages/<N>_<id>.py``, is numbered by its place in the menu
(``page_files``); ``python tests/tools/write_pages.py`` writes them all.
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
    code: str
    tasks: tuple[str, ...] = ()
    quizzes: tuple[Quiz, ...] = ()

    @property
    def page(self) -> str:
        """Its entry point, ``pages/<N>_<id>.py`` (``page_files``)."""
        return PAGE_FILES[self.id]

    def quiz(self, quiz_id: str) -> Quiz:
        return next(q for q in self.quizzes if q.id == quiz_id)


@dataclass(frozen=True)
class Extra:
    """A page after the lessons in the menu (``id`` is its catalog prefix)."""

    id: str
    icon: str

    @property
    def page(self) -> str:
        """Its entry point, ``pages/<N>_<id>.py`` (``page_files``)."""
        return PAGE_FILES[self.id]


HOME = "streamlit_app.py"
EXTRAS: tuple[Extra, ...] = (  # in the menu's order
    Extra("playground", ":material/science:"),
    Extra("glossary", ":material/menu_book:"),
    Extra("teacher", ":material/co_present:"),
)

LESSONS: tuple[Lesson, ...] = (
    Lesson(
        id="bigram",
        code="bg",
        tasks=("t1", "t2", "t3"),
        quizzes=(Quiz("q1", 1), Quiz("q2", 1), Quiz("q3", 2)),
    ),
    Lesson(
        id="attention",
        code="at",
        tasks=("equal", "flat", "fish_half"),
        quizzes=(Quiz("q1", 1), Quiz("q2", 2), Quiz("q3", 0)),
    ),
    Lesson(
        id="scaling",
        code="sc",
        tasks=("raw_one_hot", "one_hot", "undo_scaling"),
        quizzes=(Quiz("q1", 2), Quiz("q2", 1), Quiz("q3", 0)),
    ),
    Lesson(
        id="causal_mask",
        code="cm",
        tasks=("tightest_fill", "window_fish", "mask_no_effect"),
        quizzes=(Quiz("q1", 0), Quiz("q2", 2), Quiz("q3", 1)),
    ),
    Lesson(
        id="positional",
        code="pe",
        tasks=("t1", "t2", "t3"),
        quizzes=(Quiz("q1", 1), Quiz("q2", 2), Quiz("q3", 0)),
    ),
    Lesson(
        id="multi_head",
        code="mh",
        tasks=("t1", "t2", "t3"),
        quizzes=(Quiz("q1", 2), Quiz("q2", 0), Quiz("q3", 1)),
    ),
    Lesson(
        id="capstone",
        code="gpt",
        tasks=("t1", "t2", "t3", "t4"),
        quizzes=(Quiz("q1", 0), Quiz("q2", 1), Quiz("q3", 2)),
    ),
    Lesson(
        id="todays_llms",
        code="llm",
        tasks=("t1", "t2", "t3", "t4"),
        quizzes=(Quiz("q1", 0), Quiz("q2", 1), Quiz("q3", 1), Quiz("q4", 0)),
    ),
)


def page_files(ids: tuple[str, ...]) -> dict[str, str]:
    """Each page's entry point, numbered by its place in the menu: the
    lessons, then the pages after them. Streamlit takes a page's address from
    the file's name without its number ("pages/8_todays_llms.py" ->
    /todays_llms), so a page that moves in the menu keeps its address."""
    return {page_id: f"pages/{n}_{page_id}.py" for n, page_id in enumerate(ids, start=1)}


BY_ID = {lesson.id: lesson for lesson in LESSONS}
PAGE_FILES = page_files(tuple(lesson.id for lesson in LESSONS) + tuple(extra.id for extra in EXTRAS))
GLOSSARY = PAGE_FILES["glossary"]
PLAYGROUND = PAGE_FILES["playground"]
TEACHER = PAGE_FILES["teacher"]
PAGES = {"home": HOME} | PAGE_FILES  # every page of the app: id -> path, in the menu's order


def url_path(page: str) -> str:
    """A page's address below the app's root: "pages/2_attention.py" -> "attention" ("" for home)."""
    return "" if page == HOME else Path(page).stem.split("_", 1)[1]


def neighbours(lesson_id: str, lessons: tuple[Lesson, ...] = LESSONS) -> tuple[Lesson | None, Lesson | None]:
    """The lessons before and after ``lesson_id`` in course order."""
    i = [lesson.id for lesson in lessons].index(lesson_id)
    before = lessons[i - 1] if i > 0 else None
    after = lessons[i + 1] if i + 1 < len(lessons) else None
    return before, after
