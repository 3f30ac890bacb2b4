"""Substitutes and penalties on a 360 px phone, as an organiser would: a player leaves a
table, the desk seats a substitute and gives a penalty, and the standings show both with
their reasons."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable

import pytest
from playwright.sync_api import Page, expect

from games.models import Game
from tests.browser import SCREENSHOTS
from tests.factories import DEFAULT_PASSWORD, UserFactory
from tests.tournaments.test_desk_browser import QUICK, sign_in_as_olga
from tournaments import discipline, nights, recording, roster, services, tables
from tournaments.models import ChangeLog, GameNight, Substitution

pytestmark = pytest.mark.django_db(transaction=True)
PHONE = {"width": 360, "height": 740}


@pytest.fixture
def night() -> GameNight:
    """Four players with accounts at two tables of two, round 1 drawn; Eve on the roster."""
    olga = UserFactory.create(username="olga")
    league = services.league_create(by=olga, name="Tuesday Club", slug="tuesday", rules=QUICK)
    season = services.season_create(
        league=league, by=olga, name="Autumn", starts_on=dt.date(2026, 9, 1)
    )
    night = services.night_create(season=season, by=olga, on=dt.date(2026, 11, 24))
    for name in ("ada", "ben", "cleo", "dan"):
        member = roster.member_add(league=league, by=olga, user=UserFactory.create(username=name))
        nights.night_check_in(night=night, by=olga, member=member)
    roster.member_add(league=league, by=olga, name="Eve")
    nights.night_draw(night=night, by=olga, table_sizes=(2,), preferred_size=2, seed=1)
    assert DEFAULT_PASSWORD
    return night


def test_the_desk_seats_a_substitute_and_penalises_on_a_phone(
    open_page: Callable[..., Page], night: GameNight
) -> None:
    first = tables.night_rounds(night)[0].tables[0]
    leaving = first.players[1]
    page = open_page(f"/nights/{night.pk}/desk/", size=PHONE)
    sign_in_as_olga(page)

    page.get_by_text("Seat a substitute").click()
    page.get_by_label("The player who left").select_option(label=f"Table 1: {leaving.name}")
    page.get_by_label("Substitute from the roster").select_option(label="Eve")
    page.get_by_label("Why (everyone reads it)").first.fill("Train to catch")
    page.get_by_role("button", name="Seat the substitute").click()
    expect(page.locator(".messages, .notice").first).to_contain_text(
        f"Eve plays for {leaving.name} from round 1"
    )
    expect(page.locator("ul.substitutes")).to_contain_text("Train to catch")

    page.get_by_text("Give a penalty").click()
    page.get_by_label("Player", exact=True).select_option(label=leaving.name)
    page.get_by_label("How much").fill("0.5")
    page.get_by_label("Why (everyone reads it)").last.fill("Left without a word")
    page.get_by_role("button", name="Give the penalty").click()
    expect(page.locator("ul.penalties")).to_contain_text("Left without a word")
    assert page.evaluate("document.documentElement.scrollWidth") <= 360
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.locator("#discipline").scroll_into_view_if_needed()
    page.screenshot(path=str(SCREENSHOTS / "discipline-desk-360.png"), full_page=True)

    # the table finishes: the one who left is scored last, and the standings say why
    game = Game.objects.get(pk=first.game)
    substitution = Substitution.objects.get(game=game)
    entry = recording.round_record(game=game, by=substitution.actor, dollars=[50_000, 100_000])
    recording.round_vote(record=entry.record, by=substitution.actor, verdict="confirm")
    page.goto(f"/seasons/{night.season_id}/standings/")
    # the seat won, but the one who left is last: no points, less the penalty
    last = page.locator("table.standings tbody tr").last
    expect(last).to_contain_text(leaving.name)
    expect(last).to_contain_text("-0.50")
    expect(page.locator(".discipline-list")).to_contain_text("Left without a word")
    expect(page.locator(".discipline-list")).to_contain_text(f"Eve for {leaving.name}")
    assert page.evaluate("document.documentElement.scrollWidth") <= 360
    page.screenshot(path=str(SCREENSHOTS / "discipline-standings-360.png"), full_page=True)


def test_a_penalty_given_by_mistake_is_withdrawn_from_the_desk_on_a_phone(
    open_page: Callable[..., Page], night: GameNight
) -> None:
    competition = night.season.competition
    ada = competition.competitors.get(name="ada")
    discipline.penalty_give(
        competition=competition, by=night.season.league.created_by, competitor=ada,
        kind="points", amount=0.5, reason="Phone at the table", night=night,
    )  # fmt: skip
    page = open_page(f"/nights/{night.pk}/desk/", size=PHONE)
    sign_in_as_olga(page)
    expect(page.locator("ul.penalties")).to_contain_text("Phone at the table")

    page.get_by_text("Withdraw a penalty").click()
    page.get_by_label("Penalty", exact=True).select_option(label="ada: Phone at the table")
    page.locator("#withdraw_reason").fill("It was someone else's phone")
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.locator("#discipline").scroll_into_view_if_needed()
    page.screenshot(path=str(SCREENSHOTS / "discipline-withdraw-360.png"), full_page=True)
    page.get_by_role("button", name="Withdraw the penalty").click()

    expect(page.locator(".messages, .notice").first).to_contain_text(
        "The penalty of ada is withdrawn"
    )
    expect(page.locator("#discipline")).not_to_contain_text("Phone at the table")
    assert page.evaluate("document.documentElement.scrollWidth") <= 360
    withdrawn = ChangeLog.objects.get(competition=competition, action="penalty_withdrawn")
    assert withdrawn.reason == "It was someone else's phone"
