"""Bots at a people's table played by the real worker: each bot turn is a ``bots.play_turn``
task sent after the change before it commits, BOT_MOVE_DELAY_MS later, so people see the
moves one at a time; the person plays through the API meanwhile.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from itertools import pairwise

import pytest
from rest_framework.test import APIClient

from accounts.models import User
from games.models import Event, Game
from tests.conftest import TEST_BOT_MOVE_DELAY_MS
from tests.factories import UserFactory

pytestmark = pytest.mark.usefixtures("transactional_db", "celery_worker")
GIVE_UP_SECONDS = 240


def test_a_person_plays_a_whole_game_against_three_builtins_moved_by_the_worker(
    api_as: Callable[[User], APIClient],
) -> None:
    client = api_as(UserFactory.create(username="alice"))
    bots = [{"seat": n, "strategy": s} for n, s in ((1, "greedy"), (2, "shark"), (3, "random"))]
    created = client.post(
        "/api/v1/games/",
        {"seats": 4, "options": {"ending": "quick"}, "bots": bots},
        format="json",
    )
    game_id = created.json()["id"]
    give_up = time.monotonic() + GIVE_UP_SECONDS
    status = "active"
    while status == "active":
        assert time.monotonic() < give_up, "the game did not end"
        mine = client.get(f"/api/v1/games/{game_id}/decision/").json()
        if mine["decision"] is not None:
            decision = mine["decision"]
            client.post(
                f"/api/v1/games/{game_id}/actions/",
                {"action": decision["legal_actions"][0], "version": decision["version"]},
                format="json",
            )
        else:
            client.get(f"/api/v1/games/{game_id}/wait/", {"after": mine["version"], "timeout": 5})
        status = mine["status"]

    game = Game.objects.get(pk=game_id)
    assert game.status == Game.Status.FINISHED
    events = list(Event.objects.filter(game=game).order_by("seq"))
    assert {e.seat for e in events if e.origin == "builtin"} == {1, 2, 3}
    # one at a time: no bot move follows the change before it sooner than the delay
    gaps = [
        (later.created_at - earlier.created_at).total_seconds()
        for earlier, later in pairwise(events)
        if later.origin == "builtin"
    ]
    assert min(gaps) >= TEST_BOT_MOVE_DELAY_MS / 1000 * 0.9
