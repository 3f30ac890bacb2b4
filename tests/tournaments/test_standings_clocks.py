"""Standings on two clocks (issue 27): by when games were played (after a night of a season,
after a round of a tournament), the default, and as recorded at a moment, the audit trail.
Selectors, the API, the CSV and the pages alike.

A club types its sheets in the morning after the night: the night's standings must still
hold its games under the night's date.
"""

from __future__ import annotations

import csv
import datetime as dt
import io
from html import unescape

import pytest
import time_machine
from django.test import Client
from rest_framework.test import APIClient

from accounts.models import User
from tests.pages import text
from tests.tournaments.conftest import QUICK, Club, settled_game
from tournaments import discipline, recording, rounds, running, selectors, services
from tournaments.models import GameNight, Tournament

pytestmark = pytest.mark.django_db

# the club's first night is 2026-03-03 (tests/tournaments/conftest.py)
NEXT_MORNING = dt.datetime(2026, 3, 4, 9, 0, tzinfo=dt.UTC)
SECOND_NIGHT = dt.datetime(2026, 3, 10, 21, 0, tzinfo=dt.UTC)
LATER = dt.datetime(2026, 4, 1, 12, 0, tzinfo=dt.UTC)


@pytest.fixture
def two_nights(club: Club, olga: User) -> GameNight:
    """Night one's game typed in the next morning; night two's on the night."""
    second = services.night_create(season=club.season, by=olga, on=dt.date(2026, 3, 10))
    with time_machine.travel(NEXT_MORNING, tick=False):
        settled_game(club, olga, ["Alice", "Bob"], [100_000, 50_000])
    with time_machine.travel(SECOND_NIGHT, tick=False):
        settled_game(club, olga, ["Carol", "Alice"], [300_000, 50_000], night=second)
    return second


def games(club: Club, **clock: object) -> dict[str, int]:
    return {r["name"]: r["games"] for r in selectors.standings(club.competition, **clock)}  # type: ignore[arg-type]


def test_after_a_night_counts_its_games_though_typed_in_the_next_morning(
    club: Club, two_nights: GameNight
) -> None:
    first_night_end = dt.datetime(2026, 3, 3, 23, 59, tzinfo=dt.UTC)

    assert games(club, after_night=dt.date(2026, 3, 3)) == {
        "Alice": 1, "Bob": 1, "Carol": 0, "Dora": 0,
    }  # fmt: skip
    assert games(club, after_night=dt.date(2026, 3, 10))["Alice"] == 2
    assert games(club, after_night=dt.date(2026, 3, 2))["Alice"] == 0
    # the clock of record: nothing had been typed in by the end of the night
    assert games(club, as_of=first_night_end)["Alice"] == 0


def test_after_a_night_a_seasons_game_at_no_night_counts_by_the_day_it_finished(
    club: Club, olga: User
) -> None:
    with time_machine.travel(dt.datetime(2026, 3, 5, 20, 0, tzinfo=dt.UTC), tick=False):
        digital = recording.recorded_game_create(
            by=olga, competition=club.competition, competitors=club.at("Alice", "Bob"), rules=QUICK
        )
        recording.round_record(game=digital, by=olga, dollars=[200_000, 100_000])

    assert games(club, after_night=dt.date(2026, 3, 4))["Alice"] == 0
    assert games(club, after_night=dt.date(2026, 3, 5))["Alice"] == 1


def test_after_a_night_a_later_nights_game_is_left_out_though_typed_in_before_it(
    club: Club, olga: User
) -> None:
    """A night's games count by the night's date, whenever they were typed in: a sheet
    entered ahead of its night (by mistake, or a game played early) waits for the night."""
    later = services.night_create(season=club.season, by=olga, on=dt.date(2026, 3, 10))
    with time_machine.travel(dt.datetime(2026, 3, 5, 20, 0, tzinfo=dt.UTC), tick=False):
        settled_game(club, olga, ["Alice", "Bob"], [200_000, 100_000], night=later)

    assert games(club, after_night=dt.date(2026, 3, 5))["Alice"] == 0
    assert games(club, after_night=dt.date(2026, 3, 10))["Alice"] == 1


def test_the_two_clocks_combine(club: Club, olga: User, two_nights: GameNight) -> None:
    game = selectors.entries_of(club.competition).filter(night=club.night).first()
    assert game is not None
    with time_machine.travel(LATER, tick=False):
        recording.round_correct(
            game=game.game, by=olga, round_number=1, dollars=[50_000, 100_000], reason="swap"
        )
    night_one = {"after_night": dt.date(2026, 3, 3)}
    before = selectors.standings(club.competition, as_of=SECOND_NIGHT, **night_one)  # type: ignore[arg-type]
    after = selectors.standings(club.competition, **night_one)  # type: ignore[arg-type]

    assert before[0]["name"] == "Alice"
    assert after[0]["name"] == "Bob"


