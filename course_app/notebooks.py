"""A lesson as a Jupyter notebook: its title, the code behind its central
figure with the learner's settings (the code fold's snippet, so the two never
differ), the figure drawn with Altair, and the lesson's takeaways, in the
learner's language. Built with nbformat, only when the learner asks for it
(nbformat is imported then, never on a page's run).

The chart cell is the snippet's ``Plot``: what kind of chart, and the
snippet's expressions it draws.
"""

from __future__ import annotations

from course_app.i18n import catalog


def file_name(lesson_id: str, lang: str) -> str:
    """The notebook's file name: the course, the lesson and the language."""
    return f"attention-hands-on-{lesson_id}-{lang}.ipynb"


def build(lesson_id: str, lang: str, code: str, plot: str) -> bytes:
    """The notebook, as the bytes of an .ipynb file (nbformat 4): the figure's
    ``code`` and the Altair ``plot`` that draws it (a snippet's text() and
    plot.code()). Safe off the script's thread (a download's deferred data):
    it reads the catalog of ``lang`` directly, not the session's language."""
    import nbformat
    from nbformat import v4

    text = catalog(lang)
    cells = [
        v4.new_markdown_cell(f"# {text[f'{lesson_id}.title']}\n\n{text['ui.notebook.intro']}"),
        v4.new_markdown_cell(f"## {text['ui.code.label']}\n\n{text['ui.notebook.code']}"),
        v4.new_code_cell(code.rstrip("\n")),
        v4.new_markdown_cell(f"## {text['ui.notebook.figure']}"),
        v4.new_code_cell(plot.rstrip("\n")),
        v4.new_markdown_cell(f"## {text['ui.takeaway']}\n\n{text[f'{lesson_id}.end.takeaway']}"),
    ]
    book = v4.new_notebook(cells=cells)
    book.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    book.metadata["language_info"] = {"name": "python"}
    nbformat.validate(book)
    return nbformat.writes(book).encode("utf-8")
