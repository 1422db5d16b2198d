"""Layer 4: learner text through Streamlit's real markdown, in headless Chromium.

Every text a learner may type is escaped with ``md_escape`` and drawn by
``st.markdown`` (tests/probes/markdown_probe.py); what the browser shows must
be exactly what was typed (the invisible word joiner the escaper adds aside),
with no link, image, icon, emoji, colour, maths or formatting made from it.
The playground page is checked the same way end to end."""

from __future__ import annotations

import contextlib
import json
import re
import string
from pathlib import Path

import pytest
from helpers.apprun import ROOT, open_app, running_app, settle

from course_app.i18n import WORD_JOINER

pytestmark = pytest.mark.browser

ERROR = '[data-testid="stException"]'
COLOURED = "[data-testid='stMarkdownContainer'] span[class*='red'], .stMarkdownColoredText"
TEXT = "[data-testid='stMarkdownContainer'], [data-testid='stCaptionContainer']"
MADE_ELEMENTS = "a, img, span, svg, code, pre, em, strong, del, h1, h2, h3, li, blockquote, table, hr, .katex"
TYPED = [
    "http://example.com/path を見てください",
    "https://例え.jp/パス です",
    "見て www.example.com と EXAMPLE.COM",
    "WWW.EXAMPLE.ORG/x",
    "mail me: a@b.co or first.last+tag@example.co.jp",
    "mailto:a@b.co",
    ":material/science: :material/check_box:",
    ":red[赤い] :blue-background[x] :rainbow[y]",
    ":cat: :smile: :streamlit:",
    "&amp; &#x3C; &lt; &copy; &#169;",
    "a\\b \\* \\\\ \\",
    "$x^2$ and $$\\frac{1}{2}$$",
    "<b>bold</b> <script>alert(1)</script> <!-- note -->",
    "**bold** _it_ ~~gone~~ `code` [link](http://x.y) ![img](x.png)",
    "# heading",
    "1. list",
    "- item",
    "> quote",
    "---",
    "a | b | c",
    "ねこ は 🐟 が すき 👨‍👩‍👧‍👦",
    string.punctuation,
    *string.punctuation,
]


@contextlib.contextmanager
def probe_app(texts: list[str], tmp_path: Path):
    """The probe app on a free port, showing ``texts``; yields its URL."""
    cases = tmp_path / "texts.json"
    cases.write_text(json.dumps(texts, ensure_ascii=False), encoding="utf-8")
    env = {"PROBE_TEXTS": str(cases), "PYTHONPATH": str(ROOT)}
    with running_app(script=ROOT / "tests" / "probes" / "markdown_probe.py", env=env) as url:
        yield url


def seen(locator) -> str:
    """What the learner sees: the element's text without the invisible joiner."""
    return locator.inner_text().replace(WORD_JOINER, "")


def test_escaped_text_shows_exactly_as_typed(page, tmp_path):
    with probe_app(TYPED, tmp_path) as url:
        page.goto(url)
        page.wait_for_selector(f".st-key-caption_{len(TYPED) - 1}", timeout=60_000)
        settle(page, timeout_ms=60_000)
        assert page.locator(ERROR).count() == 0
        wrong = []
        for i, text in enumerate(TYPED):
            for box, expected in ((f"case_{i}", text), (f"caption_{i}", f"« {text} »")):
                shown = page.locator(f".st-key-{box}").locator(TEXT).first
                made = shown.locator(MADE_ELEMENTS).count()
                if seen(shown) != expected or made:
                    wrong.append((text, seen(shown), made))
        assert not wrong


def test_playground_shows_a_typed_address_as_text(page, app_url):
    from playwright.sync_api import expect

    open_app(page, f"{app_url}/playground?lang=ja")
    box = page.get_by_label("文（スペースで区切る）")
    typed = "www.example.com を見て :cat: &amp; :red[x] a@b.co"
    box.fill(typed)
    box.press("Enter")
    last = typed.split()[-1]
    summary = page.get_by_text("いちばん注目しているのは")
    shown_as = "「" + "\u2060?".join(map(re.escape, last)) + "」"  # the escaper's invisible joiners aside
    expect(summary).to_contain_text(re.compile(shown_as), timeout=30_000)  # the rerun with the typed sentence
    settle(page)
    assert page.locator(ERROR).count() == 0
    assert f"「{last}」" in seen(summary)
    main = page.locator('[data-testid="stMain"]')
    assert main.locator("a", has_text="example").count() == 0
    assert main.locator("a", has_text="b.co").count() == 0
    assert main.locator(COLOURED).count() == 0
