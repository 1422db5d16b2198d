"""Layer 4: every lesson as a notebook, in both languages. A learner opens the
code fold under the lesson's central figure and downloads the notebook; run
by Jupyter's own machinery (nbclient, an IPython kernel), it must compute the
numbers the snippet on the page prints (which tests/pages/test_code_folds.py checks
against the figure's own data), draw its chart with Altair, and speak the
learner's language.
"""

from __future__ import annotations

import ast
import json

import numpy as np
import pytest
from helpers.apprun import lesson_page, rerun

from course_app.course import BY_ID
from course_app.i18n import LANGS, catalog

pytestmark = [pytest.mark.browser, pytest.mark.slow]

LESSONS = [lesson for lesson in BY_ID if BY_ID[lesson].page]
CODE_FOLD = {lesson: f"{lesson}_code" for lesson in LESSONS}


def printed(code: str) -> list[str]:
    """The expressions a cell prints, in order."""
    return [
        ast.unparse(node.args[0])
        for node in ast.walk(ast.parse(code))
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "print"
    ]


def values_of(code: str) -> list[np.ndarray]:
    """Run ``code`` here and return what it prints, as arrays."""
    namespace: dict[str, object] = {}
    exec(compile(code.replace("print(", "(lambda *_: None)("), "<snippet>", "exec"), namespace)
    return [np.asarray(eval(expr, namespace), dtype=float) for expr in printed(code)]


def run_notebook(data: bytes, extra: str) -> object:
    """The notebook ``data`` executed in a fresh IPython kernel, with a cell
    ``extra`` appended."""
    import nbclient
    import nbformat

    book = nbformat.reads(data.decode("utf-8"), as_version=4)
    book.cells.append(nbformat.v4.new_code_cell(extra))
    nbclient.NotebookClient(book, timeout=300, kernel_name="python3").execute()
    return book


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("lesson", LESSONS)
def test_the_lessons_notebook_recomputes_its_figure(browser, app_url, lesson, lang):
    text = catalog(lang)
    with lesson_page(browser, app_url, lesson, lang) as page:
        if lesson == "capstone":  # its figure is drawn once the model is trained
            rerun(page, lambda: page.locator(".st-key-gpt_train button").click(), timeout_ms=180_000)
        fold = page.locator('[data-testid="stExpander"] summary', has_text=text["ui.code.label"])
        rerun(page, lambda: fold.click())
        shown = page.locator('[data-testid="stExpander"] [data-testid="stCode"] code').first.inner_text()
        with page.expect_download(timeout=60_000) as download:
            page.get_by_role("button", name=text["ui.notebook.download"]).click()
        data = download.value.path().read_bytes()
        assert download.value.suggested_filename == f"attention-hands-on-{lesson}-{lang}.ipynb"

    shows = printed(shown)
    dump = "import json\nprint(json.dumps([np.asarray(x).tolist() for x in [" + ", ".join(shows) + "]]))"
    book = run_notebook(data, dump)
    code_cells = [cell for cell in book.cells if cell.cell_type == "code"]
    assert code_cells[0].source.strip() == shown.strip()  # the page's snippet, as shown
    computed = json.loads(code_cells[-1].outputs[-1]["text"])
    for there, here in zip(computed, values_of(shown), strict=True):
        np.testing.assert_allclose(np.asarray(there, dtype=float), here, rtol=1e-12, atol=0)
    chart_outputs = [output["data"] for output in code_cells[1].outputs if "data" in output]
    assert chart_outputs and chart_outputs[0].get("text/plain") == "alt.Chart(...)", code_cells[1].outputs
    assert "vega-embed" in chart_outputs[0]["text/html"]  # Altair's own way of drawing it in a notebook
    markdown = "\n".join(cell.source for cell in book.cells if cell.cell_type == "markdown")
    assert text[f"{lesson}.title"] in markdown and text["ui.notebook.intro"] in markdown
    other = catalog(next(x for x in LANGS if x != lang))
    assert other["ui.notebook.intro"] not in markdown
