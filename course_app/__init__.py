"""The app's furniture: everything that touches Streamlit or Altair, shared by
the lessons, with the course's registry, the learner's progress, the glossary
and the catalogs of every sentence.

The lessons (``lessons/<id>/``) import from this package only, never from its
modules: what is listed here is the whole surface they may use. The numbers
come from ``lesson_core``, which imports nothing from here.
"""

from course_app import (
    charts,
    course,
    maths,
    pipeline,
    ranking,
    session,
    snippets,
    tables,
    url_state,
    views,
    wire_guard,
    word_split,
)
from course_app.classroom.teacher import teacher_page
from course_app.course import LESSONS
from course_app.folds import fold, open_fold
from course_app.glossary import TERM_PARAM, TERMS
from course_app.i18n import current_lang, gloss, md_escape, num, pct, pct_label, t, t_count, t_list, vec
from course_app.page import (
    hrefs,
    lesson_end,
    lesson_footer,
    load_progress,
    one_shot,
    page_href,
    page_link,
    page_start,
    quiz,
    quizzes,
    setup_page,
    try_this,
)
from course_app.ranking import top_text
from course_app.sections import section_fold, section_start
from course_app.study import anchor, progress_panel, terms
from course_app.url_state import bound, shown_choice
from course_app.views import MAIN_FIGURE

wire_guard.install()  # what any client may send over the websocket: see course_app/wire_guard.py

__all__ = [
    "LESSONS",
    "MAIN_FIGURE",
    "TERMS",
    "TERM_PARAM",
    "anchor",
    "bound",
    "charts",
    "course",
    "current_lang",
    "fold",
    "gloss",
    "hrefs",
    "lesson_end",
    "lesson_footer",
    "load_progress",
    "maths",
    "md_escape",
    "num",
    "one_shot",
    "open_fold",
    "page_href",
    "page_link",
    "page_start",
    "pct",
    "pct_label",
    "pipeline",
    "progress_panel",
    "quiz",
    "quizzes",
    "ranking",
    "section_fold",
    "section_start",
    "session",
    "setup_page",
    "shown_choice",
    "snippets",
    "t",
    "t_count",
    "t_list",
    "tables",
    "teacher_page",
    "terms",
    "top_text",
    "try_this",
    "url_state",
    "vec",
    "views",
    "word_split",
]
