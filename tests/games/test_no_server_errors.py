"""No game endpoint answers 500, whatever kind of game it is asked about (issue 26).

Every route of the games API (the retrieve and each detail action, as the router lists
them) is called by an anonymous client, a seated player and staff, with an empty body, a
plausible one and one with an unknown field, against a table not yet started, a game in
play, a game played at a real table (recorded: it has no deal), a finished game and a
voided one. Each answer is a success or a refusal with a stable code, never a 500.
The stream (games/<id>/stream/) is served by the ASGI application and tested there.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from rest_framework.test import APIClient

from accounts.models import User
from games import services
from games.api.views import GameViewSet
from games.engine import RuleSet
from games.models import Game
from tests.games.conftest import game_url, play_to_end

QUICK_2 = RuleSet.preset("2021", seats=2, ending="quick")
BODIES: tuple[dict[str, Any], ...] = (
    {},
    {"version": 0, "action": {"type": "discard", "card": "jewels"}, "seat": 0, "step": 1},
    {"surprise": True},
)


def routes() -> Iterator[tuple[str, str]]:
    """(method, endpoint) for every detail route of the games API; "" is the game itself."""
    yield "get", ""
    for action in GameViewSet.get_extra_actions():
        extra: Any = action  # DRF's @action sets these on the function
        if extra.detail:
            for method in extra.mapping:
                yield method, extra.url_path


ROUTES = sorted(set(routes()))


@pytest.fixture
def games_of_every_kind(
    alice: User,
    bob: User,
    staff: User,
    clients_for: Callable[[Game], dict[int, APIClient]],
) -> dict[str, Game]:
    """alice sits at each: open, in play, recorded at a real table, finished, voided."""
    open_ = services.game_create(by=alice, rules=QUICK_2)
    playing = services.game_create(by=alice, rules=QUICK_2)
    services.game_join(game=playing, user=bob)
    services.game_start(game=playing, by=staff, seed=3)
    recorded = services.recorded_game_create(by=alice, rules=QUICK_2, players=[alice, bob])
    finished = services.game_create(by=alice, rules=QUICK_2)
    services.game_join(game=finished, user=bob)
    services.game_start(game=finished, by=staff, seed=4)
    play_to_end(finished, clients_for(finished), rng=random.Random(4))
    voided = services.game_create(by=alice, rules=QUICK_2)
    services.game_join(game=voided, user=bob)
    services.game_start(game=voided, by=staff, seed=5)
    services.game_abort(game=voided, by=staff, reason="test")
    return {
        "open": open_,
        "playing": playing,
        "recorded": recorded,
        "finished": finished,
        "voided": voided,
    }


@pytest.mark.parametrize(("method", "endpoint"), ROUTES, ids=[f"{m}-{e}" for m, e in ROUTES])
def test_no_game_endpoint_answers_500_for_any_kind_of_game(
    method: str,
    endpoint: str,
    games_of_every_kind: dict[str, Game],
    api: APIClient,
    api_as: Callable[[User], APIClient],
    alice: User,
    staff: User,
) -> None:
    callers = {"anonymous": api, "seated": api_as(alice), "staff": api_as(staff)}
    for kind, game in games_of_every_kind.items():
        for who, client in callers.items():
            for body in BODIES:
                url = game_url(game, endpoint)
                if method == "get":
                    query = {"timeout": "0"} if endpoint == "wait" else {}
                    response = client.get(url, {**query, **_as_query(body)})
                else:
                    response = client.post(url, body, format="json")
                where = f"{method.upper()} {endpoint or 'game'} on a {kind} game as {who}: {body}"
                assert response.status_code < 500, where
                if response.status_code >= 400:
                    assert response.json()["code"], where


def _as_query(body: dict[str, Any]) -> dict[str, str]:
    return {k: str(v) for k, v in body.items() if not isinstance(v, dict)}


def test_a_game_played_at_a_real_table_refuses_what_only_a_dealt_game_has(
    alice: User, bob: User, api_as: Callable[[User], APIClient]
) -> None:
    """Resigning raised ValueError ("has not been dealt"), a 500 (issue 26); observing it
    said "not started yet". Each now says it is played with real cards, and changes nothing."""
    game = services.recorded_game_create(by=alice, rules=QUICK_2, players=[alice, bob])
    client = api_as(alice)
    action = {"version": 0, "action": {"type": "discard", "card": "jewels"}}
    for response in (
        client.post(game_url(game, "resign")),
        client.post(game_url(game, "actions"), action, format="json"),
        client.get(game_url(game, "observation")),
        client.get(game_url(game, "replay")),
        client.get(game_url(game, "replay/view"), {"step": 0}),
    ):
        assert (response.status_code, response.json()["code"]) == (409, "recorded_game")
    game.refresh_from_db()
    assert (game.status, game.version) == (Game.Status.ACTIVE, 0)
