"""The live games page: digital games being played, by player name, cheaply."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client

from accounts.models import User
from games import services
from games.engine import RuleSet
from tests.pages import BUDGET, text, transfer_size

pytestmark = pytest.mark.django_db


def test_the_live_games_page_names_the_players_of_games_in_play(
    client: Client, alice: User, bob: User, staff: User, django_assert_max_num_queries: Any
) -> None:
    for _ in range(3):
        game = services.game_create(by=alice, rules=RuleSet.preset("2021", seats=2))
        services.game_join(game=game, user=bob)
        services.game_start(game=game, by=staff, seed=1)

    with django_assert_max_num_queries(6):
        response = client.get("/games/")

    page = text(response.content)
    assert response.status_code == 200
    assert page.count("alice, bob") == 3
    assert transfer_size(client, "/games/") < BUDGET
