"""Reads that need more than a queryset: views of a game for a seat, a spectator, a replay."""

from __future__ import annotations

from datetime import datetime, timedelta
from functools import cache
from typing import Any, cast

from django.conf import settings
from django.db import connection
from django.db.models import Prefetch, QuerySet

from accounts.models import User
from cya_site import rows
from cya_site.errors import DomainError
from games import eventlog, store
from games.engine import State, action_to_json, legal_actions, observe
from games.engine.state import DECISION_NAMES
from games.models import Event, Game, GameSnapshot, Round, RoundScore, Seat
from games.store import replay_one


def overdue_decisions(now: datetime) -> QuerySet[Game]:
    """Active games whose timed decision is overdue by more than SWEEP_AFTER_SECONDS: their
    deadline task was lost (``games.sweep_deadlines`` enforces them; ``manage.py status``
    counts them)."""
    overdue = now - timedelta(seconds=settings.SWEEP_AFTER_SECONDS)
    return Game.objects.filter(
        status=Game.Status.ACTIVE, decision_seconds__isnull=False, deadline__lt=overdue
    )


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


_SEAT, _GAME, _SNAPSHOT, _ENTRY = (
    rows.Columns(Seat, "s"),
    rows.Columns(Game, "g"),
    rows.Columns(GameSnapshot, "n"),
    rows.Columns(Event, "e"),
)


def seat_at(game_id: int, user: User, *, lock: bool = False) -> Seat:
    """The user's seat at a game, with the game row and its snapshot, in one query.

    Every decision read and every action runs this, so it is one statement built once
    (cya_site.rows). ``lock`` also locks the game row until the transaction ends.
    Raises DomainError ``not_found`` (404) for no such game and ``not_seated`` (403)
    for a game the user has no seat at.
    """
    return _seat(_seat_sql(lock, False), [game_id, user.pk], game_id)[0]


def seat_and_entry(game_id: int, user: User, key: str) -> tuple[Seat, Event | None]:
    """``seat_at``, and the game's log entry sent with Idempotency-Key ``key`` if there is
    one (by anyone), in the same query: a retry is recognised at no extra cost."""
    return _seat(_seat_sql(False, True), [key, game_id, user.pk], game_id, _ENTRY)


def _seat(
    sql: str, params: list[Any], game_id: int, *extra: rows.Columns
) -> tuple[Seat, Event | None]:
    found = rows.fetch_one(sql, params, (_SEAT, _GAME, _SNAPSHOT, *extra))
    if found is None:
        if not Game.objects.filter(pk=game_id).exists():
            raise DomainError("not_found", "No such game.", status=404)
        raise DomainError("not_seated", "You have no seat at this table.", status=403)
    seat, game, snapshot, *entry = found
    Seat.game.field.set_cached_value(seat, game)
    with_snapshot(game, snapshot)
    return cast(Seat, seat), cast(Event | None, entry[0] if entry else None)


def with_snapshot(game: Game, snapshot: GameSnapshot | None) -> Game:
    """Cache a snapshot read in the game's query on both (store.load_state reads it there)."""
    Game.snapshot.related.set_cached_value(game, snapshot)
    if snapshot is not None:
        GameSnapshot.game.field.set_cached_value(snapshot, game)
    return game


@cache
def _seat_sql(lock: bool, entry: bool) -> str:
    columns = f"{_SEAT.sql}, {_GAME.sql}, {_SNAPSHOT.sql}"
    joins = ""
    if entry:  # the partial unique index on (game, key) serves it: keys are never empty
        columns += f", {_ENTRY.sql}"
        joins = (
            f" LEFT JOIN {_ENTRY.table} ON e.game_id = g.id"
            " AND e.idempotency_key = %s AND e.idempotency_key <> ''"
        )
    sql = (
        f"SELECT {columns} FROM {_SEAT.table}"
        f" JOIN {_GAME.table} ON g.id = s.game_id"
        f" LEFT JOIN {_SNAPSHOT.table} ON n.game_id = g.id{joins}"
        " WHERE s.game_id = %s AND s.user_id = %s"
    )
    if lock and connection.features.has_select_for_update:
        sql += " FOR UPDATE OF g" if connection.features.has_select_for_update_of else " FOR UPDATE"
    return sql


def decision(game: Game, seat: Seat) -> dict[str, Any] | None:
    """The decision ``seat`` must make now, with its legal actions, or None."""
    if game.status != Game.Status.ACTIVE or game.to_act != seat.number:
        return None
    state = store.load_state(game)
    return decision_payload(game.pk, state, deadline=game.deadline, time_bank_ms=seat.time_bank_ms)


def decision_payload(
    game_id: int, state: State, *, deadline: datetime | None, time_bank_ms: int | None
) -> dict[str, Any]:
    """The decision object for the seat to act: the one contract of humans, bots, webhooks."""
    seat = state.to_act
    edition = state.rules.edition
    return {
        "decision_id": f"{game_id}:{state.version}",
        "game": game_id,
        "seat": seat,
        "kind": DECISION_NAMES[state.kind],
        "version": state.version,
        "legal_actions": [action_to_json(a, edition) for a in legal_actions(state)],
        "deadline": deadline,
        "time_bank_ms": time_bank_ms,
        "observation": observe(state, seat),
    }


def public_events(game: Game, after: int, limit: int) -> list[dict[str, Any]]:
    """The public part of the log after ``after``: what everyone saw, never the actions."""
    return [
        {"seq": e.seq, "seat": e.seat, "events": e.public_events}
        for e in eventlog.entries(game, after, limit)
    ]


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
            for e in eventlog.entries(game)
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

    state = eventlog.initial_state(game)
    for code in eventlog.codes(game, 0, step):
        state = replay_one(state, code)
    return observe(state, seat)
