"""The scripts under tests/benchmarks and tests/tools are not collected by
pytest, so nothing would notice when a change in the app removes a name they
import. Every name they import from the project must still exist."""

import ast
import importlib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPTS = sorted([*ROOT.glob("tests/benchmarks/*.py"), *ROOT.glob("tests/tools/*.py")])
OWN = (
    "lesson_core",
    "course_app",
    "lessons",
    "helpers",
    "classroom",
    "screenshots",
    "streamlit_protocol",
    "streamlit_user",
)


def own_imports(path: Path) -> list[tuple[str, str]]:
    """(module, name) for every ``from <project module> import name`` in a script."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] in OWN:
            found += [(node.module, alias.name) for alias in node.names]
    return found


def test_there_are_scripts_to_check():
    assert len(SCRIPTS) >= 8 and sum(len(own_imports(path)) for path in SCRIPTS) >= 10


def top_level_names(path: Path) -> set[str]:
    """The functions, classes and variables a script defines at its top level."""
    names = set()
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.FunctionDef | ast.ClassDef):
            names.add(node.name)
        elif isinstance(node, ast.Assign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:  # a name, or names unpacked from a tuple (A, B = ...)
                names |= {t.id for t in ast.walk(target) if isinstance(t, ast.Name)}
    return names


@pytest.mark.parametrize("path", SCRIPTS, ids=lambda p: p.name)
def test_a_script_imports_only_names_that_exist(path):
    for module, name in own_imports(path):
        script = next((s for s in SCRIPTS if s.stem == module), None)
        if script is not None:  # a sibling script (some need the "bench" extra): read, not imported
            assert name in top_level_names(script), f"{path.name}: {module}.{name} is gone"
            continue
        found = importlib.import_module(module)
        if not hasattr(found, name):  # ``from package import submodule``
            found = importlib.import_module(f"{module}.{name}")
        assert found is not None, f"{path.name}: {module}.{name} is gone"
