"""The learner's experience in headless Chromium: <html lang>, progress kept in
the browser, a phone's width."""

from __future__ import annotations

import contextlib
import re

import pytest
from helpers.apprun import open_app, settle, step_slider

from course_app.i18n import LANGS

pytestmark = pytest.mark.browser

LANG = "() => document.documentElement.lang"


def test_html_lang_follows_the_chosen_language(page, app_url):
    from playwright.sync_api import expect

    open_app(page, f"{app_url}/attention")
    page.wait_for_function("() => document.documentElement.lang === 'ja'", timeout=20_000)
    open_app(page, f"{app_url}/attention?lang=en")
    page.wait_for_function("() => document.documentElement.lang === 'en'", timeout=20_000)
    page.locator('[data-testid="stSidebar"]').get_by_text("日本語", exact=True).click()
    expect(page.locator("h1").first).to_contain_text("アテンション", timeout=30_000)
    page.wait_for_function("() => document.documentElement.lang === 'ja'", timeout=20_000)
    assert page.evaluate(LANG) == "ja"


def test_progress_comes_back_from_the_plain_address(page, app_url):
    from playwright.sync_api import expect

    open_app(page, f"{app_url}/attention?lang=en")
    step_slider(
        page.get_by_role("slider").nth(0), "ArrowRight", 6
    )  # T 1.0 -> 1.6: 魚 below 50 % ticks a task
    sidebar = page.locator('[data-testid="stSidebar"]')
    expect(sidebar.get_by_text(re.compile(r"^2\. .* · 1/"))).to_be_visible(timeout=20_000)
    settle(page)
    other = page.context.new_page()  # the same browser, the app's plain address
    open_app(other, app_url)
    expect(other.locator('[data-testid="stSidebar"]').get_by_text(re.compile(r"^2\. .* · 1/"))).to_be_visible(
        timeout=30_000
    )
    expect(other).to_have_url(re.compile(r"p=at\.001"), timeout=20_000)
    other.close()


def test_a_fresh_browser_starts_with_no_progress(browser, app_url):
    context = browser.new_context()
    try:
        page = open_app(context.new_page(), f"{app_url}/?lang=en")
        settle(page)
        assert page.locator('[data-testid="stSidebar"]').get_by_text(re.compile(r" · [1-9]\d*/")).count() == 0
    finally:
        context.close()


def test_choosing_a_lesson_on_a_phone_closes_the_menu(phone, app_url):
    from playwright.sync_api import expect

    open_app(phone, f"{app_url}/?lang=en")
    sidebar = phone.locator('[data-testid="stSidebar"]')
    phone.locator('[data-testid="stExpandSidebarButton"]').click()
    expect(sidebar).to_have_attribute("data-collapsed", "false")
    sidebar.get_by_text("2. Attention").click()
    expect(phone.locator("h1").first).to_contain_text("Query, Key, Value", timeout=30_000)
    expect(sidebar).to_have_attribute("data-collapsed", "true", timeout=10_000)


WIDTHS = """() => [document.documentElement.scrollWidth,
  document.querySelector('[data-testid="stMain"]').scrollWidth]"""


@pytest.mark.parametrize("lang", LANGS)
def test_no_page_scrolls_sideways_on_a_phone(phone, app_url, lang):
    from helpers.apprun import page_paths

    wide = {}
    for name, path in page_paths().items():
        open_app(phone, f"{app_url}/{path}?lang={lang}")
        settle(phone)
        widths = phone.evaluate(WIDTHS)
        if max(widths) > 390:
            wide[name] = widths
    assert not wide


CUT = """() => [...document.querySelectorAll('[data-testid="stMain"] [data-testid="stPageLink-NavLink"] *')]
  .filter(e => e.clientWidth > 0 && e.scrollWidth > e.clientWidth + 1).map(e => e.textContent)"""


@pytest.mark.parametrize("lang", LANGS)
def test_course_map_titles_wrap_on_a_phone(phone, app_url, lang):
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    open_app(phone, f"{app_url}/?lang={lang}")
    assert phone.locator('[data-testid="stMain"] [data-testid="stPageLink-NavLink"]').count() >= 7
    with contextlib.suppress(PlaywrightTimeout):  # the layout settles (fonts, the menu's slide)
        phone.wait_for_function(f"() => ({CUT})().length === 0", timeout=10_000)
    assert phone.evaluate(CUT) == []


