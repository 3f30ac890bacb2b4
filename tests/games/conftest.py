"""Fixtures for games tests: tables of the named cast, started or not, and API players."""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from rest_framework.test import APIClient

from accounts.models import User
from games import services, store
from games.engine import RuleSet, State
from games.models import Game
from games.store import vendor


@pytest.fixture(params=["postgresql", "orm"])
def store_path(request: pytest.FixtureRequest) -> Iterator[str]:
    """Run the test on each of games.store's paths: its PostgreSQL statements, and their
    ORM twins (what SQLite runs under ``make run``), forced on the suite's database."""
    if request.param == "orm":
        with vendor.orm_fallback():
            yield "orm"
    else:
        yield "postgresql"


@pytest.fixture
def open_table(alice: User, bob: User) -> Game:
    """A two-seat 2021 table alice created and bob joined, not yet started."""
    game = services.game_create(by=alice, rules=RuleSet.preset("2021", seats=2))
    services.game_join(game=game, user=bob)
    return game


@pytest.fixture
def started(alice: User, bob: User, carol: User, staff: User) -> Game:
    """A three-seat 2021 game (alice 0, bob 1, carol 2) dealt from seed 7 by staff."""
    game = services.game_create(by=alice, rules=RuleSet.preset("2021", seats=3))
    services.game_join(game=game, user=bob)
    services.game_join(game=game, user=carol)
    return services.game_start(game=game, by=staff, seed=7)


def play_to_end(
    game: Game,
    clients: dict[int, APIClient],
    *,
    rng: random.Random,
    limit: int = 5000,
) -> list[dict[str, Any]]:
    """Answer every decision through the HTTP API with a random legal action until the end.

    ``clients`` maps seat numbers to that seat's authenticated client. The action response
    names the next seat to act, and carries the actor's own next decision, so most
    decisions cost one GET and one POST. Returns the bodies of every action response.
    """
    bodies: list[dict[str, Any]] = []
    detail = next(iter(clients.values())).get(f"/api/v1/games/{game.pk}/").json()
    to_act, decision = detail["to_act"], None
    for _ in range(limit):
        if to_act is None:
            return bodies
        client = clients[to_act]
        if decision is None:
            decision = client.get(f"/api/v1/games/{game.pk}/decision/").json()["decision"]
        response = client.post(
            f"/api/v1/games/{game.pk}/actions/",
            {"action": rng.choice(decision["legal_actions"]), "version": decision["version"]},
            format="json",
        )
        assert response.status_code == 201, response.json()
        body = response.json()
        bodies.append(body)
        to_act, decision = body["game"]["to_act"], body["decision"]
    raise AssertionError(f"game {game.pk} did not end within {limit} decisions")


@pytest.fixture
def clients_for(api_as: Callable[[User], APIClient]) -> Callable[[Game], dict[int, APIClient]]:
    """Authenticated clients for every seated player of a game, by seat number."""

    def build(game: Game) -> dict[int, APIClient]:
        return {seat.number: api_as(seat.user) for seat in game.seats.all() if seat.user}

    return build


def game_url(game: Game | int, endpoint: str = "") -> str:
    """The URL of a game, or of one of its endpoints (``"actions"``, ``"replay/view"``)."""
    pk = game if isinstance(game, int) else game.pk
    return f"/api/v1/games/{pk}/" + (f"{endpoint}/" if endpoint else "")


def engine_state(game: Game) -> State:
    """The game's engine state, rebuilt from the database (seed, snapshot and log)."""
    game.refresh_from_db()
    store.forget(game.pk)
    return store.load_state(game)


def submit(client: APIClient, game: Game, action: Any, version: int, key: str | None = None) -> Any:
    """POST one action to the action endpoint; ``key`` is sent as the Idempotency-Key."""
    headers = {} if key is None else {"Idempotency-Key": key}
    return client.post(
        game_url(game, "actions"),
        {"action": action, "version": version},
        format="json",
        headers=headers,
    )
