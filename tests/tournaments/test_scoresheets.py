"""Score sheets as pages read them (tournaments.scoresheets.sheet, sheets, night_sheets): a
table's rounds with running tallies, the ledger and the places, for one game or for a
whole night's tables in the same few queries."""

from __future__ import annotations

import datetime as dt

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from accounts.models import User
from tests.tournaments.conftest import QUICK, Club, recorded_game, settled_game
from tests.tournaments.test_nights import check_in, finish
from tournaments import nights, recording, scoresheets, services

pytestmark = pytest.mark.django_db

CLASSIC = QUICK.with_options(ending="classic")


def test_a_sheet_has_running_tallies_round_leaders_the_ledger_and_the_places(
    club: Club, olga: User
) -> None:
    game = settled_game(club, olga, ["Alice", "Bob"], [600_000, 200_000], rules=CLASSIC)
    recording.round_record(game=game, by=olga, dollars=[100_000, 300_000])
    recording.round_correct(
        game=game, round_number=2, by=olga, dollars=[500_000, 100_000], reason="recounted"
    )
    game.refresh_from_db()

    sheet = scoresheets.sheet(game)

    assert [p.name for p in sheet.players] == ["Alice", "Bob"]
    assert [r.tallies for r in sheet.rounds] == [(600_000, 200_000), (1_100_000, 300_000)]
    assert [r.leaders for r in sheet.rounds] == [(0,), (0,)]
    assert [(line.kind, line.superseded) for line in sheet.ledger] == [
        ("enter", False),
        ("enter", True),
        ("correct", False),
    ]
    assert sheet.ended
    assert sheet.places == {0: 1, 1: 2}
    assert sheet.rules.ending == "classic"


def test_many_sheets_cost_the_queries_of_one_and_read_the_same(club: Club, olga: User) -> None:
    games = [
        settled_game(club, olga, ["Alice", "Bob"], [300_000, 100_000]),
        settled_game(club, olga, ["Carol", "Dora", "Alice"], [100_000, 200_000, 50_000]),
        recorded_game(club, olga, ["Bob", "Dora"]),  # nothing entered yet
    ]

    with CaptureQueriesContext(connection) as one:
        alone = scoresheets.sheets(games[:1])
    with CaptureQueriesContext(connection) as three:
        together = scoresheets.sheets(games)

    assert len(three) == len(one) <= 5
    assert together[0] == alone[0]
    assert [s.game.pk for s in together] == [g.pk for g in games]
    assert together[1].tallies == (100_000, 200_000, 50_000)
    assert together[1].places == {0: 2, 1: 1, 2: 3}
    assert together[2].rounds == ()
    assert together[2].places == {}


def test_a_nights_sheets_follow_the_draws_and_tables_and_only_that_night(
    club: Club, olga: User
) -> None:
    other = services.night_create(season=club.season, by=olga, on=dt.date(2026, 3, 10))
    settled_game(club, olga, ["Alice", "Bob"], [300_000, 100_000], night=other)
    by_hand = settled_game(club, olga, ["Carol", "Dora"], [300_000, 100_000])
    check_in(club, olga, 8)
    finish(nights.night_draw(night=club.night, by=olga, seed=2), olga)

    night = scoresheets.night_sheets(club.night)

    assert [(t.draw, t.table) for t in night] == [(1, 0), (1, 1), (None, None)]
    assert night[-1].sheet.game.pk == by_hand.pk
    assert all(len(t.sheet.players) == 4 for t in night[:2])
