"""Layer 2: the two locale catalogs agree, and every key the code names exists."""

import re
import string
from pathlib import Path

import pytest
from helpers.apptest import APP_SOURCES

from course_app.course import LESSONS, PAGES
from course_app.i18n import LANGS, catalog

ROOT = Path(__file__).resolve().parents[2]
LITERAL_KEY = re.compile(r"""\bt(?:_list)?\(\s*["']([a-z_][\w.]*)["']""")


def placeholders(text: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(text) if name}


# every other language is checked against the Japanese catalog
OTHERS = [lang for lang in LANGS if lang != "ja"]


@pytest.mark.parametrize("lang", OTHERS)
def test_both_catalogs_have_the_same_keys(lang):
    ja, en = catalog("ja"), catalog(lang)
    assert set(ja) - set(en) == set(), f"keys only in ja, not in {lang}"
    assert set(en) - set(ja) == set(), f"keys only in {lang}"


def shape_problem(ja: str | list[str], other: str | list[str]) -> str | None:
    """What differs between one key's two texts: their type, the length of a
    list (quiz options, feedback must line up), or any item's placeholders."""
    if type(ja) is not type(other):
        return f"a {type(ja).__name__} in ja, a {type(other).__name__} here"
    if isinstance(ja, list) and len(ja) != len(other):
        return f"{len(ja)} items in ja, {len(other)} here"
    pairs = zip(ja, other, strict=True) if isinstance(ja, list) else [(ja, other)]
    for i, (a, b) in enumerate(pairs):
        if placeholders(a) != placeholders(b):
            return f"item {i}: placeholders {sorted(placeholders(a))} in ja, {sorted(placeholders(b))} here"
    return None


@pytest.mark.parametrize("lang", OTHERS)
def test_same_placeholders_and_shape(lang):
    """Every key at once (one test per key cost a second of test overhead for
    nothing); the message names each key that differs and how."""
    ja, other = catalog("ja"), catalog(lang)
    keys = sorted(set(ja) & set(other))
    assert len(keys) > 800, "the catalogs lost most of their keys?"
    problems = {key: shape_problem(ja[key], other[key]) for key in keys}
    problems = {key: problem for key, problem in problems.items() if problem}
    assert not problems, "\n".join(f"{key}: {problem}" for key, problem in problems.items())


@pytest.mark.parametrize(
    ("ja", "other", "says"),
    [
        ("{n} 個", "{n} items", None),
        (["{a}", "b"], ["{a}", "b"], None),
        ("{n} 個", ["{n} items"], "a str in ja, a list here"),
        (["a", "b"], ["a"], "2 items in ja, 1 here"),
        (["a", "{n} 個"], ["a", "{count} items"], "item 1: placeholders ['n'] in ja, ['count'] here"),
        ("{n:.2f} と {m}", "{m} and {n:.1f}", None),
    ],
)
def test_the_shape_check_finds_each_difference(ja, other, says):
    assert shape_problem(ja, other) == says


def test_every_literal_key_in_the_code_exists():
    found = {path: set(LITERAL_KEY.findall(path.read_text(encoding="utf-8"))) for path in APP_SOURCES}
    used = set().union(*found.values())
    in_lessons = set().union(*(keys for path, keys in found.items() if "lessons" in path.parts))
    assert len(in_lessons) > 100, "the scan misses the lessons' own files"
    for lang in LANGS:
        assert used - set(catalog(lang)) == set(), lang


@pytest.mark.parametrize("lang", LANGS)
def test_every_lesson_has_its_texts(lang):
    cat = catalog(lang)
    for lesson in LESSONS:
        for key in ("title", "menu"):
            assert f"{lesson.id}.{key}" in cat
        for task in lesson.tasks:
            assert f"{lesson.id}.task.{task}" in cat
        for quiz in lesson.quizzes:
            base = f"{lesson.id}.quiz.{quiz.id}"
            options, feedback = cat[f"{base}.options"], cat[f"{base}.feedback"]
            assert len(options) == len(feedback) >= 2
            assert 0 <= quiz.answer < len(options)
            assert cat[f"{base}.question"]


def test_japanese_catalog_is_japanese_and_english_is_not():
    kana = re.compile(r"[\u3040-\u30ff]")
    ja, en = catalog("ja"), catalog("en")
    prose = [k for k in ja if isinstance(ja[k], str) and len(ja[k]) > 40 and not k.startswith("gloss.")]
    assert prose
    for key in prose:
        assert kana.search(ja[key]), key
        # English text may quote Japanese tokens, but must be mostly Latin script
        latin = sum(c.isascii() for c in en[key]) / len(en[key])
        assert latin > 0.7, key


def test_every_registered_page_exists_and_is_an_entry_point_to_its_lesson():
    """The menu is built from the registry alone, so each page it names must exist and
    open the package of the same id (lessons/<id>/page.py)."""
    for name, page in PAGES.items():
        source = (ROOT / page).read_text(encoding="utf-8")
        assert f"from lessons.{name}.page import main" in source, page
        assert (ROOT / "lessons" / name / "page.py").is_file(), name


# Words that hold on a laptop only: a phone closes the sidebar (the course menu
# and the language switch are elsewhere), has no mouse to click or hover, no
# files to drag, and stacks side-by-side columns one above the other.
DEVICE_BOUND = {
    "ja": [
        "左のメニュー",
        "サイドバー",
        "ドラッグ",
        "クリック",
        "マウス",
        "カーソル",
        "左で",
        "左右で",
        "左のプレフィックス",
    ],
    "en": [
        "menu on the left",
        "settings on the left",
        "sidebar",
        "drag the json",
        "drag the file",
        "here, or choose",
        "drag and drop",
        "click",
        "hover",
        "mouse",
        "left: sentence",
        "right: sentence",
        "on each side",
    ],
}


def texts_of(value) -> list[str]:
    if isinstance(value, dict):
        return [text for item in value.values() for text in texts_of(item)]
    if isinstance(value, list):
        return [text for item in value for text in texts_of(item)]
    return [str(value)]


@pytest.mark.parametrize("lang", sorted(DEVICE_BOUND))
def test_no_sentence_holds_on_one_kind_of_device_only(lang):
    found = [
        (key, phrase)
        for key, value in catalog(lang).items()
        for text in texts_of(value)
        for phrase in DEVICE_BOUND[lang]
        if phrase in text.lower()
    ]
    assert found == []
