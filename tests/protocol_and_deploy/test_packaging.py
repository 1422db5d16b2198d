"""The deployable shape: one dependency file for Community Cloud that matches
pyproject, a theme in the root config, and a pure-NumPy core."""

import ast
import re
import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
APP_FILES = [
    *ROOT.glob("pages/*.py"),
    *(path for floor in ("lessons", "course_app", "lesson_core") for path in ROOT.glob(f"{floor}/**/*.py")),
]
APP_FILES.append(ROOT / "streamlit_app.py")


def test_requirements_txt_matches_pyproject():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    lines = (ROOT / "requirements.txt").read_text().splitlines()
    reqs = [line.strip() for line in lines if line.strip() and not line.startswith("#")]
    assert sorted(reqs) == sorted(project["dependencies"])
    names = {re.split(r"[<>=!~ ]", r)[0].lower() for r in reqs}
    assert names == {
        "streamlit",
        "numpy",
        "pandas",
        "altair",
        "pyarrow",
        "sudachipy",
        "sudachidict_small",
        "threadpoolctl",
        "sqlalchemy",
        "psycopg",
        "psycopg-binary",
        "nbformat",
        "vl-convert-python",
    }


# A distribution whose module has another name.
IMPORTED_AS = {"vl-convert-python": "vl_convert"}


