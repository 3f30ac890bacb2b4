"""Whole games played through the HTTP API, one per ending mode (RULES #24)."""

from __future__ import annotations

import random
from collections.abc import Callable

import pytest
from rest_framework.test import APIClient

from accounts.models import User
from games.engine import RuleSet, replay
from games.models import Event, Game, Round, RoundScore
from tests.games.conftest import play_to_end


@pytest.mark.parametrize(
    ("seats", "options"),
    [
        (4, {"target": 400_000}),  # classic, over rounds; a lower target keeps the test short
        (3, {"ending": "quick"}),
        (2, {"ending": "highest_after_n"}),
        (4, {"ending": "first_to_n_round_wins"}),
        (3, {"ending": "quick", "tie_policy": "shared_win", "advanced": {"penny_jar": True}}),
    ],
)
def test_a_game_played_through_the_api_ends_with_results_stored_as_rows(
    seats: int,
    options: dict[str, object],
    alice: User,
    bob: User,
    carol: User,
    staff: User,
    api_as: Callable[[User], APIClient],
) -> None:
    players = [alice, bob, carol, staff][:seats]
    creator = api_as(alice)
    created = creator.post("/api/v1/games/", {"seats": seats, "options": options}, format="json")
    assert created.status_code == 201, created.json()
    game_id = created.json()["id"]
    for user in players[1:]:
        assert (
            api_as(user).post(f"/api/v1/games/{game_id}/join/", {}, format="json").status_code
            == 200
        )
    started = api_as(staff).post(f"/api/v1/games/{game_id}/start/", {"seed": 11}, format="json")
    assert started.status_code == 200, started.json()

    game = Game.objects.get(pk=game_id)
    clients = {n: api_as(u) for n, u in enumerate(players)}
    play_to_end(game, clients, rng=random.Random(seats))

    game.refresh_from_db()
    assert game.status == "finished"
    assert game.winners
    rules = RuleSet.from_json(game.rules)
    entries = Event.objects.filter(game=game, seq__gt=0).order_by("seq")
    log = [code for code in entries.values_list("action_code", flat=True) if code is not None]
    assert game.seed == 11
    final = replay(rules, game.seed, log)
    assert final.over
    assert list(final.winners) == game.winners
    rounds = Round.objects.filter(game=game).count()
    assert rounds == final.round
    assert RoundScore.objects.filter(round__game=game).count() == rounds * seats
    last = RoundScore.objects.filter(round__game=game, round__number=rounds).order_by(
        "seat__number"
    )
    assert [r.tally for r in last] == list(final.tallies)
    seats_rows = {s.number: s for s in game.seats.all()}
    assert {n for n, s in seats_rows.items() if s.is_winner} == set(final.winners)
    detail = creator.get(f"/api/v1/games/{game_id}/").json()
    assert detail["seed"] == 11
    assert [r["tallies"] for r in detail["rounds"]][-1] == list(final.tallies)
