"""The projector at 1920 x 1080 (issue 27): tonight's tables with their progress and a QR
code each to its sheet, tonight's standings and the season's top ten side by side, and no
text under 24 px."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from playwright.sync_api import Page, expect

from accounts.models import User
from games.models import Game
from tests.browser import SCREENSHOTS
from tests.tournaments.test_desk_browser import WIDE, night
from tournaments import recording, tables
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


def test_the_projector_shows_each_seats_running_tally(
    open_page: Callable[..., Page], night: GameNight
) -> None:
    first = tables.night_rounds(night)[0].tables[0]
    game = Game.objects.get(pk=first.game)
    entered_by = User.objects.get(competitor__pk=first.players[0].competitor)
    recording.round_record(game=game, by=entered_by, dollars=[100_000, 50_000])

    page = open_page(f"/nights/{night.pk}/projector/", size=WIDE)

    card = page.locator(f"#table-{game.pk}")
    expect(card.locator(".tally")).to_have_text(["$100,000", "$50,000"])
    expect(card).to_contain_text("tallies after 1 round")
    # the other table has recorded nothing: no tallies yet
    expect(
        page.locator(f"#table-{tables.night_rounds(night)[0].tables[1].game} .tally")
    ).to_have_count(0)
    assert page.evaluate(SMALLEST) >= 24
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / "projector-tallies-1920.png"))