def test_every_library_the_app_imports_is_a_dependency():
    """A library the app imports itself is listed, not left to come with another
    (pyarrow came with Streamlit until the charts built Arrow tables directly)."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    listed = {re.split(r"[<>=!~ \[]", r)[0].lower() for r in project["dependencies"]}
    listed = {IMPORTED_AS.get(name, name) for name in listed}
    imported = set()
    for path in APP_FILES:
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                imported |= {alias.name.split(".")[0] for alias in node.names}
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                imported.add(node.module.split(".")[0])
    third_party = (
        imported - set(sys.stdlib_module_names) - {"lesson_core", "course_app", "lessons", "__future__"}
    )
    assert third_party <= listed, third_party - listed


def test_only_one_dependency_file_for_cloud():
    others = ["Pipfile", "environment.yml", "uv.lock", "poetry.lock", "packages.txt"]
    assert not [name for name in others if (ROOT / name).exists()]


def test_config_has_theme_and_hides_the_automatic_menu():
    config = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text())
    assert config["theme"]["primaryColor"]
    assert config["client"]["showSidebarNavigation"] is False


def test_core_is_pure_numpy():
    """The maths floor imports nothing of Streamlit, Altair or pandas, nor the floors above it."""
    forbidden = re.compile(r"^\s*(import|from)\s+(streamlit|altair|pandas|course_app|lessons)\b", re.M)
    core = sorted((ROOT / "lesson_core").rglob("*.py"))
    assert ROOT / "lesson_core" / "transformer" / "model.py" in core  # packages below lesson_core count too
    for path in core:
        assert not forbidden.search(path.read_text(encoding="utf-8")), path


def test_no_user_text_reaches_unsafe_html():
    """No app file names unsafe_allow_html at all, however it is passed
    (``=True`` with or without spaces, a variable, a ** dict): text a learner
    typed is always escaped markdown, never HTML."""
    for path in APP_FILES:
        assert "unsafe_allow_html" not in path.read_text(encoding="utf-8"), path


def test_st_html_only_gets_our_own_fixed_stylesheets():
    """st.html renders HTML: it may only get a module constant, never text built at run time."""
    calls = []
    for path in APP_FILES:
        calls += re.findall(r"\bst\.html\(([^)]*)\)", path.read_text(encoding="utf-8"))
    assert calls, "the narrow-screen stylesheet is no longer added"
    for argument in calls:
        assert re.fullmatch(r"[A-Z][A-Z0-9_]*", argument.strip()), argument


def test_no_full_garbage_collection_after_every_rerun():
    """Streamlit's default gc.collect(2) after each run costs more than a lesson's
    rerun and blocks every session (docs/serving.md): it must stay switched off."""
    config = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text())
    assert config["runner"]["postScriptGC"] is False


def test_server_process_sets_glibc_malloc_to_return_freed_memory(monkeypatch):
    """Without it, the server's memory grew with every learner's action (freed
    memory kept in per-thread arenas, docs/serving.md); the environment wins."""
    import ctypes
    import platform

    from course_app import memory

    glibc = platform.system() == "Linux" and hasattr(ctypes.CDLL(None), "gnu_get_libc_version")
    for name in ("MALLOC_ARENA_MAX", "MALLOC_MMAP_THRESHOLD_"):
        monkeypatch.delenv(name, raising=False)
    assert memory.compact_malloc() is glibc
    monkeypatch.setenv("MALLOC_ARENA_MAX", "4")
    assert memory.compact_malloc() is False


def _requirements() -> dict[str, list[str]]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    return {"dependencies": project["dependencies"], **project["optional-dependencies"]}


def test_every_dependency_has_a_tested_range():
    """A lower bound (the oldest version CI tests) and an upper bound (the next
    major after the tested one), so a fresh install never gets an untried major."""
    for group, requirements in _requirements().items():
        for requirement in requirements:
            assert re.search(r">=\s*[0-9]", requirement), (group, requirement)
            assert re.search(r"<\s*[0-9]", requirement), (group, requirement)


def test_load_test_tools_are_not_in_the_test_extra():
    groups = _requirements()
    assert any(r.startswith("locust") for r in groups["bench"])
    assert not any(r.startswith(("locust", "py-spy")) for r in groups["test"] + groups["dependencies"])


def test_ci_runs_every_python_and_the_lowest_versions():
    """.ci/run: the main run with browsers required, then the non-browser tests in
    fresh virtual environments: Python 3.12 and 3.13 with the newest versions
    allowed, and the lower bounds of pyproject.toml."""
    ci = (ROOT / ".ci" / "run").read_text()
    main = ci.index('pip install -q -e ".[test,bench]" && run_tests python -m pytest\n')  # Locust runs too
    assert "export REQUIRE_BROWSER=1" in ci[:main]
    assert re.search(r"apt-get install .*chromium fonts-noto-cjk nginx postgresql", ci[:main])
    later = ci[main:]
    assert "for minor in 3.12 3.13; do" in later and '"$1" -m venv' in ci
    assert '"$env_dir/bin/pip" install -q -e ".[test]"' in later
    assert 'run_tests "$env_dir/bin/python" -m pytest -m "not browser"' in later
    lowest = later[later.index("tomllib.load") :]
    assert '["dependencies"]' in lowest
    assert 'run_tests "$LOWEST_ENV/bin/python" -m pytest -m "not browser" -p no:cacheprovider' in lowest


def test_ci_fails_when_pytest_collects_nothing():
    """pytest's exit 5 (no test collected) fails the CI run, and passing stays passing."""
    ci = (ROOT / ".ci" / "run").read_text()
    function = ci[ci.index("run_tests() {") : ci.index("\n}\n", ci.index("run_tests() {")) + 3]
    for code, expected in ((5, 5), (0, 0), (1, 1)):
        done = subprocess.run(
            ["bash", "-c", f"set -euo pipefail\n{function}run_tests sh -c 'exit {code}'\necho after"],
            capture_output=True,
            text=True,
        )
        assert done.returncode == expected and ("after" in done.stdout) == (expected == 0), done


def _luminance(hex_colour: str) -> float:
    channels = [int(hex_colour.lstrip("#")[i : i + 2], 16) / 255 for i in (0, 2, 4)]
    r, g, b = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(a: str, b: str) -> float:
    high, low = sorted((_luminance(a), _luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def test_a_light_and_a_dark_theme_both_readable():
    """The device's light or dark setting chooses the theme;
    text, controls and the chart colours that do not follow the theme stay
    readable on both."""
    from course_app.charts import CHOSEN_COLOUR, MASKED_GREY

    config = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text())
    assert "base" not in config["theme"], "a base theme would hide the other one"
    for name in ("light", "dark"):
        theme = config["theme"][name]
        for background in (theme["backgroundColor"], theme["secondaryBackgroundColor"]):
            assert contrast(theme["textColor"], background) >= 7, (name, background)
            assert contrast(theme["primaryColor"], background) >= 3, (name, background)
            assert contrast(CHOSEN_COLOUR, background) >= 3, (name, background)
        assert contrast(MASKED_GREY, theme["backgroundColor"]) >= 1.5, name  # the grey cells stand out
    assert _luminance(config["theme"]["dark"]["backgroundColor"]) < 0.05
