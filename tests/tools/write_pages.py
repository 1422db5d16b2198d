"""Write Streamlit's entry points, ``pages/<N>_<id>.py``, from the course
registry (``course_app.course``): one per lesson and page after the lessons,
numbered in the menu's order, each calling its package's ``main()``; remove
any other file in ``pages/``. ``tests/house/test_layout.py`` fails when ``pages/``
is not what this would write.

    python tests/tools/write_pages.py
"""

from __future__ import annotations

import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from course_app import course

SHIM = '''"""{about}

An entry point only (its file name is the URL); the page is lessons/{id}/page.py.
Written by tests/tools/write_pages.py from course_app/course.py.
"""

from lessons.{id}.page import main

main()
'''


def entry_points() -> dict[str, str]:
    """What ``pages/`` should hold: file name -> its text. Each says what its
    page is, from the English catalog's title."""
    titles = tomllib.loads((ROOT / "course_app/locales/en.toml").read_text(encoding="utf-8"))
    lesson_ids = [lesson.id for lesson in course.LESSONS]
    files = {}
    for page_id, path in course.PAGE_FILES.items():
        title = titles[page_id]["title"]
        about = f"Lesson {lesson_ids.index(page_id) + 1}: {title}." if page_id in lesson_ids else f"{title}."
        files[Path(path).name] = SHIM.format(about=about, id=page_id)
    return files


def main() -> None:
    folder = ROOT / "pages"
    wanted = entry_points()
    for stale in folder.glob("*.py"):
        if stale.name not in wanted:
            stale.unlink()
            print(f"removed pages/{stale.name}")
    for name, text in wanted.items():
        path = folder / name
        if not path.exists() or path.read_text(encoding="utf-8") != text:
            path.write_text(text, encoding="utf-8")
            print(f"wrote pages/{name}")


if __name__ == "__main__":
    main()
