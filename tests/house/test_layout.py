"""The layout rule, checked: a page file is an entry point, a lesson lives in its
own package and uses the shared UI through ``course_app``'s public surface."""

import ast
import re
import sys
from pathlib import Path

import pytest

import course_app
from course_app.course import EXTRAS, LESSONS, PAGES, url_path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "tools"))
import write_pages  # noqa: E402

LESSON_FILES = sorted((ROOT / "lessons").rglob("*.py"))


def imports(path: Path) -> list[ast.ImportFrom | ast.Import]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return [node for node in ast.walk(tree) if isinstance(node, ast.Import | ast.ImportFrom)]


@pytest.mark.parametrize("name", PAGES)
def test_a_page_file_only_runs_its_lessons_main(name):
    tree = ast.parse((ROOT / PAGES[name]).read_text(encoding="utf-8"))
    body = [
        node
        for node in tree.body
        if not (isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant))
    ]
    assert len(body) == 2, PAGES[name]
    first, second = body
    assert isinstance(first, ast.ImportFrom) and first.module == f"lessons.{name}.page"
    assert [alias.name for alias in first.names] == ["main"]
    assert ast.unparse(second) == "main()"


def test_every_lesson_package_is_a_page():
    packages = {path.parent.name for path in (ROOT / "lessons").glob("*/page.py")}
    assert packages == set(PAGES)


def header_calls(path: Path) -> list[int]:
    """The lines of ``path`` that call ``st.header`` (or ``header`` on any
    container)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return [
        node.lineno
        for node in ast.walk(tree)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "header"
    ]


@pytest.mark.parametrize("lesson", [lesson.id for lesson in LESSONS])
def test_every_section_of_a_lesson_opens_through_section_start(lesson):
    """One way to open a section: course_app.section_start (its header, text,
    formula and glossary look-up), never a header written by hand."""
    offenders = {
        str(path.relative_to(ROOT)): lines
        for path in sorted((ROOT / "lessons" / lesson).rglob("*.py"))
        if (lines := header_calls(path))
    }
    assert offenders == {}


def test_the_header_check_sees_a_hand_written_header(tmp_path):
    planted = tmp_path / "page.py"
    planted.write_text('import streamlit as st\n\nst.header("x")\nbox.header("y")\n', encoding="utf-8")
    assert header_calls(planted) == [3, 4]


def test_the_pages_folder_is_what_the_registry_writes():
    """A page is named once, in course_app/course.py: pages/ holds exactly the
    entry points tests/tools/write_pages.py writes from it (run it after
    adding or moving a page)."""
    wanted = write_pages.entry_points()
    held = {path.name: path.read_text(encoding="utf-8") for path in (ROOT / "pages").glob("*.py")}
    assert sorted(held) == sorted(wanted)
    for name, text in wanted.items():
        assert held[name] == text, f"pages/{name} differs: run python tests/tools/write_pages.py"


def test_the_entry_points_are_numbered_in_the_menus_order():
    """The sidebar menu (course_app/page.py) lists the lessons, then the pages
    after them; the files' numbers count 1, 2, 3 ... in that order."""
    menu = [lesson.page for lesson in LESSONS] + [extra.page for extra in EXTRAS]
    numbers = [int(Path(page).name.split("_", 1)[0]) for page in menu]
    assert numbers == list(range(1, len(menu) + 1))
    # and each file's address is its id: a shared link keeps working when a page moves
    assert [url_path(page) for page in menu] == [lesson.id for lesson in LESSONS] + [e.id for e in EXTRAS]


