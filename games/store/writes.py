"""Writing a game's log: an entry with every row it changes, or nothing (part of games.store).

Either shape of entry (games.models ``Event`` or ``Playout``) is written by ``append``: on
PostgreSQL one statement (games.store.statements) that writes it with every row it changes
(the game row, its snapshot, rounds with their scores, the seats' places) only if the game
is still at the version it was played from; through the ORM on other databases (SQLite
under ``make run``), the choice being games.store.vendor's. An action is one statement,
and so is a whole game of built-in seats; several games' entries go in one round trip
(``append_all``). The tests run every write both ways (tests/games/test_store_paths.py).
"""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import ExitStack
from datetime import datetime
from typing import Any, NamedTuple

from django.db import transaction

from cya_site import rows
from games.engine import State
from games.models import Event, Game, GameSnapshot, Playout, Round, RoundScore, Seat
from games.store import statements, states, vendor


class Append(NamedTuple):
    """One entry to append to a game's log, with the rows it changes (``append``)."""

    game: Game
    start: int
    entry: Event | Playout
    fields: Sequence[str]
    state: State
    publics: Sequence[dict[str, Any]] = ()
    ranking: Sequence[dict[str, Any]] | None = None
    seat: tuple[Seat, Sequence[str]] | None = None


def append(
    game: Game,
    start: int,
    entry: Event | Playout,
    *,
    fields: Sequence[str],
    state: State,
    publics: Sequence[dict[str, Any]] = (),
    ranking: Sequence[dict[str, Any]] | None = None,
    seat: tuple[Seat, Sequence[str]] | None = None,
) -> bool:
    """Append ``entry`` to the log of a game that is still active at version ``start``,
    with every row it changes: the game row's ``fields``, its snapshot (``state``, the
    state the entry leads to, which this process's cache learns once the write commits:
    games.store.states), the rounds and scores of the ``round_end`` events in ``publics``, the
    seats' final places if the game ended (``ranking``), and the named fields of one
    ``seat``. False, and nothing written, if the game moved on or ended meanwhile.

    On PostgreSQL this is one statement, atomic on its own, whose every part draws its
    rows from the guarded UPDATE of the game row (``WHERE status = 'active' AND version
    = start``): no part writes unless that one did. The UPDATE holds the row's lock to
    the end of the statement, so a concurrent append for the same version waits, then
    finds the version moved on and writes nothing. Elsewhere (SQLite under ``make run``)
    the same rows go through the ORM in one transaction under the game's lock.
    Raises IntegrityError if the entry breaks a constraint (a reused idempotency key).
    """
    return _append_one(Append(game, start, entry, fields, state, publics, ranking, seat))


def append_all(items: Sequence[Append]) -> list[bool]:
    """``append`` each of ``items`` (entries of different games), in one round trip: whether
    each was written. On PostgreSQL the statements are sent together and run as one
    implicit transaction (rows.pipeline); elsewhere one after the other in a transaction.
    Either way an error writes none of them."""
    if len(items) < 2:
        return [_append_one(item) for item in items]
    if not vendor.native():
        with transaction.atomic():
            return [_append_one(item) for item in items]
    snapshots = [states.snapshot_bytes(item.state) for item in items]
    sent = [_statement(item, data) for item, data in zip(items, snapshots, strict=True)]
    with ExitStack() as stack:
        cursors = [stack.enter_context(rows.cursor()) for _ in items]
        with rows.pipeline():
            for cursor, statement in zip(cursors, sent, strict=True):
                cursor.execute(*statement)
        found = [cursor.fetchone()[0] for cursor in cursors]
    return [
        _appended(item, data, pk) for item, data, pk in zip(items, snapshots, found, strict=True)
    ]


def _append_one(item: Append) -> bool:
    data = states.snapshot_bytes(item.state)
    if not vendor.native():
        written = _append_orm(_placed(item), data)
        return written and _appended(item, data, item.entry.pk)
    sql, params = _statement(item, data)
    with rows.cursor() as cursor:
        cursor.execute(sql, params)
        pk = cursor.fetchone()[0]
    return _appended(item, data, pk)


def _placed(item: Append) -> Append:
    """The append with the acting seat's final place among its own fields.

    A statement updates a row once (the last of two updates of it would be lost): the
    seat's place is written with its other fields, the others' by the ranking's rows."""
    if item.seat is None or item.ranking is None:
        return item
    instance, names = item.seat
    _place(instance, next(row for row in item.ranking if row["seat"] == instance.number))
    return item._replace(
        seat=(instance, (*names, *PLACE_FIELDS)),
        ranking=[row for row in item.ranking if row["seat"] != instance.number],
    )


