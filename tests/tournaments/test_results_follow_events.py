"""Standings follow events (issue 16): a competition game's end takes its result in and
closes its round through ``tournaments.take_result``, sent after the end commits; the
periodic ``sync_results`` is only a safety net over the last ``RESULTS_SWEEP_HOURS``."""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone
from pytest_django import Settings
from rest_framework.test import APIClient

from accounts.models import User
from cya_site import dispatch
from games import services as game_services
from games.engine import RuleSet
from games.models import Game
from tests.factories import UserFactory
from tests.games.conftest import play_to_end
from tests.tournaments.conftest import people_round_robin
from tournaments import rounds, selectors, tasks
from tournaments.models import Result, Tournament, TournamentRound

Clients = Callable[[User], APIClient]


def round_games(tournament: Tournament, number: int) -> list[Game]:
    return list(
        Game.objects.filter(
            competition_entries__round__tournament=tournament,
            competition_entries__round__number=number,
        )
        .distinct()
        .order_by("pk")
    )


def play(game: Game, api_as: Clients) -> None:
    seated = {s.number: api_as(s.user) for s in game.seats.select_related("user") if s.user}
    play_to_end(game, seated, rng=random.Random(game.pk))


def wait_for(condition: Callable[[], bool], what: str, timeout: float = 60) -> None:
    give_up = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > give_up:
            raise AssertionError(f"{what}: not within {timeout} s")
        time.sleep(0.1)


def first_player(game: Game) -> User:
    user = game.seats.get(number=0).user
    assert user is not None
    return user


def round_status(tournament: Tournament, number: int) -> str:
    return TournamentRound.objects.values_list("status", flat=True).get(
        tournament=tournament, number=number
    )


@pytest.fixture
def four() -> list[User]:
    return [UserFactory.create(username=name) for name in ("ann", "ben", "cat", "dan")]


@pytest.mark.usefixtures("transactional_db")
def test_a_finished_table_reaches_the_standings_and_closes_its_round_with_no_sweep(
    celery_worker: str, four: list[User], api_as: Clients
) -> None:
    olga = UserFactory.create(username="olga")
    tournament = people_round_robin(four, olga)
    first, second = round_games(tournament, 1)

    play(first, api_as)
    wait_for(
        lambda: Result.objects.filter(game=first, valid_to__isnull=True).count() == 2,
        "the first table's result taken in",
    )
    assert round_status(tournament, 1) == TournamentRound.Status.PLAYING  # a table plays on
    played = {r["name"]: r["games"] for r in selectors.standings(tournament.competition)}
    assert sorted(played.values()) == [0, 0, 1, 1]

    play(second, api_as)
    wait_for(
        lambda: round_status(tournament, 1) == TournamentRound.Status.FINISHED,
        "the round closed by its last table's end",
    )
    assert round_status(tournament, 2) == TournamentRound.Status.PLAYING
    standings = selectors.standings(tournament.competition)
    assert [r["games"] for r in standings] == [1, 1, 1, 1]


def test_taking_a_result_in_twice_changes_nothing_more(
    db: None, four: list[User], django_capture_on_commit_callbacks: Any
) -> None:
    olga = UserFactory.create(username="olga")
    tournament = people_round_robin(four, olga)
    game = round_games(tournament, 1)[0]
    loser = first_player(game)
    game_services.game_resign(game=game, user=loser)

    assert rounds.game_ended(game_id=game.pk) == 1
    rows = list(Result.objects.filter(game=game).values_list("pk", "valid_to"))
    assert rounds.game_ended(game_id=game.pk) == 0
    assert list(Result.objects.filter(game=game).values_list("pk", "valid_to")) == rows
    assert len(rows) == 2
    assert rounds.game_ended(game_id=10**9) == 0  # a game deleted since: nothing to do


def test_only_a_competition_games_end_sends_a_task(
    db: None,
    four: list[User],
    monkeypatch: pytest.MonkeyPatch,
    django_capture_on_commit_callbacks: Any,
) -> None:
    sent: list[tuple[str, tuple[Any, ...]]] = []
    monkeypatch.setattr(
        dispatch, "send", lambda task, args=(), **kw: sent.append((task.name, args))
    )
    olga = UserFactory.create(username="olga")
    tournament = people_round_robin(four, olga)
    table = round_games(tournament, 1)[0]
    lobby = game_services.game_create(
        by=four[0], rules=RuleSet.preset("2021", seats=2), auto_start=True
    )
    game_services.game_join(game=lobby, user=four[1])

    with django_capture_on_commit_callbacks(execute=True):
        game_services.game_resign(game=lobby, user=four[0])
    with django_capture_on_commit_callbacks(execute=True):
        game_services.game_resign(game=table, user=first_player(table))

    assert [s for s in sent if s[0] == "tournaments.take_result"] == [
        ("tournaments.take_result", (table.pk,))
    ]


def test_the_safety_net_looks_back_only_results_sweep_hours(
    db: None, four: list[User], settings: Settings
) -> None:
    """A result whose task was lost is taken in by the sweep while it is recent; an older
    game is not rescanned, until its round closes and takes every table of it in."""
    settings.RESULTS_SWEEP_HOURS = 2
    olga = UserFactory.create(username="olga")
    tournament = people_round_robin(four, olga)
    old, recent = round_games(tournament, 1)
    game_services.game_resign(game=old, user=first_player(old))  # its task was lost
    Game.objects.filter(pk=old.pk).update(finished_at=timezone.now() - timedelta(hours=3))

    assert tasks.sync_results() == 0
    assert not Result.objects.filter(game=old).exists()

    game_services.game_resign(game=recent, user=first_player(recent))  # lost too
    assert tasks.sync_results() == 1

    assert Result.objects.filter(game=recent).count() == 2
    assert Result.objects.filter(game=old).count() == 2  # taken in as its round closed
    assert round_status(tournament, 1) == TournamentRound.Status.FINISHED
