"""The projector at 1920 x 1080 (issue 27): tonight's tables with their progress and a QR
code each to its sheet, tonight's standings and the season's top ten side by side, and no
text under 24 px."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from playwright.sync_api import Page, expect

from tests.browser import SCREENSHOTS
from tests.tournaments.test_desk_browser import WIDE, night
from tournaments.models import GameNight

pytestmark = pytest.mark.django_db(transaction=True)
__all__ = ["night"]  # the fixture, shared with the desk's browser test

SMALLEST = """() => Math.min(...[...document.querySelectorAll('main *')]
  .filter(e => e.offsetParent !== null && [...e.childNodes].some(
      n => n.nodeType === 3 && n.textContent.trim()))
  .map(e => parseFloat(getComputedStyle(e).fontSize)))"""


def test_the_projector_is_worth_watching_at_1080p(
    open_page: Callable[..., Page], night: GameNight
) -> None:
    page = open_page(f"/nights/{night.pk}/projector/", size=WIDE)

    expect(page.locator(".table-card")).to_have_count(2)
    expect(page.locator(".table-card .qr svg")).to_have_count(2)
    expect(page.get_by_role("heading", name="Autumn: the top ten")).to_be_visible()
    expect(page.get_by_role("heading", name="Tonight's standings")).to_be_visible()
    assert page.evaluate(SMALLEST) >= 24
    assert page.evaluate("document.documentElement.scrollWidth") <= 1920
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / "projector-1920.png"))