def test_japanese_pages_hide_streamlits_english_hints(page, app_url):
    from playwright.sync_api import expect

    open_app(page, app_url)
    uploader = page.locator('[data-testid="stFileUploader"]')
    expect(uploader.get_by_role("button", name="ファイルを選ぶ")).to_be_visible(timeout=20_000)
    english = uploader.get_by_text("Upload", exact=True)  # drawn at size 0, our label beside it
    assert english.evaluate("e => getComputedStyle(e).fontSize") == "0px"
    expect(uploader.get_by_text(re.compile("per file"))).not_to_be_visible()
    expect(page.get_by_text(re.compile(r"64 KB まで"))).to_be_visible()  # our caption, the real limit
    open_app(page, f"{app_url}/playground")
    box = page.locator('[data-testid="stTextInput"] input').first
    box.fill("ねこ が すき")
    expect(page.get_by_text("Press Enter to apply")).not_to_be_visible()
    open_app(page, f"{app_url}/playground?lang=en")
    page.locator('[data-testid="stTextInput"] input').first.fill("ねこ が すき")
    expect(page.get_by_text("Press Enter to apply", exact=True)).to_be_visible()  # English keeps it


def test_a_quiz_answer_shows_its_feedback_and_a_right_one_counts_in_the_menu(page, app_url):
    """Each question is a fragment: an answer reruns the question alone, and the
    whole page (the menu's done/total) only when it completes the question."""
    from playwright.sync_api import expect

    from course_app import course, progress
    from course_app.i18n import catalog

    en, lesson = catalog("en"), course.BY_ID["bigram"]
    question = lesson.quizzes[0]
    base = f"bigram.quiz.{question.id}"
    options = en[f"{base}.options"]
    wrong = (question.answer + 1) % len(options)
    _, total = progress.Progress(set(), set(), set()).lesson_counts(lesson)
    open_app(page, f"{app_url}/bigram?lang=en")
    menu = page.locator('[data-testid="stSidebar"]')
    entry = f"{en['bigram.menu']} · "
    expect(menu).to_contain_text(f"{entry}0/{total}")
    choices = page.get_by_role("radiogroup", name=en[f"{base}.question"])
    choices.get_by_text(options[wrong], exact=True).click()
    expect(page.get_by_text(en["ui.wrong"]).first).to_be_visible(timeout=20_000)
    settle(page)
    expect(menu).to_contain_text(f"{entry}0/{total}")
    choices.get_by_text(options[question.answer], exact=True).click()
    expect(menu).to_contain_text(f"{entry}1/{total}", timeout=20_000)
    expect(page.get_by_text(en[f"{base}.feedback"][question.answer][:20]).first).to_be_visible()


# the page's background and a caption's text colour, as the browser draws them
COLOURS = """() => {
    const caption = document.querySelector('[data-testid="stCaptionContainer"] p');
    return [getComputedStyle(document.querySelector('.stApp')).backgroundColor,
            getComputedStyle(caption).color];
}"""


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_the_page_follows_a_light_or_dark_device(browser, app_url, scheme):
    context = browser.new_context(color_scheme=scheme)
    page = context.new_page()
    try:
        open_app(page, f"{app_url}/attention?lang=en")
        background, caption = page.evaluate(COLOURS)
        channels = [int(c) for c in re.findall(r"\d+", background)[:3]]
        assert (sum(channels) > 600) is (scheme == "light"), background
        # captions are the theme's text colour, faded: light on dark, dark on light
        level = [float(c) for c in re.findall(r"[\d.]+", caption)[:3]]
        bright = sum(level) / 3 > (0.5 if "srgb" in caption else 128)
        assert bright is (scheme == "dark"), caption
    finally:
        context.close()


COPY_BUTTON_SHOWN = """() => {
  const button = document.querySelector('[data-testid="stCode"] button[kind="elementToolbar"]');
  if (!button) return null;
  const chain = [];
  for (let e = button; e && e.dataset.testid !== 'stCode'; e = e.parentElement) chain.push(e);
  const shown = (e) => getComputedStyle(e).opacity === '1' && getComputedStyle(e).visibility === 'visible';
  return chain.every(shown);
}"""