def test_the_api_and_its_csv_go_by_night(club: Club, two_nights: GameNight, api: APIClient) -> None:
    url = f"/api/v1/competitions/{club.competition.pk}/standings/"

    rows = api.get(url, {"after_night": "2026-03-03"}).json()
    download = api.get(url, {"after_night": "2026-03-03", "format": "csv"})

    assert {r["name"]: r["games"] for r in rows}["Alice"] == 1
    assert {r["name"]: r["games"] for r in rows}["Carol"] == 0
    name = "tuesday-club-spring-standings-after-2026-03-03.csv"
    assert download["Content-Disposition"] == f'attachment; filename="{name}"'
    table = list(csv.DictReader(io.StringIO(download.content.decode())))
    assert {r["name"]: r["games"] for r in table}["Alice"] == "1"


def test_the_wrong_clock_for_a_competition_is_refused_by_name(club: Club, api: APIClient) -> None:
    url = f"/api/v1/competitions/{club.competition.pk}/standings/"

    response = api.get(url, {"after_round": 2})

    assert response.status_code == 422
    assert response.json()["code"] == "wrong_clock"
    assert response.json()["details"] == {"after_round": "not for this competition"}
    assert api.get(url, {"after_night": "soon"}).json()["code"] == "invalid"


@pytest.fixture
def cup(olga: User) -> Tournament:
    """A recorded round robin of four guests at tables of two, both rounds entered."""
    tournament = running.tournament_create(
        by=olga, name="Cup", format="round_robin", entrants="humans", rules=QUICK,
        rounds=2, table_sizes=[2], preferred_size=2, play="recorded", seed=1,
    )  # fmt: skip
    for name in ("Ann", "Ben", "Cat", "Dan"):
        running.entrant_add(tournament=tournament, by=olga, name=name)
    running.tournament_start(tournament=tournament, by=olga)
    for number in (1, 2):
        for entry in tournament.competition.entries.filter(round__number=number, seat=0):
            recording.round_record(game=entry.game, by=olga, dollars=[100_000, 50_000])
        rounds.round_advance(tournament=tournament, number=number)
    return tournament


def test_a_tournament_goes_by_round(cup: Tournament, api: APIClient, client: Client) -> None:
    url = f"/api/v1/competitions/{cup.competition.pk}/standings/"

    after_one = api.get(url, {"after_round": 1}).json()
    now = api.get(url).json()
    page = client.get(f"/tournaments/{cup.pk}/standings/?after_round=1")

    assert {r["games"] for r in after_one} == {1}
    assert {r["games"] for r in now} == {2}
    assert api.get(url, {"after_night": "2026-03-03"}).json()["code"] == "wrong_clock"
    assert "After round 1" in text(page.content)
    assert 'value="1" selected' in page.content.decode()
    assert "after_round=1" in page.content.decode()  # the CSV link keeps the clock


def test_the_season_page_picks_a_night_and_keeps_it_for_the_csv_and_the_players(
    club: Club, two_nights: GameNight, client: Client
) -> None:
    with time_machine.travel(LATER, tick=False):
        page = client.get(f"/seasons/{club.season.pk}/standings/?after_night=2026-03-03")
    html = page.content.decode()

    assert page.status_code == 200
    assert "After the night of" in text(html)
    assert '<option value="2026-03-03" selected>' in html
    assert '<option value="2026-03-10">' in html
    assert "after_night=2026-03-03&amp;format=csv" in html or "format=csv&amp;after_night" in html
    alice = club.players["Alice"].pk
    assert f"/players/{alice}/?after_night=2026-03-03" in html


def test_a_night_that_is_no_choice_is_said_beside_the_field(
    club: Club, two_nights: GameNight, client: Client
) -> None:
    with time_machine.travel(LATER, tick=False):
        page = client.get(f"/seasons/{club.season.pk}/standings/?after_night=2026-03-05")

    assert page.status_code == 400
    assert 'id="id_after_night_error"' in page.content.decode()


def test_a_nights_standings_offer_no_clock(
    club: Club, two_nights: GameNight, client: Client
) -> None:
    page = client.get(f"/nights/{club.night.pk}/standings/?as_of=2026-03-03").content.decode()

    assert 'name="as_of"' not in page
    assert 'name="after_night"' not in page
    assert "Tonight's players" in unescape(text(page))


def test_after_a_round_a_penalty_given_in_a_later_round_is_left_out(
    cup: Tournament, olga: User
) -> None:
    ann = cup.competition.competitors.get(name="Ann")
    penalty = discipline.penalty_give(
        competition=cup.competition, by=olga, competitor=ann,
        kind="points", amount=0.5, reason="late for round 2",
    )  # fmt: skip
    after = {
        number: {r["name"]: r for r in selectors.standings(cup.competition, after_round=number)}
        for number in (1, 2)
    }

    assert penalty.round is not None
    assert penalty.round.number == 2
    assert (after[1]["Ann"]["penalty_points"], after[2]["Ann"]["penalty_points"]) == (0.0, 0.5)
