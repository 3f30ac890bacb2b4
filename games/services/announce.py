"""Telling the world once a change to a game has committed: the streams, the deadline
task, and a bot seat whose turn it is."""

from __future__ import annotations

from typing import Any, cast

from celery import Task, signature
from django.db import transaction

from cya_site import dispatch, metrics
from games import feed, notify, seating, signals
from games.engine import State
from games.models import Game

# games.tasks runs these services, so the deadline task is sent by its name: importing it
# here would close an import cycle (pyproject.toml's games contracts forbid one).
ENFORCE_DEADLINE = "games.enforce_deadline"


def after_commit(
    game: Game,
    state: State | None = None,
    bank: int | None = None,
    entries: list[dict[str, Any]] | None = None,
) -> dict[str, Any] | None:
    """Once the change commits: announce it (games.feed lines, built now from the rows and
    state this transaction wrote; games.signals ``game_ended`` for an ended game), schedule
    the new decision's deadline, and if a bot seat is to act, tell its player
    (games.seating). Returns the decision object announced to the seat to act, if any."""
    game_id, version, deadline, to_act = game.pk, game.version, game.deadline, game.to_act
    status, counted, rated = game.status, game.in_competition, game.rated
    bot_to_act = status == Game.Status.ACTIVE and game.to_act in game.bot_seats
    lines = feed.lines(game, state, bank, entries or ())

    def announce() -> None:  # best-effort both: the change has committed (cya_site.dispatch)
        if lines.end is not None:
            metrics.GAMES_ENDED.labels(status).inc()
            signals.game_ended.send_robust(  # errors logged
                sender=Game, game_id=game_id, in_competition=counted, rated=rated
            )
        notify.publish(game_id, (version, status, to_act), lines.update, lines.decision, lines.end)
        if deadline is not None:
            task = cast(Task[Any, Any], signature(ENFORCE_DEADLINE))  # a Task's apply_async
            dispatch.send(task, (game_id, version), eta=deadline)
        if bot_to_act:
            seating.players().turn(game_id, version)

    transaction.on_commit(announce)
    return lines.payload
