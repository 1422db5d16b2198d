"""Save a screenshot of every page in both languages, at a laptop and a phone
size, in the light and the dark theme (a device set to each):
<page>-<lang>-<size>[-dark].png.

    python tests/tools/screenshots.py [OUT_DIR] [--light-only]   (default: screenshots/)

Look at every PNG: Japanese renders, nothing overflows, charts are readable.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parent), str(HERE.parent.parent)]

from helpers.apprun import (
    CHROMIUM,
    CHROMIUM_ARGS,
    ROOT,
    open_all_folds,
    open_app,
    page_paths,
    running_app,
    settle,
)
from playwright.sync_api import sync_playwright

from course_app.i18n import LANGS

SIZES = {"laptop": (1280, 800), "phone": (390, 844)}
THEMES = {"light": "", "dark": "-dark"}  # colour scheme -> file name suffix


def every_page_unfolded(page, url: str, lang: str) -> Iterator[str]:
    """Open every page of the app at ``url`` in ``lang``, one after the other,
    each with all its folds open; yield each page's name once it is at rest
    (the browser tests that measure what every fold draws)."""
    for name, path in page_paths().items():
        open_app(page, f"{url}/{path}?lang={lang}", timeout_ms=180_000)  # a busy machine's first run is slow
        open_all_folds(page)
        settle(page)
        yield name


def main(out: Path, themes: dict[str, str] = THEMES) -> None:
    out.mkdir(parents=True, exist_ok=True)
    pages = page_paths()
    with running_app() as url, sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        for theme, suffix in themes.items():
            for size, (width, height) in SIZES.items():
                for lang in LANGS:
                    viewport = {"width": width, "height": height}
                    context = browser.new_context(viewport=viewport, color_scheme=theme)
                    page = context.new_page()
                    for name, path in pages.items():
                        open_app(page, f"{url}/{path}?lang={lang}")
                        settle(page)
                        full = page.locator('[data-testid="stMain"]').evaluate("e => e.scrollHeight")
                        page.set_viewport_size({"width": width, "height": max(height, full + 40)})
                        settle(page)
                        shot = out / f"{name}-{lang}-{size}{suffix}.png"
                        page.screenshot(path=shot)
                        page.set_viewport_size({"width": width, "height": height})
                        print(shot)
                    context.close()
        browser.close()


if __name__ == "__main__":
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    themes = {"light": ""} if "--light-only" in sys.argv else THEMES
    main(Path(args[0]) if args else ROOT / "screenshots", themes)
