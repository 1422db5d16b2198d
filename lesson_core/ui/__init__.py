"""Everything that touches Streamlit or Altair, shared by the lessons.

The lessons (``lessons/<id>/``) import from this package only, never from its
modules: what is listed here is the whole surface they may use.
"""

from lesson_core.ui import charts, maths, tables, views, word_split
from lesson_core.ui.i18n import current_lang, gloss, md_escape, num, pct, t, t_count, t_list, vec
from lesson_core.ui.page import (
    lesson_end,
    lesson_footer,
    load_progress,
    one_shot,
    page_link,
    page_start,
    quiz,
    quizzes,
    section_start,
    setup_page,
    try_this,
)
from lesson_core.ui.study import anchor, progress_panel, terms
from lesson_core.ui.url_state import bound

__all__ = [
    "anchor",
    "bound",
    "charts",
    "current_lang",
    "gloss",
    "lesson_end",
    "lesson_footer",
    "load_progress",
    "maths",
    "md_escape",
    "num",
    "one_shot",
    "page_link",
    "page_start",
    "pct",
    "progress_panel",
    "quiz",
    "quizzes",
    "section_start",
    "setup_page",
    "t",
    "t_count",
    "t_list",
    "tables",
    "terms",
    "try_this",
    "vec",
    "views",
    "word_split",
]
