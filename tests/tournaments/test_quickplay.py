"""Quick pairing (tournaments.quickplay): who is seated with whom, the range that widens
with the wait, bot fill, leaving, and the API."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable

import pytest
import time_machine
from django.test import Client
from rest_framework.test import APIClient

from accounts.models import User
from games.models import Game
from tests.factories import UserFactory
from tests.pages import text
from tournaments import quickplay, tasks
from tournaments.models import PersonRating, QueueTicket
from tournaments.people_ratings import online_pool
from tournaments.quickplay import Waiting, rating_range, tables

pytestmark = pytest.mark.django_db


def test_the_longest_waiting_is_seated_first_with_people_in_range() -> None:
    waiting = [Waiting(1, 10.0, 0, None), Waiting(2, 30.0, 0, None), Waiting(3, 12.0, 0, None)]

    assert tables(waiting, 2) == [([1, 3], 0)]


def test_the_range_widens_with_the_wait_until_anyone_will_do() -> None:
    near, far = Waiting(1, 0.0, 0, None), Waiting(2, 12.0, 0, None)
    waited = [Waiting(1, 0.0, 40, None), Waiting(2, 12.0, 40, None)]

    assert rating_range(0) == 5.0
    assert rating_range(40) == 15.0
    assert rating_range(quickplay.ANYONE_AFTER) is None
    assert tables([near, far], 2) == []
    assert tables(waited, 2) == [([1, 2], 0)]
    assert tables([Waiting(1, 0, 200, None), Waiting(2, 90, 0, None)], 2) == [([1, 2], 0)]


def test_bots_fill_the_seats_once_the_chosen_wait_is_over() -> None:
    assert tables([Waiting(1, 0.0, 10, 15)], 4) == []
    assert tables([Waiting(1, 0.0, 15, 15), Waiting(2, 1.0, 0, None)], 4) == [([1, 2], 2)]


def test_two_people_who_fit_start_a_rated_table_at_once(alice: User, bob: User) -> None:
    first = quickplay.queue_join(user=alice, seats=2, preset="2021")
    second = quickplay.queue_join(user=bob, seats=2, preset="2021")

    first.refresh_from_db()
    assert first.status == second.status == QueueTicket.Status.SEATED
    assert first.game_id == second.game_id
    game = Game.objects.get(pk=first.game_id or 0)
    assert game.rated is True
    assert game.status == Game.Status.ACTIVE
    assert {s.user_id for s in game.seats.all()} == {alice.pk, bob.pk}


def test_people_far_apart_wait_until_their_ranges_meet(alice: User, bob: User) -> None:
    PersonRating.objects.create(pool=online_pool(), user=bob, mu=45.0, sigma=2.0)  # 39
    start = dt.datetime(2026, 6, 1, 12, tzinfo=dt.UTC)
    with time_machine.travel(start, tick=False):
        quickplay.queue_join(user=alice, seats=2, preset="2021")
        quickplay.queue_join(user=bob, seats=2, preset="2021")
    with time_machine.travel(start + dt.timedelta(seconds=100), tick=False):
        waiting = quickplay.queue_ticket(user=alice)
    assert waiting.status == QueueTicket.Status.WAITING
    with time_machine.travel(start + dt.timedelta(seconds=quickplay.ANYONE_AFTER), tick=False):
        seated = quickplay.queue_ticket(user=alice)
    assert seated.status == QueueTicket.Status.SEATED


def test_a_chosen_bot_fill_starts_the_table_with_bots(alice: User) -> None:
    start = dt.datetime(2026, 6, 1, 12, tzinfo=dt.UTC)
    with time_machine.travel(start, tick=False):
        quickplay.queue_join(user=alice, seats=3, preset="2021", bot_fill_after=15)
    with time_machine.travel(start + dt.timedelta(seconds=16), tick=False):
        ticket = quickplay.queue_ticket(user=alice)

    assert ticket.status == QueueTicket.Status.SEATED
    game = Game.objects.get(pk=ticket.game_id or 0)
    assert game.bot_seats == [1, 2]
    assert game.status == Game.Status.ACTIVE


def test_beat_seats_a_person_whose_bot_fill_came_due_while_nobody_polled(
    alice: User, bob: User
) -> None:
    start = dt.datetime(2026, 6, 1, 12, tzinfo=dt.UTC)
    with time_machine.travel(start, tick=False):
        quickplay.queue_join(user=alice, seats=3, preset="2021", bot_fill_after=15)
        quickplay.queue_join(user=bob, seats=4, preset="2011")  # no fill: waits on
    with time_machine.travel(start + dt.timedelta(seconds=10), tick=False):
        assert tasks.pair_queues() == 0
    with time_machine.travel(start + dt.timedelta(seconds=16), tick=False):
        assert tasks.pair_queues() == 1  # her page closed: beat's task, not her poll

    seated = QueueTicket.objects.get(user=alice)
    assert seated.status == QueueTicket.Status.SEATED
    assert Game.objects.get(pk=seated.game_id or 0).bot_seats == [1, 2]
    assert QueueTicket.objects.get(user=bob).status == QueueTicket.Status.WAITING


def test_leaving_is_honoured_and_a_seated_person_cannot_leave(
    alice: User, bob: User, carol: User
) -> None:
    quickplay.queue_join(user=alice, seats=2, preset="2021")
    quickplay.queue_leave(user=alice)
    quickplay.queue_join(user=bob, seats=2, preset="2021")
    quickplay.queue_join(user=carol, seats=2, preset="2011")

    assert quickplay.queue_ticket(user=alice).status == QueueTicket.Status.LEFT
    assert quickplay.queue_ticket(user=bob).status == QueueTicket.Status.WAITING
    with pytest.raises(Exception, match="not waiting"):
        quickplay.queue_leave(user=alice)


def test_the_api_joins_polls_and_leaves(api_as: Callable[[User], APIClient], alice: User) -> None:
    bob = UserFactory.create(username="bob")
    client = api_as(alice)

    # the clock stands still: the range widens with every moment waited, and a machine as
    # busy as a whole suite took a tenth of a second to answer the join (5.025)
    with time_machine.travel(dt.datetime(2026, 11, 27, 12, tzinfo=dt.UTC), tick=False):
        joined = client.post("/api/v1/quick-pairing/", {"seats": 2}, format="json")
        twice = client.post("/api/v1/quick-pairing/", {"seats": 2}, format="json")
        bad = client.post("/api/v1/quick-pairing/", {"seats": 7}, format="json")
        mine = client.get("/api/v1/quick-pairing/mine/")
        seated = api_as(bob).post("/api/v1/quick-pairing/", {"seats": 2}, format="json")
        late = client.post("/api/v1/quick-pairing/leave/")

    assert joined.status_code == 201
    assert joined.json()["status"] == "waiting"
    assert joined.json()["rating_range"] == 5.0
    assert twice.status_code == 409
    assert twice.json()["code"] == "already_queued"
    assert bad.status_code == 400
    assert mine.json()["status"] == "waiting"
    assert seated.json()["status"] == "seated"
    assert late.status_code == 409
    assert late.json()["code"] == "already_seated"
    assert late.json()["details"]["game"] == seated.json()["game"]


def test_the_page_joins_and_refuses_a_wait_not_offered(client: Client, alice: User) -> None:
    client.force_login(alice)

    form = client.get("/play/quick/")
    refused = client.post("/play/quick/", {"seats": "2", "preset": "2021", "bot_fill_after": "7"})
    joined = client.post("/play/quick/", {"seats": "2", "preset": "2021"})
    waiting = client.get("/play/quick/")

    assert "Find a table" in text(form.content)
    assert refused.status_code == 400
    assert joined.status_code == 302
    assert "Looking for a table of 2" in text(waiting.content)
    assert client.get("/play/quick/", HTTP_HX_REQUEST="true").status_code == 200


def test_the_queue_is_for_signed_in_people(api: APIClient) -> None:
    for response in (
        api.post("/api/v1/quick-pairing/", {"seats": 2}, format="json"),
        api.get("/api/v1/quick-pairing/mine/"),
        api.post("/api/v1/quick-pairing/leave/"),
    ):
        assert response.status_code == 401
        assert response.json()["code"] == "not_authenticated"