def _statement(item: Append, snapshot: bytes) -> tuple[str, list[Any]]:
    """The one PostgreSQL statement of an append, and its parameters (``snapshot``: the
    state's bytes)."""
    game, start, entry, fields, _, publics, ranking, seat = _placed(item)
    params = [
        *rows.prepared(game, fields),
        game.pk,
        start,
        *rows.insert_values(entry),
        game.version,
        snapshot,
    ]
    if publics:
        params += [entry.created_at, *_rounds_params(game.pk, publics)]
    if ranking is not None:
        params += _places_params(ranking)
    if seat is not None:
        params += [*rows.prepared(seat[0], seat[1]), seat[0].pk]
    sql = statements.append(
        type(entry),
        tuple(fields),
        bool(publics),
        ranking is not None,
        None if seat is None else tuple(seat[1]),
    )
    return sql, params


def _appended(item: Append, snapshot: bytes, pk: int | None) -> bool:
    """Whether the entry was written (its key, None if not); if it was, the entry knows
    its key, and the game its snapshot (states.saved)."""
    if pk is None:
        return False
    rows.inserted(item.entry, pk)
    states.saved(item.game, item.state, snapshot)
    return True


def _append_orm(item: Append, snapshot: bytes) -> bool:
    """``append`` through the ORM, for databases other than PostgreSQL."""
    game, start, entry, fields, _, publics, ranking, seat = item
    with transaction.atomic():
        locked = Game.objects.select_for_update().filter(pk=game.pk)
        if locked.values_list("status", "version").first() != (Game.Status.ACTIVE, start):
            return False
        rows.insert(entry)
        rounds_append(game.pk, publics, entry.created_at)
        if ranking is not None:
            places_set(game.pk, ranking)
        rows.update(game, fields)
        GameSnapshot.objects.update_or_create(
            game=game, defaults={"version": game.version, "state": snapshot}
        )
        if seat is not None:
            rows.update(*seat)
    return True


def rounds_append(game_id: int, publics: Sequence[dict[str, Any]], finished_at: datetime) -> None:
    """Round and RoundScore rows for the game's ``round_end`` events."""
    if not publics:
        return
    if not vendor.native():
        rounds = Round.objects.bulk_create(
            Round(game_id=game_id, number=p["round"], finished_at=finished_at) for p in publics
        )
        seats = dict(Seat.objects.filter(game_id=game_id).values_list("number", "pk"))
        RoundScore.objects.bulk_create(
            RoundScore(
                round=round_,
                seat_id=seats[n],
                dollars=dollars,
                tally=p["tallies"][n],
                won_round=n in p["round_winners"],
            )
            for round_, p in zip(rounds, publics, strict=True)
            for n, dollars in enumerate(p["scores"])
        )
        return
    with rows.cursor() as cursor:
        params = [finished_at, game_id, *_rounds_params(game_id, publics)]
        cursor.execute(statements.rounds(), params)


def places_set(game_id: int, ranking: Sequence[dict[str, Any]]) -> None:
    """The final place, tally, round wins and winner flag of each seat in ``ranking`` (rows
    of the engine's ranking)."""
    if not vendor.native():
        by_seat = {row["seat"]: row for row in ranking}
        seats = list(Seat.objects.filter(game_id=game_id, number__in=by_seat))
        for seat in seats:
            _place(seat, by_seat[seat.number])
        Seat.objects.bulk_update(seats, PLACE_FIELDS)
        return
    with rows.cursor() as cursor:
        cursor.execute(statements.places(), [*_places_params(ranking), game_id])


PLACE_FIELDS = ("place", "tally", "round_wins", "is_winner")


def _place(seat: Seat, row: dict[str, Any]) -> None:
    """Set a seat's ``PLACE_FIELDS`` from its row of the engine's ranking."""
    seat.place, seat.tally = row["place"], row["tally"]
    seat.round_wins, seat.is_winner = row["round_wins"], row["winner"]


def _rounds_params(game_id: int, publics: Sequence[dict[str, Any]]) -> list[Any]:
    """The parameters of a statement's new rounds that follow their ``finished_at`` and
    game, then those of their scores (games.store.statements)."""
    scores = [
        (p["round"], n, dollars, p["tallies"][n], n in p["round_winners"])
        for p in publics
        for n, dollars in enumerate(p["scores"])
    ]
    columns = [list(column) for column in zip(*scores, strict=True)]
    return [[p["round"] for p in publics], *columns, game_id]


def _places_params(ranking: Sequence[dict[str, Any]]) -> list[Any]:
    """The parameters of a statement's places before its game (games.store.statements)."""
    return [[row[key] for row in ranking] for key in statements.RANKING_KEYS]