@pytest.mark.parametrize("path", LESSON_FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_a_lesson_uses_the_shared_ui_through_its_public_surface(path):
    own = path.relative_to(ROOT / "lessons").parts[0]
    for node in imports(path):
        names = [alias.name for alias in node.names]
        if isinstance(node, ast.Import):
            assert not any(name.startswith(("course_app", "lessons")) for name in names), path
            continue
        module = node.module or ""
        if module.startswith("course_app"):
            assert module == "course_app", f"{path}: import from course_app, not {module}"
            assert set(names) <= set(course_app.__all__), path
        if module.startswith("lessons"):
            assert module.split(".")[:2] == ["lessons", own] or module == f"lessons.{own}", path


CHARTS = ROOT / "course_app" / "charts"
FLOORS = ("lesson_core", "course_app", "lessons")  # the maths, the app's furniture, the lessons


def imported_modules(path: Path) -> set[str]:
    """The top-level name of every module ``path`` imports (``altair`` for ``import altair.vegalite``)."""
    names = set()
    for node in imports(path):
        if isinstance(node, ast.Import):
            names |= {alias.name.split(".")[0] for alias in node.names}
        elif node.level == 0 and node.module:
            names.add(node.module.split(".")[0])
    return names


def test_only_the_charts_package_imports_altair():
    sources = [path for floor in FLOORS for path in (ROOT / floor).rglob("*.py")]
    assert any(CHARTS in path.parents for path in sources)  # the walk does reach the charts
    offenders = [
        str(path.relative_to(ROOT))
        for path in sources
        if CHARTS not in path.parents and "altair" in imported_modules(path)
    ]
    assert offenders == []


def readme_code_map() -> str:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    start = readme.index("## How it is built")
    return readme[readme.index("```", start) + 3 : readme.index("```", readme.index("```", start) + 3)]


def test_the_readme_code_map_names_every_module():
    """A newcomer finds every module in the README's map; lessons/<id>/page.py
    and parts.py are named once for all lessons, by the <id>/ pattern."""
    code_map = readme_code_map()
    for path in sorted(path for floor in FLOORS for path in (ROOT / floor).rglob("*.py")):
        relative = path.relative_to(ROOT)
        if path.name == "__init__.py":
            assert f"{path.parent.name}/" in code_map, relative
        elif relative.parts[0] == "lessons":
            lesson = relative.parts[1]
            assert f"{lesson}/" in code_map, relative
            assert path.name in ("page.py", "parts.py") or f"{lesson}/{path.name}" in code_map, relative
        else:
            assert path.name in code_map, relative


def test_the_readme_code_map_names_no_module_that_is_gone():
    code_map = readme_code_map()
    named = set(re.findall(r"[\w/]*[\w]+\.py", code_map))
    existing = {p.name for p in ROOT.rglob("*.py") if ".git" not in p.parts}
    assert named, "the map names no file"
    assert {Path(name).name for name in named} <= existing | {"N_name.py"}, named


def test_each_floor_imports_only_the_floors_below_it():
    """lesson_core (the maths) imports neither upper floor; course_app (the app's
    furniture) imports lesson_core but no lesson."""
    for floor, above in (("lesson_core", {"course_app", "lessons"}), ("course_app", {"lessons"})):
        files = sorted((ROOT / floor).rglob("*.py"))
        assert files, floor
        for path in files:
            assert not imported_modules(path) & above, path


BROWSER_SCRIPTS = sorted(
    [*(ROOT / "tests" / "browser").glob("test_*.py"), *(ROOT / "tests" / "tools").glob("*.py")]
)
assert len(BROWSER_SCRIPTS) > 30, "the browser tests moved: point BROWSER_SCRIPTS at them"
# A timer that stands for "nothing may happen in this span" (no state to wait
# for) says so on its line; any other timer is a guess at how long the app takes.
NOTHING_HAPPENS = "a span in which nothing may happen"


@pytest.mark.parametrize("path", BROWSER_SCRIPTS, ids=lambda p: p.name)
def test_browser_scripts_wait_through_apprun_not_on_timers(path):
    """Browser tests and tools wait for the app through tests/helpers/apprun.py
    (``settle``, ``rerun``, ``open_app``, ...), which know when a run has
    ended, the stylesheet is applied and the page stands still: a bare timer,
    or a wait on the script's idle state alone, matches the page *before* a
    rerun that a busy machine starts late."""
    text = path.read_text(encoding="utf-8")
    timers = [
        line.strip()
        for line in text.splitlines()
        if "wait_for_timeout(" in line and NOTHING_HAPPENS not in line
    ]
    assert not timers, timers
    assert "data-test-script-state" not in text, "wait through apprun.settle instead"
