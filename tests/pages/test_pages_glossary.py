"""Layer 3: the glossary page's search and its folded explanations, in both
languages: what a learner types keeps the entries that contain it, the long
explanations open one by one, a link into one entry opens that one, and
hostile or odd input is only text."""

from __future__ import annotations

import pytest
from helpers.apptest import all_text, assert_clean, open_folds, open_page

from course_app import TERMS, anchor
from course_app.glossary import TERM_PARAM
from course_app.i18n import catalog
from course_app.session import GLOSSARY_SEARCH as SEARCH_KEY
from course_app.session import fold as fold_key
from course_app.url_state import SHOWN_VALUE_CHARS
from lessons.glossary.page import SEARCH_MAX, entry_fold, folded

GLOSSARY = "pages/10_glossary.py"


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


# --- a link into one entry (a lesson's look-up: ?term=<id>#<anchor>) ------------------


def test_a_link_into_an_entry_opens_its_explanation_and_no_other(lang):
    for term in ("dot_product", TERMS[-1]):
        at = open_page(GLOSSARY, lang, {TERM_PARAM: term})
        assert_clean(at)
        words = catalog(lang)
        page = all_text(at)
        assert [t for t in TERMS if words[f"glossary.{t}.long"] in page] == [term]
        assert shown_terms(at) == [anchor(t) for t in TERMS]  # the whole glossary, not only that entry


def test_a_followed_link_opens_its_entry_once_then_the_learner_decides():
    at = open_page(GLOSSARY, "en", {TERM_PARAM: "softmax"})
    long = catalog("en")["glossary.softmax.long"]
    assert long in all_text(at)
    at.session_state[fold_key(entry_fold("softmax"))] = False  # the learner closes it
    at.run()
    at.run()  # and it stays closed, though the URL still names the term
    assert long not in all_text(at)


def test_a_link_into_an_entry_empties_a_search_that_hides_it():
    at = search(open_page(GLOSSARY, "en"), "softmax")
    assert anchor("token") not in shown_terms(at)
    at.query_params[TERM_PARAM] = "token"
    at.run()
    assert anchor("token") in shown_terms(at)
    assert catalog("en")["glossary.token.long"] in all_text(at)
    assert at.text_input(key=SEARCH_KEY).value == ""


@pytest.mark.parametrize("value", ["no_such_term", "<script>x</script>", "TOKEN", "token ", "x" * 500, ""])
def test_a_link_to_no_entry_is_told_and_opens_nothing(lang, value):
    at = open_page(GLOSSARY, lang, {TERM_PARAM: value})
    assert_clean(at)
    assert not any(catalog(lang)[f"glossary.{term}.long"] in all_text(at) for term in TERMS)
    told = catalog(lang)["glossary.no_such_term"]
    toasts = [toast.value for toast in at.toast]
    assert len(toasts) == 1 and toasts[0].startswith(told.split("{")[0])
    assert len(toasts[0]) < len(told) + 2 * SHOWN_VALUE_CHARS  # a long value is cut, not repeated whole
    assert TERM_PARAM not in at.query_params
