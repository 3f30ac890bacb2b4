"""The site header is phone first (issue 27): one line of at most 56 px below 600 px, its
menu folded behind a "Menu" button; on wider screens the whole menu is in view."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from playwright.sync_api import Page, expect

from tests.browser import DESKTOP, SCREENSHOTS, open_menu

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_phone_header_is_one_short_line_and_its_menu_unfolds(
    open_page: Callable[..., Page],
) -> None:
    page = open_page("/leagues/")
    header = page.locator("header.site-header")
    leagues = header.get_by_role("link", name="Leagues")

    assert header.bounding_box()["height"] <= 56  # type: ignore[index]
    expect(leagues).to_be_hidden()
    open_menu(page)
    expect(page.get_by_role("button", name="Menu")).to_have_attribute("aria-expanded", "true")
    expect(leagues).to_be_visible()
    expect(header.get_by_role("link", name="Sign in")).to_be_visible()
    assert page.evaluate("document.documentElement.scrollWidth") <= 360
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / "header-360-open.png"))
    page.get_by_role("button", name="Menu").click()
    expect(leagues).to_be_hidden()


def test_a_wide_screen_shows_the_whole_menu_without_a_button(
    open_page: Callable[..., Page],
) -> None:
    page = open_page("/leagues/", size=DESKTOP)

    expect(page.get_by_role("button", name="Menu")).to_be_hidden()
    expect(page.locator("header.site-header").get_by_role("link", name="Leagues")).to_be_visible()
