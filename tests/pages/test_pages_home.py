"""Layer 3: the home page and the shared page furniture (menu, language, progress)."""

from helpers.apptest import all_text, assert_clean, open_page

from course_app.course import BY_ID, LESSONS, url_path


def test_home_renders_in_both_languages(lang):
    at = open_page(None, lang)
    assert_clean(at)
    links = {link.proto.page for link in at.get("page_link")}
    # Streamlit names a page's URL after its file, without the number prefix
    assert {url_path(lesson.page) for lesson in LESSONS} <= links


def test_language_follows_the_url():
    ja, en = open_page(None, "ja"), open_page(None, "en")
    assert ja.title[0].value != en.title[0].value
    assert any("\u3042" <= c <= "\u30ff" for c in ja.title[0].value)
    assert all(c.isascii() or c in "—–’“”" for c in en.title[0].value)


def test_unknown_language_falls_back_to_japanese():
    assert open_page(None, "xx").title[0].value == open_page(None, "ja").title[0].value


def test_progress_in_the_url_is_shown_on_the_course_map():
    at = open_page(None, "en", {"p": f"{BY_ID['attention'].code}.111.000"})
    assert "3 / 6" in all_text(at) or any("3 / 6" in p.proto.text for p in at.get("progress"))


def test_tampered_progress_warns_but_renders():
    at = open_page(None, "en", {"p": "<script>alert(1)</script>"})
    assert_clean(at)
    assert at.toast, "a tampered progress value should be reported to the learner"


def test_links_carry_language_and_progress():
    at = open_page("pages/2_attention.py", "en")
    query = [link.proto.query_string for link in at.get("page_link")]
    assert query and all("lang=en" in q for q in query)
    assert all("p=at." in q for q in query)
