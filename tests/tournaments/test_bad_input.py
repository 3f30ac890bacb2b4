"""Input that once crashed a tournaments request gets a clear 4xx instead, and writes nothing.

Starting a tournament (or drawing a night's seating) with nobody to seat, and advancing a
round the tournament does not have: each is the one error shape with a stable code.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from django.test import Client
from rest_framework.test import APIClient

from accounts.models import User
from games.models import Game
from tests.tournaments.conftest import QUICK, Club
from tests.tournaments.test_recording_api import expect
from tournaments import recording, rounds, running, tables
from tournaments.models import ChangeLog, NightRound, Season, Tournament, TournamentRound

Clients = Callable[[User], APIClient]

pytestmark = pytest.mark.django_db


def recorded_cup(by: User, *, entrants: int, format: str = "round_robin") -> Tournament:
    """A recorded tournament at tables of 2 with this many guest entrants, not started."""
    tournament = running.tournament_create(
        by=by, name="Cup", format=format, entrants="humans", play="recorded", rules=QUICK,
        rounds=2, table_sizes=[2], preferred_size=2, seed=3,
    )  # fmt: skip
    for i in range(entrants):
        running.entrant_add(tournament=tournament, by=by, name=f"P{i}")
    return tournament


# --- starting with nobody (or too few) to seat ----------------------------------------------


@pytest.mark.parametrize("entrants", [0, 1])
def test_starting_a_tournament_without_a_field_to_seat_is_refused_and_changes_nothing(
    olga: User, api_as: Clients, entrants: int
) -> None:
    tournament = recorded_cup(olga, entrants=entrants)

    response = api_as(olga).post(f"/api/v1/tournaments/{tournament.pk}/start/")

    body = expect(response, 422, "cannot_seat")
    assert body["details"] == {"entrants": entrants}
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.DRAFT
    assert not TournamentRound.objects.filter(tournament=tournament).exists()
    assert not ChangeLog.objects.filter(action="tournament_started").exists()


def test_the_start_page_of_an_empty_tournament_shows_the_refusal(
    olga: User, client: Client
) -> None:
    tournament = recorded_cup(olga, entrants=0)
    client.force_login(olga)

    response = client.post(f"/tournaments/{tournament.pk}/start/")

    assert response.status_code == 400
    assert "0 entrants cannot be seated" in response.content.decode()
    assert Tournament.objects.get(pk=tournament.pk).status == Tournament.Status.DRAFT


def test_drawing_a_nights_seating_with_nobody_checked_in_is_refused(
    club: Club, olga: User, api_as: Clients
) -> None:
    response = api_as(olga).post(f"/api/v1/nights/{club.night.pk}/draw/", {}, format="json")

    body = expect(response, 422, "cannot_seat")
    assert body["details"]["players"] == 0
    assert not NightRound.objects.exists()


# --- advancing a round the tournament does not have -----------------------------------------


def test_advancing_a_round_of_a_tournament_not_started_is_404(olga: User, api_as: Clients) -> None:
    tournament = recorded_cup(olga, entrants=4)

    response = api_as(olga).post(f"/api/v1/tournaments/{tournament.pk}/rounds/1/advance/")

    expect(response, 404, "no_such_round")
    assert Tournament.objects.get(pk=tournament.pk).status == Tournament.Status.DRAFT


@pytest.mark.parametrize("number", [0, 3, 7, 32767, 32768, 2**31, 2**63 - 1])
def test_advancing_a_round_past_the_plan_is_404_and_leaves_the_rounds_as_they_were(
    olga: User, api_as: Clients, number: int
) -> None:
    tournament = recorded_cup(olga, entrants=4)
    running.tournament_start(tournament=tournament, by=olga)

    response = api_as(olga).post(f"/api/v1/tournaments/{tournament.pk}/rounds/{number}/advance/")

    expect(response, 404, "no_such_round")
    statuses = TournamentRound.objects.filter(tournament=tournament).order_by("number")
    assert list(statuses.values_list("number", "status")) == [(1, "playing"), (2, "seated")]


def test_advancing_a_swiss_round_not_yet_seated_is_404_until_the_round_before_closes(
    olga: User, api_as: Clients
) -> None:
    tournament = recorded_cup(olga, entrants=4, format="swiss")
    first = running.tournament_start(tournament=tournament, by=olga)
    url = f"/api/v1/tournaments/{tournament.pk}/rounds/2/advance/"

    expect(api_as(olga).post(url), 404, "no_such_round")

    for table in tables.tournament_rounds([first])[first.pk]:
        game = Game.objects.get(pk=table.game)
        recording.round_record(game=game, by=olga, dollars=[300_000, 0])
    rounds.round_advance(tournament=tournament, number=1)
    expect(api_as(olga).post(url), 409, "round_not_finished")  # seated now, still playing


# --- ids past the largest the database holds ------------------------------------------------

HUGE = 99999999999999999999999


def test_advancing_a_tournament_or_round_past_the_largest_id_is_404(
    olga: User, api_as: Clients
) -> None:
    tournament = recorded_cup(olga, entrants=4)
    running.tournament_start(tournament=tournament, by=olga)
    client = api_as(olga)

    expect(client.post(f"/api/v1/tournaments/{HUGE}/rounds/1/advance/"), 404, "not_found")
    expect(
        client.post(f"/api/v1/tournaments/{tournament.pk}/rounds/{HUGE}/advance/"),
        404,
        "not_found",
    )
    assert TournamentRound.objects.get(tournament=tournament, number=1).status == "playing"


@pytest.mark.parametrize(
    ("path", "body", "field"),
    [
        ("competitions/{competition}/competitors/", {"bot_version": HUGE}, "bot_version"),
        ("competitions/{competition}/competitors/", {"member": HUGE}, "member"),
        ("nights/{night}/checkins/", {"member": HUGE}, "member"),
        ("nights/{night}/games/", {"competitors": [HUGE, 1]}, "competitors"),
        ("nights/{night}/recorded/", {"competitors": [1, -HUGE]}, "competitors"),
        ("tournaments/", {"name": "Cup", "league": HUGE}, "league"),
        ("leagues/{league}/seasons/", {"name": "S", "starts_on": "2026-04-01", "best_of": HUGE},
         "best_of"),
    ],
)  # fmt: skip
def test_ids_and_counts_out_of_range_in_a_body_are_refused_naming_the_field(
    club: Club, olga: User, api_as: Clients, path: str, body: dict[str, Any], field: str
) -> None:
    url = "/api/v1/" + path.format(
        competition=club.competition.pk, night=club.night.pk, league=club.season.league_id
    )

    changes = ChangeLog.objects.count()

    response = api_as(olga).post(url, body, format="json")

    details = expect(response, 400, "invalid")["details"]
    assert field in details
    assert ChangeLog.objects.count() == changes
    assert not Game.objects.exists()


def test_a_night_past_the_largest_id_in_the_standings_query_is_refused(
    club: Club, api: APIClient
) -> None:
    url = f"/api/v1/competitions/{club.competition.pk}/standings/"

    details = expect(api.get(url, {"night": HUGE}), 400, "invalid")["details"]
    assert details["night"][0]["code"] == "max_value"


def test_a_season_page_refuses_best_of_beyond_what_a_season_can_count(
    club: Club, olga: User, client: Client
) -> None:
    client.force_login(olga)

    response = client.post(
        f"/leagues/{club.season.league.slug}/seasons/new/",
        {"name": "Summer", "starts_on": "2026-06-01", "best_of": HUGE},
    )

    assert response.status_code == 400
    assert not Season.objects.filter(name="Summer").exists()


def test_the_new_tournament_page_refuses_a_roster_member_past_the_largest_id(
    club: Club, olga: User, client: Client
) -> None:
    client.force_login(olga)

    response = client.post(
        f"/tournaments/new/?league={club.season.league.slug}",
        {"name": "Cup", "format": "round_robin", "play": "recorded", "rounds": 1,
         "table_sizes": ["2"], "preferred_size": "2", "members": [str(HUGE)]},
    )  # fmt: skip

    assert response.status_code == 400
    assert f"{HUGE} is not one of the available choices" in response.content.decode()
    assert not Tournament.objects.exists()