@pytest.mark.parametrize("touch", [True, False], ids=["touch", "mouse"])
def test_the_share_links_copy_button_shows_on_a_touch_screen(browser, app_url, touch):
    """A touch screen cannot hover, so the share link's copy button is always
    shown there; with a mouse it appears on hover, as Streamlit draws it."""
    context = browser.new_context(viewport={"width": 390, "height": 844}, has_touch=touch, is_mobile=touch)
    page = context.new_page()
    open_app(page, f"{app_url}/scaling?lang=en")
    share = page.locator(".st-key-share_view button").first
    share.scroll_into_view_if_needed()
    share.tap() if touch else share.click()
    page.wait_for_selector('[data-testid="stCode"]', timeout=30_000)
    page.mouse.move(0, 0)  # no pointer over the code block
    settle(page)
    page.wait_for_function(f"() => ({COPY_BUTTON_SHOWN})() === {str(touch).lower()}", timeout=5_000)
    context.close()


def test_back_leaves_a_lesson_whose_progress_changed_the_url(page, app_url):
    """The app writes the progress into the URL (?p=) as the learner visits and
    answers; each write replaces the page's history entry, so Back goes to the
    page before (Streamlit pushes a new entry for each, and Back stayed)."""
    from playwright.sync_api import expect

    from course_app import course
    from course_app.i18n import catalog

    en, lesson = catalog("en"), course.BY_ID["bigram"]
    question = lesson.quizzes[0]
    base = f"bigram.quiz.{question.id}"
    open_app(page, f"{app_url}/?lang=en")
    settle(page)
    menu = page.locator('[data-testid="stSidebar"] [data-testid="stPageLink-NavLink"]')
    menu.filter(has_text=en["bigram.menu"]).first.click()
    expect(page).to_have_url(re.compile(r"/bigram\?.*p=bg\.0+\.0+"), timeout=30_000)  # the visit
    settle(page)
    choices = page.get_by_role("radiogroup", name=en[f"{base}.question"])
    choices.get_by_text(en[f"{base}.options"][question.answer], exact=True).click()
    expect(page).to_have_url(re.compile(r"p=bg\.0+\.10*(&|$)"), timeout=30_000)  # the answer
    settle(page)
    page.go_back()
    # home again, where the app writes the progress into the URL too
    expect(page).to_have_url(re.compile(r"/\?lang=en(&p=[^&]*)?$"), timeout=30_000)
    title = page.get_by_role("heading", name=re.compile(re.escape(en["home.title"])))
    expect(title.first).to_be_visible(timeout=30_000)  # drawn again


EDITOR_OVERFLOW = """() => {
  const scroller = document.querySelector('[data-testid="stDataFrame"] .dvn-scroller');
  return scroller ? scroller.scrollWidth - scroller.clientWidth : null;
}"""


@pytest.mark.parametrize("lang", LANGS)
def test_the_playground_vector_editor_fits_a_phone(phone, app_url, lang):
    """The token and all four numbers of a row, without scrolling the table sideways."""
    open_app(phone, f"{app_url}/playground?lang={lang}")
    phone.wait_for_selector('[data-testid="stDataFrame"] .dvn-scroller', timeout=30_000)
    settle(phone)
    assert phone.evaluate(EDITOR_OVERFLOW) <= 1


SHOWN_CHOICE = """(key) => {
  const input = document.querySelector(`.st-key-${key} input`);
  return input ? input.value : null;
}"""


@pytest.mark.parametrize(
    ("query", "shown"),
    [("lang=ja", "それ"), ("lang=en", "それ (it)"), ("lang=en&mh_query=%E9%AD%9A", "魚 (fish)")],
)
def test_a_glossed_choice_shows_what_the_page_uses(browser, app_url, query, shown):
    """The multi-head query box shows the token the page computes with, from
    the first draw on, at both sizes: the default それ, or a shared link's
    choice (it showed 猫, the first option, while the page used それ)."""
    for width, height in ((1280, 800), (390, 844)):
        context = browser.new_context(viewport={"width": width, "height": height})
        page = context.new_page()
        open_app(page, f"{app_url}/multi_head?{query}")
        settle(page)
        assert page.evaluate(SHOWN_CHOICE, "mh_query") == shown, (width, query)
        context.close()
