"""The long-poll: it answers at once when there is news, blocks until there is, never spins.

Tests that wait for another thread's commit use ``transactional_db``: the waiting
request runs on its own thread and database connection, and sees only committed rows.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from rest_framework.test import APIClient

from accounts.models import User
from games import services
from games.models import Game
from tests.games.conftest import game_url, submit

Clients = Callable[[User], APIClient]
TIMEOUT = 10.0  # long enough that returning well before it cannot be luck


class Waiter(threading.Thread):
    """A client waiting on another thread; ``result`` holds (seconds taken, status, body)."""

    def __init__(self, client: APIClient, game: Game, after: int, timeout: float = TIMEOUT):
        super().__init__(daemon=True)
        self.client, self.game, self.after, self.timeout = client, game, after, timeout
        self.result: tuple[float, int, dict[str, Any]] | None = None
        self.began = threading.Event()

    def run(self) -> None:
        try:
            self.began.set()
            started = time.monotonic()
            response = self.client.get(
                game_url(self.game, "wait"), {"after": self.after, "timeout": self.timeout}
            )
            self.result = (time.monotonic() - started, response.status_code, response.json())
        finally:
            connection.close()

    def outcome(self) -> tuple[float, int, dict[str, Any]]:
        self.join(TIMEOUT + 5)
        assert self.result is not None, "the waiting request never returned"
        return self.result


def wait(client: APIClient, game: Game, after: int, timeout: float) -> tuple[float, Any]:
    started = time.monotonic()
    response = client.get(game_url(game, "wait"), {"after": after, "timeout": timeout})
    return time.monotonic() - started, response


def start_waiting(client: APIClient, game: Game, after: int) -> Waiter:
    waiter = Waiter(client, game, after)
    waiter.start()
    waiter.began.wait()
    time.sleep(0.3)  # let it subscribe and block
    assert waiter.is_alive(), waiter.result
    return waiter


# --- answers at once ------------------------------------------------------------------


def test_returns_at_once_when_it_is_already_your_turn(
    started: Game, alice: User, api_as: Clients
) -> None:
    seconds, response = wait(api_as(alice), started, after=0, timeout=TIMEOUT)

    assert seconds < TIMEOUT / 4
    assert response.status_code == 200
    assert response.json() == {
        "changed": False,
        "version": 0,
        "status": "active",
        "to_act": 0,
        "your_turn": True,
    }


def test_returns_at_once_when_the_version_has_moved(
    started: Game, alice: User, bob: User, api_as: Clients
) -> None:
    submit(api_as(alice), started, {"type": "discard", "card": "cabin"}, 0)

    seconds, response = wait(api_as(bob), started, after=0, timeout=TIMEOUT)

    assert seconds < TIMEOUT / 4
    assert response.json()["changed"] is True
    assert response.json()["version"] == 1


def test_returns_at_once_for_a_game_that_has_ended(
    started: Game, bob: User, staff: User, api_as: Clients
) -> None:
    services.game_abort(game=started, by=staff, reason="test")

    seconds, response = wait(api_as(bob), started, after=0, timeout=TIMEOUT)

    assert seconds < TIMEOUT / 4
    assert response.json()["status"] == "aborted"
    assert response.json()["your_turn"] is False


def test_returns_changed_false_at_the_timeout(started: Game, bob: User, api_as: Clients) -> None:
    seconds, response = wait(api_as(bob), started, after=0, timeout=0.5)

    assert seconds >= 0.5
    assert seconds < TIMEOUT / 4
    assert response.status_code == 200
    assert response.json() == {
        "changed": False,
        "version": 0,
        "status": "active",
        "to_act": 0,
        "your_turn": False,
    }


def test_a_spectator_can_wait_but_it_is_never_their_turn(started: Game, api: APIClient) -> None:
    _seconds, response = wait(api, started, after=0, timeout=0)

    assert response.json()["your_turn"] is False
    assert response.json()["changed"] is False


def test_waiting_costs_no_queries_while_nothing_happens(
    started: Game, bob: User, api_as: Clients
) -> None:
    client = api_as(bob)
    wait(client, started, after=0, timeout=0.1)  # warm up: token lookup caches and the like
    with CaptureQueriesContext(connection) as brief:  # a wait, a short one
        wait(client, started, after=0, timeout=0.1)
    with CaptureQueriesContext(connection) as waited:
        seconds, _ = wait(client, started, after=0, timeout=1.5)

    assert seconds >= 1.5
    assert len(waited) == len(brief)  # nothing more for waiting longer
    assert len(waited) <= 12


# --- blocks until another client commits ----------------------------------------------


@pytest.mark.usefixtures("transactional_db")
def test_returns_when_another_clients_action_commits(
    started: Game, alice: User, bob: User, api_as: Clients
) -> None:
    waiter = start_waiting(api_as(bob), started, after=0)

    assert (
        submit(api_as(alice), started, {"type": "discard", "card": "cabin"}, 0).status_code == 201
    )

    seconds, status, body = waiter.outcome()
    assert status == 200
    assert seconds < TIMEOUT / 2
    assert body == {
        "changed": True,
        "version": 1,
        "status": "active",
        "to_act": 1,
        "your_turn": True,
    }


@pytest.mark.usefixtures("transactional_db")
def test_a_seat_not_on_turn_also_hears_of_every_change(
    started: Game, alice: User, carol: User, api_as: Clients
) -> None:
    waiter = start_waiting(api_as(carol), started, after=0)

    submit(api_as(alice), started, {"type": "discard", "card": "cabin"}, 0)

    seconds, _, body = waiter.outcome()
    assert seconds < TIMEOUT / 2
    assert (body["changed"], body["version"], body["your_turn"]) == (True, 1, False)


@pytest.mark.usefixtures("transactional_db")
def test_returns_when_the_table_starts(
    open_table: Game, alice: User, bob: User, staff: User, api_as: Clients
) -> None:
    waiter = start_waiting(api_as(alice), open_table, after=0)

    services.game_start(game=open_table, by=staff, seed=7)

    seconds, _, body = waiter.outcome()
    open_table.refresh_from_db()
    assert seconds < TIMEOUT / 2
    assert body["status"] == "active"
    assert body["to_act"] == open_table.to_act
    assert body["your_turn"] is (open_table.to_act == 0)


@pytest.mark.usefixtures("transactional_db")
def test_returns_when_the_game_is_aborted(
    started: Game, bob: User, staff: User, api_as: Clients
) -> None:
    waiter = start_waiting(api_as(bob), started, after=0)

    services.game_abort(game=started, by=staff, reason="test")

    seconds, _, body = waiter.outcome()
    assert seconds < TIMEOUT / 2
    assert body == {
        "changed": False,
        "version": 0,
        "status": "aborted",
        "to_act": None,
        "your_turn": False,
    }


@pytest.mark.usefixtures("transactional_db")
def test_without_redis_the_wait_checks_the_database_instead(
    started: Game, alice: User, bob: User, api_as: Clients, settings: Any
) -> None:
    settings.REDIS_URL = ""  # the embedded defaults of make run
    waiter = start_waiting(api_as(bob), started, after=0)

    submit(api_as(alice), started, {"type": "discard", "card": "cabin"}, 0)

    seconds, _, body = waiter.outcome()
    assert seconds < TIMEOUT / 2
    assert (body["changed"], body["version"], body["your_turn"]) == (True, 1, True)
