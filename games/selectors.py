"""Reads that need more than a queryset: views of a game for a seat, a spectator, a replay.

The rows come through games.store (the hot seat read is ``store.seat_at``); these shape
them for the API, the pages and the bots."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db.models import F, Prefetch, QuerySet

from accounts.models import User
from games import store
from games.engine import State, decision_object, observe
from games.models import Event, Game, Round, RoundScore, Seat


def overdue_decisions(now: datetime) -> QuerySet[Game]:
    """Active games whose timed decision is overdue by more than SWEEP_AFTER_SECONDS: their
    deadline task was lost (``games.sweep_deadlines`` enforces them; ``manage.py status``
    counts them)."""
    overdue = now - timedelta(seconds=settings.SWEEP_AFTER_SECONDS)
    return Game.objects.filter(
        status=Game.Status.ACTIVE, decision_seconds__isnull=False, deadline__lt=overdue
    )


def games_waiting_on(user: User) -> QuerySet[Game]:
    """Games in play whose decision is the user's seat's (a turn, a defence, an answer),
    the nearest deadline first: what the "your turn" strip lists and ``?my_turn=true``."""
    return Game.objects.filter(
        status=Game.Status.ACTIVE,
        mode=Game.Mode.DIGITAL,
        seats__user=user,
        seats__number=F("to_act"),
    ).order_by(F("deadline").asc(nulls_last=True), "id")


def game_list() -> QuerySet[Game]:
    """Games with their seats and players, newest first."""
    return Game.objects.select_related("created_by").prefetch_related(
        Prefetch("seats", queryset=Seat.objects.select_related("user").order_by("number")),
        Prefetch(
            "rounds",
            queryset=Round.objects.prefetch_related(
                Prefetch("scores", queryset=RoundScore.objects.select_related("seat"))
            ),
        ),
    )


def seat_number(game: Game, user: User | Any) -> int | None:
    """The user's seat at this table, if any (anonymous users have none)."""
    if not isinstance(user, User):
        return None
    for seat in game.seats.all():
        if seat.user_id == user.pk:
            return seat.number
    return None


def observation(game: Game, seat: int | None) -> dict[str, Any]:
    """What ``seat`` (or a spectator, for None) may know of the game right now."""
    return observe(store.load_state(game), seat)


def decision(game: Game, seat: Seat) -> dict[str, Any] | None:
    """The decision ``seat`` must make now, with its legal actions, or None."""
    if game.status != Game.Status.ACTIVE or game.to_act != seat.number:
        return None
    state = store.load_state(game)
    return decision_payload(game.pk, state, deadline=game.deadline, time_bank_ms=seat.time_bank_ms)


def decision_payload(
    game_id: int, state: State, *, deadline: datetime | None, time_bank_ms: int | None
) -> dict[str, Any]:
    """The decision object for the seat to act: the one contract of humans, bots, webhooks
    (built by the engine, so the SDK's local runner sends bots the very same object)."""
    return decision_object(state, game=game_id, deadline=deadline, time_bank_ms=time_bank_ms)


def public_events(game: Game, after: int, limit: int) -> list[dict[str, Any]]:
    """The public part of the log after ``after``: what everyone saw, never the actions."""
    return [store.public_entry(e) for e in store.entries(game, after, limit)]


def replay(game: Game) -> dict[str, Any]:
    """The whole record of an ended game: seed, rules and every action with its events
    (a fork's log starts from its parent's position: ``fork``)."""
    return {
        "game": game.pk,
        "seed": game.seed,
        "rules": game.rules,
        "fork": fork_origin(game),
        "log": [
            {
                "seq": e.seq,
                "seat": e.seat,
                "action": e.action,
                "origin": e.origin,
                "events": e.public_events,
            }
            for e in store.entries(game)
        ],
    }


def fork_steps(game: Game) -> range:
    """The steps a table can be forked from (services.game_fork), for a replay viewer's
    fork button: none before the game has ended (or for a game recorded at a real table,
    which has no log); every step of an aborted game; every step but the last of a
    finished one (after it the game is over)."""
    ended = game.status in (Game.Status.FINISHED, Game.Status.ABORTED)
    if not ended or game.mode != Game.Mode.DIGITAL or game.seed is None:
        return range(0)
    return range(game.version + (game.status == Game.Status.ABORTED))


def fork_origin(game: Game) -> dict[str, Any] | None:
    """Where a forked game started (its parent, the step, whether re-dealt); None if it is
    not a fork. Public: the seed that re-dealt it stays secret until it ends."""
    if game.forked_from_id is None:
        return None
    return {"game": game.forked_from_id, "step": game.fork_step, "redeal": game.fork_redeal}


def replay_view(game: Game, seat: int | None, step: int) -> dict[str, Any]:
    """What ``seat`` (or a spectator) saw after ``step`` actions of an ended game."""

    state = store.initial_state(game)
    for code in store.codes(game, 0, step):
        state = store.replay_one(state, code)
    return observe(state, seat)


def decision_began(game_id: int, version: int) -> datetime | None:
    """When the decision at ``version`` came: the log entry that made it (the deal for the
    first); None if the log holds no such row (a playout's step, a fork's past)."""
    return (
        Event.objects.filter(game_id=game_id, seq=version)
        .values_list("created_at", flat=True)
        .first()
    )
