"""An accessibility scan (axe-core, bundled by the axe-playwright-python
package) of every page in both languages and both themes (a device set to
light or to dark): no serious or critical violation that comes from the app's
own content, with the page as it first opens and with every fold open.

What Streamlit itself draws and the app cannot change is listed in
STREAMLIT_OWN with the reason; a violation there is ignored only on the
elements named by its selector.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers.apprun import open_all_folds, open_app, page_paths, settle

from course_app.i18n import LANGS

pytestmark = pytest.mark.browser

SEVERE = ("serious", "critical")

# (axe rule, CSS selector of the Streamlit-made element it fires on): why it is not ours.
STREAMLIT_OWN: dict[tuple[str, str], str] = {}


def axe_source() -> str:
    import axe_playwright_python

    return (Path(axe_playwright_python.__file__).parent / "axe.min.js").read_text(encoding="utf-8")


def streamlit_own(rule: str, target: str) -> bool:
    return any(rule == r and selector in target for (r, selector) in STREAMLIT_OWN)


def violations(page) -> list[str]:
    """The serious and critical violations axe finds on the page, but Streamlit's own."""
    page.evaluate(axe_source())
    results = page.evaluate("axe.run(document, {resultTypes: ['violations']})")
    found = []
    for violation in results["violations"]:
        if violation["impact"] not in SEVERE:
            continue
        for node in violation["nodes"]:
            target = " ".join(map(str, node["target"]))
            if not streamlit_own(violation["id"], target):
                found.append(f"{violation['id']} ({violation['impact']}): {target} :: {node['html'][:160]}")
    return found


@pytest.mark.parametrize("theme", ["light", "dark"])
@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("name", list(page_paths()))
def test_no_serious_accessibility_violation(browser, app_url, name, lang, theme):
    context = browser.new_context(viewport={"width": 1280, "height": 900}, color_scheme=theme)
    page = context.new_page()
    try:
        open_app(page, f"{app_url}/{page_paths()[name]}?lang={lang}")
        settle(page)
        found = violations(page)
        open_all_folds(page)
        settle(page)
        found += [f"(folds open) {v}" for v in violations(page)]
        assert not found, "\n".join(found)
    finally:
        context.close()
