"""A whole club night in a real browser, at phone size, by clicking: the organiser checks
in 13 players and draws the seating; four players keep one table's sheet on their own
phones for three rounds (a typo refused inline, a dispute settled by the organiser);
the standings and the projector show the result."""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from games.engine import RuleSet
from games.models import Game
from tests.browser import open_menu
from tests.factories import DEFAULT_PASSWORD, UserFactory
from tournaments import roster, services, tables
from tournaments.models import GameNight, ScoreRecord

pytestmark = pytest.mark.django_db(transaction=True)
THREE_ROUNDS = RuleSet.preset("2021", ending="highest_after_n", ending_rounds=3)
NAMES = ("Ada", "Ben", "Cleo", "Dan", "Eve", "Finn", "Gus", "Hana", "Ivo", "Jo", "Kai", "Lu", "Mo")
POLL = 12_000  # ms: a sheet refreshes itself every 5 s


def sign_in(page: Page, username: str) -> None:
    page.get_by_label("Username").fill(username)
    page.get_by_label("Password").fill(DEFAULT_PASSWORD)
    page.get_by_role("button", name="Sign in").click()


def enter(page: Page, thousands: list[str]) -> None:
    fields = page.locator("form[data-entry] input.thousands")
    for n, value in enumerate(thousands):
        fields.nth(n).fill(value)
    page.get_by_role("button", name=re.compile(r"^Record round")).click()


@pytest.fixture
def night() -> GameNight:
    olga = UserFactory.create(username="olga")
    league = services.league_create(
        by=olga, name="Tuesday Club", slug="tuesday", rules=THREE_ROUNDS
    )
    for name in NAMES:
        roster.member_add(
            league=league, by=olga, name=name, user=UserFactory.create(username=name.lower())
        )
    season = services.season_create(
        league=league, by=olga, name="Autumn", starts_on=dt.date(2026, 9, 1)
    )
    return services.night_create(season=season, by=olga, on=dt.date(2026, 11, 24), venue="Hall")


def test_a_club_night_runs_on_pages_alone(open_page: Callable[..., Page], night: GameNight) -> None:
    organiser = open_page(f"/nights/{night.pk}/")
    open_menu(organiser)
    organiser.get_by_role("link", name="Sign in").first.click()
    sign_in(organiser, "olga")
    for name in NAMES:
        organiser.get_by_role("button", name=f"Check in {name}").click()
        expect(
            organiser.locator(f"#member-{night.season.league.members.get(name=name).pk}")
        ).to_contain_text("checked in")
    organiser.reload()
    expect(organiser.locator("#checked-count")).to_have_text("13")

    organiser.get_by_role("button", name="Draw round 1").click()
    expect(organiser.get_by_role("heading", name="Round 1: seating")).to_be_visible()
    drawn = tables.night_rounds(night)[0]
    assert sorted(len(t.players) for t in drawn.tables) == [4, 4, 5]
    for table in drawn.tables:
        for player in table.players:
            expect(organiser.locator(f"#table-{table.game}")).to_contain_text(player.name)
    table = next(t for t in drawn.tables if len(t.players) == 4)
    organiser.get_by_role("link", name=f"Score sheet of table {table.number + 1}").click()
    expect(organiser).to_have_url(re.compile(rf"/sheets/{table.game}/$"))

    phones = []
    for player in table.players:
        phone = open_page(f"/sheets/{table.game}/")
        sign_in(phone, player.name.lower())
        expect(phone.get_by_role("heading", name=f"Table {table.number + 1}")).to_be_visible()
        phones.append(phone)
    names = [p.name for p in table.players]

    # Round 1: a typo (no stack is worth $151,000) refused beside its field, then fixed.
    enter(phones[0], ["300", "151", "50", "0"])
    expect(phones[0].locator("#id_seat_1_error")).to_contain_text(
        "No stack of this deck is worth $151,000"
    )
    expect(phones[0].locator("#id_seat_1")).to_have_value("151")
    phones[0].locator("#id_seat_1").fill("150")
    phones[0].get_by_role("button", name=re.compile(r"^Record round 1")).click()
    expect(phones[0].get_by_role("heading", name="Round 2", exact=True)).to_be_visible()
    for phone in phones[1:]:
        phone.get_by_role("button", name="Confirm round 1").click(timeout=POLL)
    expect(phones[0].locator("#round-1")).to_contain_text("confirmed", timeout=POLL)

    # Round 2: disputed from a player's phone, settled by the organiser's correction.
    enter(phones[1], ["100", "200", "300", "50"])
    phones[2].get_by_text("Dispute round 2").click(timeout=POLL)
    phones[2].get_by_label("What is wrong with round 2?").fill("The Gold pair was mine")
    phones[2].get_by_role("button", name="Dispute", exact=True).click()
    expect(phones[2].locator("#round-2")).to_contain_text("Disputed by")
    organiser.reload()
    organiser.get_by_text("Correct round 2").click()
    corrections = organiser.locator("#round-2 input.thousands")
    for n, value in enumerate(["100", "150", "350", "50"]):
        corrections.nth(n).fill(value)
    organiser.get_by_label("Why round 2 changes").fill("Recounted: the Gold pair was theirs")
    organiser.get_by_role("button", name="Save the correction").click()
    expect(organiser.locator("#sheet-state")).to_contain_text("olga corrected round 2")
    expect(phones[3].locator("#round-2")).to_contain_text("confirmed", timeout=POLL)

    # Round 3 ends the game (the highest tally after three rounds wins).
    enter(phones[2], ["50", "100", "300", "200"])
    for phone in (phones[0], phones[1], phones[3]):
        phone.get_by_role("button", name="Confirm round 3").click(timeout=POLL)
    winner = names[2]
    expect(phones[0].locator("#sheet-state")).to_contain_text(f"{winner} wins.", timeout=POLL)
    expect(phones[0].locator("#round-3")).to_contain_text("confirmed", timeout=POLL)
    game = Game.objects.get(pk=table.game)
    assert game.status == Game.Status.FINISHED
    assert (
        not ScoreRecord.objects.filter(game=game, superseded_by__isnull=True)
        .exclude(status="confirmed")
        .exists()
    )

    standings = open_page(f"/nights/{night.pk}/")
    standings.get_by_role("link", name="Tonight's standings").click()
    expect(standings.locator("table tbody tr").first).to_contain_text(winner)
    with standings.expect_download() as download:
        standings.get_by_role("link", name="Download as CSV").click()
    assert download.value.suggested_filename == (
        "tuesday-club-autumn-standings-night-2026-11-24.csv"
    )
    csv_text = Path(download.value.path()).read_text()
    assert csv_text.splitlines()[0].startswith("rank,name,")
    assert csv_text.splitlines()[1].split(",")[:2] == ["1", winner]

    projector = open_page(f"/nights/{night.pk}/projector/")
    expect(projector.locator("body")).to_contain_text("Tonight's standings")
    expect(projector.locator("table").first).to_contain_text(winner)
    expect(projector.locator("table tbody tr").first).to_contain_text(winner)
