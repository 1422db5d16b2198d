"""Layer 3: the glossary page's search and its folded explanations, in both
languages: what a learner types keeps the entries that contain it, the long
explanations open one by one, and hostile or odd input is only text."""

from __future__ import annotations

import pytest
from conftest import all_text, assert_clean, open_folds, open_page

from course_app import TERMS, anchor
from course_app.i18n import catalog
from lessons.glossary.page import SEARCH_KEY, SEARCH_MAX, folded

GLOSSARY = "pages/8_glossary.py"


def shown_terms(at) -> list[str]:
    """The anchors of the entries on the page, in order."""
    return [h.proto.anchor for h in at.subheader]


def search(at, text: str):
    at.text_input(key=SEARCH_KEY).input(text).run()
    return at


def test_an_empty_search_shows_every_entry_with_its_long_text_folded(lang):
    at = open_page(GLOSSARY, lang)
    assert_clean(at)
    assert shown_terms(at) == [anchor(term) for term in TERMS]
    words = catalog(lang)
    page = all_text(at)
    assert all(words[f"glossary.{term}.short"] in page for term in TERMS)
    assert not any(words[f"glossary.{term}.long"] in page for term in TERMS)  # folded
    labels = [e.label for e in at.expander]
    assert labels == [words["glossary.long_label"].format(name=words[f"glossary.{t}.name"]) for t in TERMS]


def test_an_opened_entry_shows_its_long_explanation(lang):
    at = open_folds(open_page(GLOSSARY, lang))
    assert_clean(at)
    page = all_text(at)
    assert all(catalog(lang)[f"glossary.{term}.long"] in page for term in TERMS)


@pytest.mark.parametrize(
    ("lang", "typed"),
    [
        ("en", "softmax"),
        ("en", "SoftMax"),
        ("en", "ｓｏｆｔｍａｘ"),
        ("ja", "softmax"),
        ("ja", "重み"),
        ("ja", "ＧＰＴ"),
    ],
)
def test_a_word_keeps_exactly_the_entries_that_contain_it(lang, typed):
    at = search(open_page(GLOSSARY, lang), typed)
    assert_clean(at)
    words = catalog(lang)
    needle = folded(typed)
    expected = [
        anchor(term)
        for term in TERMS
        if any(needle in folded(words[f"glossary.{term}.{part}"]) for part in ("name", "short", "long"))
    ]
    assert expected and len(expected) < len(TERMS)  # the word is in some entries, not in all
    assert shown_terms(at) == expected
    found = words["glossary.search_found"].format(n=len(expected), total=len(TERMS))
    assert found in [c.value for c in at.caption]
    # the index of links at the top lists the same entries, and only them
    index = at.markdown[1].value
    assert index.count("](#") == len(expected)


def test_every_word_typed_must_be_in_the_entry():
    one = shown_terms(search(open_page(GLOSSARY, "en"), "softmax"))
    both = shown_terms(search(open_page(GLOSSARY, "en"), "softmax weights"))
    assert both and set(both) <= set(one)


@pytest.mark.parametrize("typed", ["zzqqxx", "<script>alert(1)</script>", "[link](http://x) :red[a] &amp;"])
def test_a_word_in_no_entry_says_so_in_the_learners_language(lang, typed):
    at = search(open_page(GLOSSARY, lang), typed)
    assert_clean(at)
    assert shown_terms(at) == []
    assert [i.value for i in at.info] == [catalog(lang)["glossary.search_none"]]
    assert typed not in all_text(at)  # what was typed is never echoed as markdown


def test_spaces_only_is_an_empty_search():
    at = search(open_page(GLOSSARY, "en"), "   ")
    assert shown_terms(at) == [anchor(term) for term in TERMS]
    assert not at.info and not at.caption


def test_a_search_longer_than_the_box_allows_is_cut_not_refused():
    """A client may send more than max_chars: the search uses the first SEARCH_MAX characters."""
    at = open_page(GLOSSARY, "en")
    at.session_state[SEARCH_KEY] = "softmax" + " " * (SEARCH_MAX - 7) + "zzqqxx" * 50
    at.run()
    assert_clean(at)
    assert shown_terms(at) == shown_terms(search(open_page(GLOSSARY, "en"), "softmax"))
