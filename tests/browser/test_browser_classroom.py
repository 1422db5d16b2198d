"""Layer 4: a class in headless Chromium. A teacher creates a class, two
learners join from its link in two browsers, each does a task and answers a
quiz question, and the teacher's page shows both within one refresh. The app
runs with its own empty data folder (SQLite)."""

from __future__ import annotations

import re
from urllib.parse import parse_qs, urlsplit

import pytest
from helpers.apprun import open_app, running_app, settle, step_slider

from course_app.classroom import teacher
from course_app.i18n import catalog

pytestmark = pytest.mark.browser

PORT = 8671  # this test's own app (a fresh database)
GRID = '[data-testid="stDataFrame"]'


@pytest.fixture
def class_app(tmp_path, monkeypatch):
    monkeypatch.setenv("CLASSROOM_DATA", str(tmp_path))
    with running_app(PORT) as url:
        yield url


def create_class(page, url: str) -> str:
    """The teacher creates "2-B" and reads its join link."""
    from playwright.sync_api import expect

    open_app(page, f"{url}/teacher?lang=en", timeout_ms=180_000)
    page.get_by_role("tab", name="Create a class").click()
    form = page.locator('[data-testid="stForm"]').filter(has=page.get_by_label("Class name"))
    form.get_by_label("Class name").fill("2-B")
    form.get_by_label("Passcode", exact=True).fill("open sesame")
    form.get_by_label("Passcode (again, to check)").fill("open sesame")
    form.get_by_role("button", name="Create the class").click()
    link = page.locator('[data-testid="stCode"] code').first
    expect(link).to_contain_text("/?join=", timeout=90_000)
    return link.inner_text().strip()


def join_and_work(page, link: str, nickname: str, right: bool) -> None:
    """Join from the link, tick the attention lesson's temperature task, and
    answer its first quiz question (right or wrong)."""
    from playwright.sync_api import expect

    open_app(page, f"{link}&lang=en", timeout_ms=180_000)
    page.get_by_label("Nickname").fill(nickname)
    page.get_by_role("button", name="Join", exact=True).click()
    expect(page.get_by_text(f"as “{nickname}”")).to_be_visible(timeout=60_000)
    settle(page)
    seat = parse_qs(urlsplit(page.url).query)["seat"][0]
    open_app(page, f"{link.split('/?')[0]}/attention?lang=en&seat={seat}", timeout_ms=180_000)
    step_slider(page.get_by_role("slider").nth(0), "ArrowRight", 5)  # temperature 1.5: the fish task
    task = page.locator('[data-testid="stMarkdown"] p', has_text="raise the temperature")
    expect(task.get_by_role("img", name="check_box icon", exact=True)).to_be_visible(timeout=60_000)
    settle(page)
    options = catalog("en")["attention.quiz.q1.options"]  # the right answer is the second
    page.get_by_text(options[1 if right else 0], exact=True).click()
    verdict = catalog("en")["attention.quiz.q1.feedback"][1][:6] if right else catalog("en")["ui.wrong"]
    verdict_box = page.locator('[data-testid="stAlertContainer"]', has_text=verdict).first
    expect(verdict_box).to_be_visible(timeout=60_000)


def test_two_learners_join_and_the_teacher_sees_both(browser, class_app):
    from playwright.sync_api import expect

    contexts = [browser.new_context(viewport={"width": 1280, "height": 900}) for _ in range(3)]
    try:
        teacher_page, ann, bob = (context.new_page() for context in contexts)
        link = create_class(teacher_page, class_app)
        assert re.search(r"/\?join=[A-Za-z0-9_-]{16}$", link), link
        join_and_work(ann, link, "ann <b>", right=True)
        join_and_work(bob, link, "bob", right=False)
        grid = teacher_page.locator(GRID).first  # within one refresh, with time to draw it
        expect(grid).to_contain_text("ann <b>", timeout=(teacher.REFRESH_SECONDS + 40) * 1000)
        expect(grid).to_contain_text("bob")
        quiz = teacher_page.locator(GRID).nth(1)
        # the hardest question first: attention q1, one of two right on the first try.
        # bob's answer is written after his join, so a refresh may show him in
        # the grid before it counts his answer: wait for the next refresh too.
        expect(quiz).to_contain_text(
            re.compile(r"2\. Attention\s*50%\s*1\s*2\s*After softmax"),
            timeout=(teacher.REFRESH_SECONDS + 40) * 1000,
        )
        assert teacher_page.locator('[data-testid="stException"]').count() == 0
    finally:
        for context in contexts:
            context.close()
