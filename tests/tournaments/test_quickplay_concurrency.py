"""Quick pairing under concurrency, on real connections (tests/races.py): many people
joining at once are each seated once at a full table, and leaving races pairing fairly."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable

import pytest
from rest_framework.test import APIClient

from accounts.models import User
from games.models import Game, Seat
from tests.clients import authenticate
from tests.factories import UserFactory
from tests.races import Outcome, race_threads
from tournaments.models import QueueTicket

pytestmark = pytest.mark.usefixtures("transactional_db")

PEOPLE = 12


def _client(user: User) -> APIClient:
    client = APIClient()
    authenticate(client, user)
    return client


def _join(client: APIClient, seats: int) -> Callable[[], Outcome]:
    def job() -> Outcome:
        response = client.post("/api/v1/quick-pairing/", {"seats": seats}, format="json")
        return response.status_code, response.json()

    return job


def _leave(client: APIClient) -> Callable[[], Outcome]:
    def job() -> Outcome:
        response = client.post("/api/v1/quick-pairing/leave/")
        return response.status_code, {} if response.status_code == 204 else response.json()

    return job


@pytest.mark.parametrize("seats", [2, 3, 4])
def test_people_joining_together_sit_once_each_at_full_tables(seats: int) -> None:
    people = [UserFactory.create() for _ in range(PEOPLE)]

    outcomes = race_threads([_join(_client(p), seats) for p in people])

    assert sorted(status for status, _ in outcomes) == [201] * PEOPLE
    seated = Seat.objects.filter(user__in=people)
    assert Counter(seated.values_list("user_id", flat=True)).most_common(1)[0][1] == 1
    games = Game.objects.filter(pk__in=seated.values("game_id"))
    for game in games:
        assert game.seats.filter(user__isnull=False).count() == seats  # none over-full
        assert game.status == Game.Status.ACTIVE
    tickets = QueueTicket.objects.filter(user__in=people)
    assert tickets.filter(status=QueueTicket.Status.SEATED).count() == seated.count()
    waiting = tickets.filter(status=QueueTicket.Status.WAITING).count()
    assert seated.count() + waiting == PEOPLE
    assert waiting < seats  # everyone who could be seated was


def test_leaving_while_others_join_is_honoured_or_refused_with_the_table() -> None:
    for _ in range(8):
        leaver, *others = [UserFactory.create() for _ in range(4)]
        leaving = _client(leaver)
        assert _join(leaving, 2)()[0] == 201

        outcomes = race_threads([_leave(leaving), *[_join(_client(o), 2) for o in others]])

        status, body = outcomes[0]
        seat = Seat.objects.filter(user=leaver).first()
        if status == 204:
            assert seat is None  # left: never seated afterwards
            assert QueueTicket.objects.get(user=leaver).status == QueueTicket.Status.LEFT
        else:
            assert (status, body["code"]) == (409, "already_seated")
            assert seat is not None
            assert body["details"]["game"] == seat.game_id
        played = Seat.objects.filter(user__in=[leaver, *others]).values("game_id")
        for game in Game.objects.filter(pk__in=played):  # waiting ones of a round before too
            assert game.seats.filter(user__isnull=False).count() == 2
