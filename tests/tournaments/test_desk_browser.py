"""The organiser's desk in a real browser, at 360 px and on a 1920 x 1080 screen: it
follows the tables without a reload, and a disputed round is one tap away."""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable

import pytest
from playwright.sync_api import Page, expect

from accounts.models import User
from games.engine import RuleSet
from games.models import Game
from tests.browser import SCREENSHOTS
from tests.factories import DEFAULT_PASSWORD, UserFactory
from tournaments import nights, recording, roster, services, tables
from tournaments.models import GameNight

pytestmark = pytest.mark.django_db(transaction=True)
QUICK = RuleSet.preset("2021", ending="quick")
POLL = 12_000  # ms: the desk polls every 5 s
WIDE = {"width": 1920, "height": 1080}


@pytest.fixture
def night() -> GameNight:
    """Four players with accounts at two tables of two, round 1 drawn."""
    olga = UserFactory.create(username="olga")
    league = services.league_create(by=olga, name="Tuesday Club", slug="tuesday", rules=QUICK)
    season = services.season_create(
        league=league, by=olga, name="Autumn", starts_on=dt.date(2026, 9, 1)
    )
    night = services.night_create(season=season, by=olga, on=dt.date(2026, 11, 24))
    for name in ("ada", "ben", "cleo", "dan"):
        member = roster.member_add(league=league, by=olga, user=UserFactory.create(username=name))
        nights.night_check_in(night=night, by=olga, member=member)
    nights.night_draw(night=night, by=olga, table_sizes=(2,), preferred_size=2, seed=1)
    return night


def sign_in_as_olga(page: Page) -> None:
    page.get_by_label("Username").fill("olga")
    page.get_by_label("Password").fill(DEFAULT_PASSWORD)
    page.get_by_role("button", name="Sign in").click()


@pytest.mark.parametrize("size", [None, WIDE], ids=["phone", "1920"])
def test_the_desk_follows_the_tables_live(
    open_page: Callable[..., Page], night: GameNight, size: dict[str, int] | None
) -> None:
    page = open_page(f"/nights/{night.pk}/desk/", size=size)
    sign_in_as_olga(page)
    expect(page.get_by_role("heading", name="Organiser's desk")).to_be_visible()
    expect(page.locator(".desk-counts")).to_contain_text("2 playing")

    _first, second = tables.night_rounds(night)[0].tables
    entry = recording.round_record(
        game=Game.objects.get(pk=second.game),
        by=User.objects.get(competitor__pk=second.players[0].competitor),
        dollars=[100_000, 50_000],
    )
    recording.round_vote(
        record=entry.record,
        by=User.objects.get(competitor__pk=second.players[1].competitor),
        verdict="dispute",
        reason="recount",
    )

    settle = page.get_by_role("link", name="Round 1 disputed: settle it")
    expect(settle).to_be_visible(timeout=POLL)
    expect(page.locator(".desk-counts")).to_contain_text("1 disputed")
    assert page.evaluate("document.documentElement.scrollWidth") <= page.viewport_size["width"]  # type: ignore[index]
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / f"desk-{page.viewport_size['width']}.png"))  # type: ignore[index]
    settle.click()
    expect(page).to_have_url(re.compile(rf"/sheets/{second.game}/#round-1$"))
