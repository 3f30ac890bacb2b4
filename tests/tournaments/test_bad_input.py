"""Input that once crashed a tournaments request gets a clear 4xx instead, and writes nothing.

Starting a tournament (or drawing a night's seating) with nobody to seat, and advancing a
round the tournament does not have: each is the one error shape with a stable code.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest
from django.test import Client
from rest_framework.test import APIClient

from accounts.models import User
from games.models import Game
from tests.tournaments.conftest import QUICK, Club
from tests.tournaments.test_recording_api import expect
from tournaments import recording, running, tables
from tournaments.models import ChangeLog, NightRound, Tournament, TournamentRound

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

    body = expect(response, 400, "cannot_seat")
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

    body = expect(response, 400, "cannot_seat")
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
    running.round_advance(tournament=tournament, number=1)
    expect(api_as(olga).post(url), 409, "round_not_finished")  # seated now, still playing
