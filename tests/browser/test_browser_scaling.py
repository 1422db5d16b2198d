"""Layer 4 for lesson 3 (scaling): the real page in headless Chromium."""

from __future__ import annotations

import numpy as np
import pytest
from helpers.apprun import expect_url_has, open_app, open_fold, settle

pytestmark = pytest.mark.browser

ERROR_BOX = '[data-testid="stException"]'


def slider_labelled(page, label: str):
    """The thumb (role=slider) of the st.slider whose label contains ``label``."""
    return page.locator('[data-testid="stSlider"]').filter(has_text=label).get_by_role("slider")


def test_scaling_page_loads_in_both_languages(page, app_url):
    from playwright.sync_api import expect

    open_app(page, f"{app_url}/scaling")
    expect(page.locator("h1").first).to_contain_text("スケーリング")
    assert page.locator(ERROR_BOX).count() == 0
    open_app(page, f"{app_url}/scaling?lang=en")
    expect(page.locator("h1").first).to_contain_text("Scaling")
    assert page.locator(ERROR_BOX).count() == 0
    # the numbers are drawn: example C's entropy at temperature 1
    expect(page.get_by_text("Entropy:").first).to_contain_text("1.60 bits")


def test_temperature_slider_changes_the_entropy(page, app_url):
    from playwright.sync_api import expect

    open_app(page, f"{app_url}/scaling?lang=en")
    entropy = page.get_by_text("Entropy:").first
    expect(entropy).to_contain_text("1.60 bits")
    slider = slider_labelled(page, "Temperature T")
    slider.scroll_into_view_if_needed()
    slider.focus()
    for _ in range(5):
        slider.press("ArrowRight")  # 1.0 -> 1.5: the weights flatten
    expect(entropy).not_to_contain_text("1.60 bits", timeout=20_000)
    settle(page)
    assert page.locator(ERROR_BOX).count() == 0
    expect_url_has(page, "sc_temp=1.5")


def top_weight(spread: float, seed: int = 0) -> str:
    """The largest softmax weight of 12 standardised random scores times ``spread``, as shown."""
    x = np.random.default_rng(seed).standard_normal(12)
    e = np.exp(spread * (x - x.mean()) / x.std())
    return f"{100 * e.max() / e.sum():.1f}%"


def test_spread_slider_changes_the_top_weight(page, app_url):
    from playwright.sync_api import expect

    open_app(page, f"{app_url}/scaling?lang=en")
    open_fold(page, "en", "scaling.onehot.header")  # sections 2 and 3 are a fold
    result = page.get_by_text("the largest weight is").first
    expect(result).to_contain_text(top_weight(8.0))
    slider = slider_labelled(page, "Spread of the scores")
    slider.scroll_into_view_if_needed()
    slider.focus()
    for _ in range(4):
        slider.press("ArrowLeft")  # 8.0 -> 7.0
    expect(result).to_contain_text("σ = 7.00", timeout=20_000)
    expect(result).to_contain_text(top_weight(7.0))
    settle(page)
    assert page.locator(ERROR_BOX).count() == 0
    expect_url_has(page, "sc_spread=7")
