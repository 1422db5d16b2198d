"""Which language a page speaks (course_app.i18n.resolve_lang): ?lang= in the
URL, else the language this browser keeps (the learner's last choice), else
English for a browser set to English, else Japanese."""

import pytest
from helpers.apptest import open_page

from course_app.i18n import resolve_lang


@pytest.mark.parametrize(
    ("url", "stored", "locale", "expected"),
    [
        ("ja", "en", "en-US", "ja"),  # the URL first
        ("en", "ja", "ja-JP", "en"),
        (None, "en", "ja-JP", "en"),  # then the browser's kept choice
        (None, "ja", "en-US", "ja"),
        (None, None, "en-US", "en"),  # then the browser's own language
        (None, None, "en", "en"),
        (None, None, "EN-gb", "en"),
        (None, None, "ja-JP", "ja"),
        (None, None, "fr-FR", "ja"),  # neither: Japanese
        (None, None, None, "ja"),
        (None, None, "", "ja"),
    ],
)
def test_the_order_url_browser_locale_japanese(url, stored, locale, expected):
    assert resolve_lang(url, stored, locale) == expected


@pytest.mark.parametrize("bad", ["xx", "", "EN", "<script>", ["en"], 3])
def test_an_unknown_value_counts_as_absent(bad):
    assert resolve_lang(bad, "en", "ja-JP") == "en"
    assert resolve_lang(None, bad, "en-US") == "en"
    assert resolve_lang(bad, bad, None) == "ja"


def test_choosing_a_language_keeps_it_for_the_browser():
    from course_app.session import CHOSEN_LANG, STORED_LANG

    at = open_page("pages/2_attention.py", "ja")
    at.sidebar.segmented_control(key="lang_choice").set_value("en").run()
    assert at.query_params["lang"] == "en"
    assert at.session_state[CHOSEN_LANG] == at.session_state[STORED_LANG] == "en"


def test_the_kept_language_speaks_when_the_url_has_none():
    from course_app.i18n import catalog
    from course_app.session import STORED_LANG

    at = open_page("pages/2_attention.py", "ja")
    at.session_state[STORED_LANG] = "en"  # what the browser reported
    del at.query_params["lang"]
    at.run()
    assert at.title[0].value == catalog("en")["attention.title"]


TITLES = {None: "home", "pages/2_attention.py": "attention", "pages/10_glossary.py": "glossary"}


@pytest.mark.parametrize("page", TITLES)
def test_the_switch_at_the_top_of_the_page_changes_the_language_and_stays_out_of_the_url(page):
    from course_app.i18n import catalog
    from course_app.url_state import GUARDED

    at = open_page(page, "ja")
    top = at.main.segmented_control(key="lang_choice_top")
    assert top.value == "ja"
    top.set_value("en").run()
    assert not at.exception, [e.value for e in at.exception]
    assert at.title[0].value == catalog("en")[f"{TITLES[page]}.title"]
    assert set(at.query_params) <= {"lang", "p"} and at.query_params["lang"] == "en"
    assert at.sidebar.segmented_control(key="lang_choice").value == "en"  # the two switches agree
    assert "lang_choice_top" not in GUARDED
