"""A game knows whether a competition counts it (``Game.in_competition``, issue 16).

Every way a game enters a competition (a tournament's tables of people or of bots, a
recorded real-table game, a league night's digital table) marks it as it writes the
game's entries (``tournaments.results.games_enter``). Its end is announced with the mark
(``games.signals.game_ended``), so the receiver sends ``take_result`` for a counted game
and spends nothing, not even a query, on every other end (the ladder's stream of games).
"""

from __future__ import annotations

import importlib
from typing import Any

import pytest
from django.apps import apps

from accounts.models import User
from bots.models import BotVersion
from bots.services import match_create
from bots.validation import builtin_versions
from cya_site import dispatch
from games import services as game_services
from games.engine import RuleSet
from games.models import Game
from games.signals import game_ended
from tests.tournaments.conftest import QUICK, Club, people_round_robin, recorded_game
from tournaments import running, services, tasks
from tournaments.models import GameEntry, Tournament

MIGRATION = importlib.import_module("tournaments.migrations.0003_games_in_competition")


def counted(*games: Game) -> list[bool]:
    """Each game's mark as the database holds it."""
    marks = dict(
        Game.objects.filter(pk__in=[g.pk for g in games]).values_list("pk", "in_competition")
    )
    return [marks[g.pk] for g in games]


def tournament_games(tournament: Tournament) -> list[Game]:
    return list(
        Game.objects.filter(competition_entries__competition=tournament.competition).distinct()
    )


def bot_tournament(by: User, versions: list[BotVersion]) -> Tournament:
    tournament = running.tournament_create(
        by=by, name="Bot Cup", format="round_robin", entrants=Tournament.Entrants.BOTS,
        rules=QUICK, rounds=1, table_sizes=[2], preferred_size=2, seed=5,
    )  # fmt: skip
    for version in versions:
        running.entrant_add(tournament=tournament, by=by, bot_version=version)
    running.tournament_start(tournament=tournament, by=by)
    return tournament


def lobby_game(players: list[User]) -> Game:
    game = game_services.game_create(by=players[0], rules=RuleSet.preset("2021", seats=2))
    game_services.game_join(game=game, user=players[1])
    return game_services.game_start(game=game, by=players[0])


def test_every_way_into_a_competition_marks_the_game_and_nothing_else_does(
    club: Club, olga: User, alice: User, bob: User, carol: User, staff: User
) -> None:
    people = tournament_games(people_round_robin([alice, bob, carol, staff], olga, rounds=1))
    bots = tournament_games(bot_tournament(staff, builtin_versions()[:2]))
    real_table = recorded_game(club, olga, ["Alice", "Bob", "Dora"])
    night_table = services.night_digital_game(
        night=club.night, by=olga, competitors=club.at("Alice", "Bob")
    )
    lobby = lobby_game([alice, bob])
    ladder = match_create(versions=builtin_versions()[:2], rules=RuleSet.preset("2021", seats=2))
    ladder_games = list(Game.objects.filter(match_game__match=ladder))

    assert (len(people), len(bots), len(ladder_games)) == (2, 1, 2)
    assert counted(*people, *bots, real_table, night_table) == [True] * 5
    assert counted(lobby, *ladder_games) == [False] * 3
    # the services hand back the game as marked, so an end in the same breath is counted
    assert (real_table.in_competition, night_table.in_competition) == (True, True)
    marked = Game.objects.filter(in_competition=True).values_list("pk", flat=True)
    assert set(marked) == set(GameEntry.objects.values_list("game_id", flat=True))


def test_an_end_is_announced_with_the_mark_and_only_a_counted_one_sends_a_task(
    club: Club,
    olga: User,
    alice: User,
    bob: User,
    monkeypatch: pytest.MonkeyPatch,
    django_capture_on_commit_callbacks: Any,
    django_assert_num_queries: Any,
) -> None:
    sent: list[tuple[str, tuple[Any, ...]]] = []
    monkeypatch.setattr(
        dispatch, "send", lambda task, args=(), **kw: sent.append((task.name, args))
    )
    announced: list[tuple[int, bool]] = []

    def listen(sender: object, game_id: int, in_competition: bool, **kwargs: object) -> None:
        announced.append((game_id, in_competition))

    game_ended.connect(listen, dispatch_uid="test_games_counted")
    try:
        table = services.night_digital_game(
            night=club.night, by=olga, competitors=club.at("Alice", "Bob")
        )
        lobby = lobby_game([alice, bob])
        for game in (lobby, table):
            with django_capture_on_commit_callbacks(execute=True):
                game_services.game_resign(game=game, user=alice)
    finally:
        game_ended.disconnect(dispatch_uid="test_games_counted")

    assert announced == [(lobby.pk, False), (table.pk, True)]
    assert sent == [("tournaments.take_result", (table.pk,))]
    with django_assert_num_queries(0):  # the ladder's every end: nothing asked of the database
        tasks.on_game_ended(sender=Game, game_id=lobby.pk, in_competition=False)
        tasks.on_game_ended(sender=Game, game_id=table.pk, in_competition=True)
    assert sent[-1] == ("tournaments.take_result", (table.pk,))


def test_the_migration_marks_the_games_competitions_already_counted(
    club: Club, olga: User, alice: User, bob: User
) -> None:
    real_table = recorded_game(club, olga, ["Alice", "Bob"])
    lobby = lobby_game([alice, bob])
    Game.objects.update(in_competition=False)  # as every game stood before games 0009

    MIGRATION.mark(apps, None)

    assert counted(real_table, lobby) == [True, False]
