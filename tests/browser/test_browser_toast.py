"""Layer 4: a toast (a task done, a link's value refused) never covers the
lesson. On a laptop (1280 × 800) it stands over the sidebar's foot, left of
the lesson's column, whose top right holds the help beside a figure; on a
phone (390 × 844) it stands in the screen's lower half, within its width,
clear of the title and the controls at the top."""

from __future__ import annotations

import pytest
from helpers.apprun import open_app

pytestmark = pytest.mark.browser

# The toast's box and the left edge of the lesson's content (the main block's
# padding excluded).
BOXES = r"""() => {
  const toast = document.querySelector('[data-testid="stToast"]').getBoundingClientRect();
  const block = document.querySelector('[data-testid="stMainBlockContainer"]');
  const content = block.getBoundingClientRect().left + parseFloat(getComputedStyle(block).paddingLeft);
  return {left: toast.left, right: toast.right, top: toast.top, bottom: toast.bottom, content};
}"""


@pytest.mark.parametrize("size", ["laptop", "phone"])
def test_a_toast_stays_clear_of_the_lesson(browser, app_url, size):
    width, height = {"laptop": (1280, 800), "phone": (390, 844)}[size]
    context = browser.new_context(viewport={"width": width, "height": height})
    page = context.new_page()
    try:
        open_app(page, f"{app_url}/attention?lang=xx")  # an unknown language: a toast says so
        toast = page.locator('[data-testid="stToast"]').first
        toast.wait_for(timeout=20_000)
        page.wait_for_function(  # its slide-in has ended: the box stays put between two frames
            """() => new Promise(done => {
                const box = () => JSON.stringify(document.querySelector('[data-testid="stToast"]')
                  .getBoundingClientRect());
                const first = box();
                requestAnimationFrame(() => requestAnimationFrame(() => done(box() === first)));
            })""",
            polling=100,
            timeout=10_000,
        )
        box = page.evaluate(BOXES)
    finally:
        context.close()
    assert box["left"] >= 0 and box["right"] <= width and box["bottom"] <= height, box
    if size == "laptop":
        assert box["right"] <= box["content"], box  # left of the lesson's column
    else:
        assert box["top"] >= height / 2, box  # the lower half: the title and top controls stay clear
