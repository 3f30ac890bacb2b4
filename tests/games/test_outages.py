"""Games while Redis cannot be reached: actions commit and are answered as done, waiters poll.

The outage is real: Redis's address points at a port where nothing listens.
"""

from __future__ import annotations

from collections.abc import Callable

from rest_framework.test import APIClient

from accounts.models import User
from games import notify
from games.models import Game
from tests.games.conftest import engine_state, game_url, submit

Clients = Callable[[User], APIClient]


def test_an_action_that_committed_is_answered_as_done_though_it_cannot_be_announced(
    redis_away: str, started: Game, api_as: Clients, alice: User, bob: User, carol: User
) -> None:
    state = engine_state(started)
    seated = api_as([alice, bob, carol][state.to_act])
    legal = seated.get(game_url(started, "decision")).json()["decision"]["legal_actions"]

    response = submit(seated, started, legal[0], state.version)

    assert response.status_code == 201, response.json()
    started.refresh_from_db()
    assert started.version == state.version + 1


def test_a_wait_for_a_change_falls_back_to_polling_while_redis_is_away(
    redis_away: str, started: Game
) -> None:
    checks = []

    def changed() -> bool:
        checks.append(1)
        return len(checks) >= 3

    assert notify.wait_for_change(started.pk, changed, timeout=5) is True
    assert len(checks) == 3
