"""The session half of the state layer: every key the app keeps in
``st.session_state``, named once, and the only module that touches it.

A page reads and writes its session through ``get``, ``put``, ``pop``,
``has``, ``setdefault`` and ``update``, always with a name from this module
(``session.get(session.BG_ADDED, [])``) or a key one of its builders made
(``session.fold(name)``), never with a string of its own. The URL half is
``course_app.url`` (and ``course_app.url_state`` for controls bound to it).

A widget's key is its session key too. A control that only its own widget
reads (``key="temp"``) is named where it is created, which is once; a widget
whose value the app also reads or sets elsewhere is named here.
tests/house/test_streamlit_private.py fails when any other module touches
``st.session_state`` or spells one of these keys.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping
from typing import Any

import streamlit as st

# --- the page frame (course_app.page, browser, i18n, study, folds, charts)
PROGRESS = "progress"  # the learner's progress.Progress (mirrored in ?p=)
COMPLETED = "completed_message"  # what the next full run announces (a catalog key)
ONE_SHOT = "one_shot_taken"  # one-shot notes taken since the last full run: key -> value
SHARE_VIEW = "share_view"  # widget: whether the share link is open
LANG_SWITCHES = ("lang_choice", "lang_choice_top")  # widgets: the sidebar's switch, the phone's
TASK_PAGE = "tasks_page"  # the page whose checks TASK_SEEN holds (page.try_this)
TASK_SEEN = "tasks_seen"  # "<lesson>.<task>" -> whether its check held at its last run on this page
BROWSER_BRIDGE = "browser_bridge"  # widget: the local-storage component
BROWSER_MERGED = "browser_progress_merged"  # local storage has been read and merged
CHOSEN_LANG = "chosen_lang"  # the language the learner chose in this session, to be kept
STORED_LANG = "stored_lang"  # the language this browser keeps
PROGRESS_PENDING = "progress_pending"  # a file read but not applied yet: merge or replace
PROGRESS_SKIPPED = "progress_pending_skipped"  # how many entries of that file were unusable
PROGRESS_FLASH = "progress_flash"  # (kind, catalog key, values): the last file action, shown once
PROGRESS_FILE_SEEN = "progress_file_seen"  # the file_id of the upload already read
OPEN_FOLDS = "open_folds"  # the names of the folds open in this session
CHART_EXPORTS = "chart_exports"  # {"lesson", "drawn"}: numbers this run's PNG buttons
URL_SHOWN_START = "url_state_shown_start"  # {key: index} where each glossed choice started

# --- the classroom (course_app.classroom)
CLASS_SEAT = "classroom_seat"  # the store.Seat of a joined learner
CLASS_VISITED = "classroom_visited"  # the page last reported as visited
CLASS_ANSWERS = "classroom_answers"  # "<lesson>.<quiz>" -> the answer last reported
CLASS_LOOKED = "classroom_seat_looked_up"  # the ?seat= token already looked up
CLASS_UNREACHED = "classroom_seat_unreached"  # the database could not be reached for it
TEACHER_CLASS = "teacher_class"  # the store.ClassInfo the teacher opened
TEACHER_DELETED = "teacher_deleted"  # the class was just deleted (shown once)

# --- the lessons
BG_ADDED = "bg_added"  # bigram: the learner's sentences, tokens joined by one space
BG_NOTICE = "bg_notice"  # bigram: the outcome of the last add / remove, shown once
BG_NEW = "bg_new"  # bigram widget: the sentence being typed
BG_REMOVE_PICK = "bg_remove_pick"  # bigram widget: the sentence chosen for removal
PE_CLEAR_SEEN = "pe_t2_clear_seen"  # positional task t2: one hand with no near-collision seen
GPT_HEADS = "gpt_heads"  # capstone widget: the number of heads
GPT_SEED = "gpt_seed"  # capstone widget: the training seed
GPT_SEED_NOTICE = "gpt_seed_notice"  # capstone: the unusable seed just replaced
GPT_PRESSED = "gpt_pressed"  # capstone: the configurations this learner pressed Train for
GPT_TRAIN_RUNS = "gpt_train_runs"  # capstone: trainings this session actually ran
GPT_GROWN = "capstone_gen_grown"  # capstone: the start and the tokens appended one by one
GPT_HEAD_PICKED = "gpt_head_picked"  # capstone task t4: chosen with the select box, not a link
GLOSSARY_SEARCH = "glossary_search"  # glossary widget: the search box
GLOSSARY_ARRIVED = "glossary_arrived"  # glossary: the term a link last led to
LLM_KV = "llm_kv"  # todays_llms widget: the number of key/value heads
LLM_ROPE_SEEN = "llm_rope_seen"  # todays_llms: the (m, n) pairs looked at
LLM_STEP = "llm_step"  # todays_llms widget: tokens read by the KV cache (clamped to the prompt)
PG_SENTENCE = "pg_sentence"  # playground widget: the learner's sentence (split into words)
PG_CHARS = "pg_chars"  # playground widget: one token per character
PG_VECTORS = "pg_vectors"  # playground: tokens -> the learner's vectors, newest last


# --- keys made from a name
def fold(name: str) -> str:
    """The widget key of a fold (its open state): ``name`` is
    ``<lesson>_<part>``, stable across languages and reruns."""
    return f"fold_{name}"


def retried(key: str) -> str:
    """Flag: the URL-bound control ``key`` was just started again."""
    return f"url_state_retried_{key}"


def split_flag(key: str) -> str:
    """Flag: the text box ``key`` was just split into words."""
    return f"{key}__split"


def edits(prefix: str) -> str:
    """The query edits of the sliders under ``prefix`` (views.query_sliders)."""
    return f"{prefix}_edits"


def explorer_query(prefix: str) -> str:
    """Widget: the explorer's query token, also set by a click on its map."""
    return f"{prefix}_query"


def vector_table(tokens: Hashable) -> str:
    """Widget: the playground's vector table for one sentence."""
    return f"pg_editor_{hash(tokens)}"


# --- the only way to st.session_state
def get(key: str, default: Any = None) -> Any:
    return st.session_state.get(key, default)


def put(key: str, value: Any) -> None:
    st.session_state[key] = value


def pop(key: str, default: Any = None) -> Any:
    return st.session_state.pop(key, default)


def has(key: str) -> bool:
    return key in st.session_state


def setdefault(key: str, default: Any) -> Any:
    return st.session_state.setdefault(key, default)


def update(values: Mapping[str, Any]) -> None:
    st.session_state.update(values)


def named() -> dict[str, str]:
    """Every fixed key named above: constant name -> key."""
    named = {}
    for name, value in globals().items():
        if name.isupper() and isinstance(value, str):
            named[name] = value
        elif name.isupper() and isinstance(value, tuple):
            named |= {f"{name}[{i}]": item for i, item in enumerate(value)}
    return named
