"""Layer 4: the bigram lesson in headless Chromium (see tests/browser/test_browser.py)."""

from __future__ import annotations

import pytest
from helpers.apprun import expect_url_has, open_app, settle

pytestmark = pytest.mark.browser

ERROR = '[data-testid="stException"]'


def test_slider_reads_further_and_the_distance_changes(page, app_url):
    from playwright.sync_api import expect

    open_app(page, f"{app_url}/bigram?lang=en")
    assert page.locator(ERROR).count() == 0
    distance = page.get_by_text("distance between the two").first
    expect(distance).to_contain_text("63.6%")  # ねこ は: 7/11
    slider = page.get_by_role("slider").nth(0)
    slider.focus()
    slider.press("ArrowRight")  # ねこ は ひるね: the corpus says が, the bigram が or を half each
    expect(distance).to_contain_text("50.0%", timeout=20_000)
    settle(page)
    expect_url_has(page, "bg_read=3")
    slider.press("ArrowLeft")
    slider.press("ArrowLeft")  # one token read: the bigram is the corpus
    expect(distance).to_contain_text("0.0%", timeout=20_000)
    assert page.locator(ERROR).count() == 0


def test_added_sentence_is_plain_text_and_survives_a_trip(page, app_url):
    from playwright.sync_api import expect

    open_app(page, f"{app_url}/bigram?lang=ja")
    box = page.get_by_label("文を追加する")
    box.fill("<b>ねこ</b> は **ミルク** が すき")
    box.press("Enter")
    expect(page.get_by_text("コーパスに追加しました")).to_be_visible(timeout=20_000)
    settle(page)
    assert page.locator(ERROR).count() == 0
    # typed HTML never becomes an element: nothing bold with the learner's text in it
    assert page.locator("b", has_text="ねこ").count() == 0
    assert page.locator("strong", has_text="ミルク").count() == 0
    # to another lesson and back through the menu: the sentence is still counted
    page.locator('[data-testid="stSidebar"]').get_by_text("2. アテンション").click()
    expect(page.locator("h1").first).to_contain_text("アテンション", timeout=30_000)
    page.locator('[data-testid="stSidebar"]').get_by_text("1. バイグラムの限界").click()
    expect(page.get_by_text("いま 1 文")).to_be_visible(timeout=30_000)
    assert page.locator(ERROR).count() == 0


def test_bad_input_gets_a_message_not_an_error(page, app_url):
    from playwright.sync_api import expect

    open_app(page, f"{app_url}/bigram?lang=en")
    box = page.get_by_label("Add a sentence")
    box.fill("ねこ")
    box.press("Enter")
    expect(page.get_by_text("That is a single token")).to_be_visible(timeout=20_000)
    expect(box).to_have_value("ねこ")  # kept for fixing
    box.fill(" ".join(["ねこ"] * 500))
    box.press("Enter")
    expect(page.get_by_text("That is too long (1499 characters)")).to_be_visible(timeout=20_000)
    assert page.locator(ERROR).count() == 0
