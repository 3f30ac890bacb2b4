"""The seating figures each round of a tournament keeps."""

from __future__ import annotations

from dataclasses import asdict

import pytest

from accounts.models import User
from games.models import Game
from tests.tournaments.conftest import QUICK
from tournaments import recording, running, seating, tables
from tournaments.models import ChangeLog, Tournament, TournamentRound

pytestmark = pytest.mark.django_db


def field_of_eight(by: User, format: str, rounds: int) -> Tournament:
    tournament = running.tournament_create(
        by=by, name="Spring Cup", format=format, entrants="humans", play="recorded",
        rules=QUICK, rounds=rounds, table_sizes=[4], preferred_size=4, seed=7,
    )  # fmt: skip
    for i in range(8):
        running.entrant_add(tournament=tournament, by=by, name=f"P{i}")
    return tournament


def test_every_planned_round_keeps_the_figures_of_the_schedule_so_far(olga: User) -> None:
    tournament = field_of_eight(olga, "round_robin", 3)
    running.tournament_start(tournament=tournament, by=olga)

    rounds = list(TournamentRound.objects.filter(tournament=tournament).order_by("number"))
    plans = [r.plan for r in rounds]
    assert [r.quality for r in rounds] == [asdict(seating.quality(plans[:k])) for k in (1, 2, 3)]
    started = ChangeLog.objects.get(action="tournament_started")
    assert rounds[-1].quality == (started.after or {})["quality"]


def test_a_swiss_round_keeps_its_figures_when_it_is_seated(olga: User) -> None:
    tournament = field_of_eight(olga, "swiss", 2)
    first = running.tournament_start(tournament=tournament, by=olga)
    for table in tables.tournament_rounds([first])[first.pk]:
        game = Game.objects.get(pk=table.game)
        recording.round_record(game=game, by=olga, dollars=[300_000, 150_000, 50_000, 0])
    second = running.round_advance(tournament=tournament, number=1)

    assert second is not None
    plans = [first.plan, second.plan]
    assert second.quality == asdict(seating.quality(plans))
    assert first.quality == asdict(seating.quality(plans[:1]))
