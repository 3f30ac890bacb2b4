"""The "your turn" strip of every page, its refresh, and the API's ``?my_turn=true``."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from django.test import Client
from rest_framework.test import APIClient

from accounts.models import User
from games.models import Game
from tests.pages import text

pytestmark = pytest.mark.django_db


def _on_turn(game: Game) -> User:
    seat = game.seats.get(number=game.to_act or 0)
    assert seat.user is not None
    return seat.user


def test_every_page_names_the_games_waiting_on_you(client: Client, started: Game) -> None:
    player = _on_turn(started)
    client.force_login(player)

    home = client.get("/")
    leagues = client.get("/leagues/")
    strip = client.get("/your-turn/")

    for response in (home, leagues, strip):
        assert "Your turn in 1 game:" in text(response.content)
        assert f'href="/games/{started.pk}/"' in response.content.decode()
    assert 'data-count="1"' in strip.content.decode()


def test_others_and_visitors_see_no_strip(client: Client, started: Game) -> None:
    waiting = _on_turn(started)
    other = started.seats.exclude(user=waiting).first()
    assert other is not None
    assert other.user is not None

    visitor = client.get("/")
    client.force_login(other.user)
    seated = client.get("/your-turn/")

    assert 'id="your-turn"' not in visitor.content.decode()
    assert "Your turn" not in text(seated.content)
    assert 'data-count="0"' in seated.content.decode()


def test_the_api_lists_the_games_waiting_on_you(
    api_as: Callable[[User], APIClient], started: Game
) -> None:
    player = _on_turn(started)
    other = started.seats.exclude(user=player).first()
    assert other is not None
    assert other.user is not None

    mine = api_as(player).get("/api/v1/games/", {"my_turn": "true"}).json()
    theirs = api_as(other.user).get("/api/v1/games/", {"my_turn": "true"}).json()

    assert [g["id"] for g in mine["results"]] == [started.pk]
    assert theirs["results"] == []
