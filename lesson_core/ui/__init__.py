"""Everything that touches Streamlit or Altair. Pages import from here."""

from lesson_core.ui import charts, maths, tables
from lesson_core.ui.i18n import current_lang, gloss, num, pct, t, t_list, vec
from lesson_core.ui.page import lesson_end, lesson_footer, page_link, quiz, quizzes, setup_page, try_this

__all__ = [
    "charts",
    "current_lang",
    "gloss",
    "lesson_end",
    "lesson_footer",
    "maths",
    "num",
    "page_link",
    "pct",
    "quiz",
    "quizzes",
    "setup_page",
    "t",
    "t_list",
    "tables",
    "try_this",
    "vec",
]
