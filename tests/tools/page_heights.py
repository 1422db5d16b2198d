"""Print every page's height and width at a laptop and a phone size, in both
languages, as a table. Streamlit's document never scrolls itself (its
documentElement is exactly the window); the page scrolls inside the main
area, so the height is that area's scrollHeight (and the width its
scrollWidth, which is what a learner scrolls sideways). The capstone is
measured with its default model trained, as a learner sees it after
pressing Train.

    python tests/tools/page_heights.py

Use it before and after a change that moves text into or out of expanders.
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parent), str(HERE.parent.parent)]

from helpers.apprun import CHROMIUM, CHROMIUM_ARGS, open_app, page_paths, press_train, running_app, settle
from playwright.sync_api import sync_playwright
from screenshots import SIZES

from course_app.i18n import LANGS

MEASURE = """() => {
  const main = document.querySelector('[data-testid="stMain"]');
  return [main.scrollHeight, Math.max(main.scrollWidth, document.documentElement.scrollWidth)];
}"""


def train_the_default_model(page, app_url: str) -> None:
    """Press Train on the capstone with its defaults: the result is kept for
    every session of the server, so each later visit shows the trained model's
    sections, as a learner sees the page after training (and as the page is
    whenever another test trained first)."""
    press_train(open_app(page, f"{app_url}/{page_paths()['capstone']}?lang=en"))


def main() -> None:
    pages = page_paths()
    rows: dict[str, dict[str, tuple[int, int]]] = {name: {} for name in pages}
    with running_app() as url, sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        train_the_default_model(browser.new_page(), url)
        for size, (width, height) in SIZES.items():
            for lang in LANGS:
                context = browser.new_context(viewport={"width": width, "height": height})
                page = context.new_page()
                for name, path in pages.items():
                    open_app(page, f"{url}/{path}?lang={lang}")
                    settle(page)
                    rows[name][f"{size}-{lang}"] = tuple(page.evaluate(MEASURE))
                context.close()
        browser.close()
    columns = [f"{size}-{lang}" for size in SIZES for lang in LANGS]
    print("height (width) in CSS px")
    print(f"{'page':<12}" + "".join(f"{c:>18}" for c in columns))
    for name, cells in rows.items():
        print(f"{name:<12}" + "".join(f"{cells[c][0]:>11} ({cells[c][1]:>4})" for c in columns))


if __name__ == "__main__":
    main()
