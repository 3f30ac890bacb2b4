"""The text of the seam's PostgreSQL statements, built once per process from ``_meta``.

Every table and column name comes from the models (cya_site.rows ``table``/``column``), so
a renamed field renames its column here too. Each builder takes only flags choosing among
fixed shapes: no piece of SQL is ever passed in. The parameters each statement expects are
listed beside it; games.store.writes fills them.
"""

from __future__ import annotations

from functools import cache

from django.db import connection

from cya_site import rows
from cya_site.rows import column, table
from games.models import Event, Game, GameSnapshot, Playout, Round, RoundScore, Seat

RANKING_KEYS = ("seat", "place", "tally", "round_wins", "winner")


def _new_rounds(in_append: bool) -> str:
    """New Round rows, RETURNING ``id, number``: one per round number. Parameters:
    finished_at, then (alone) the game's id, then the round numbers. In an append the game
    comes from the ``moved`` row instead of a parameter."""
    game = "moved" if in_append else "(SELECT %s::bigint AS id)"
    return (
        f"INSERT INTO {table(Round)} ({column(Round, 'game')}, {column(Round, 'number')},"
        f" {column(Round, 'finished_at')})"
        f" SELECT game.id, number, %s::timestamptz FROM {game} AS game,"
        " unnest(%s::int[]) AS number"
        f" RETURNING {column(Round, 'pk')} AS id, {column(Round, 'number')} AS number"
    )


def _round_scores() -> str:
    """The score rows of the rounds in ``new_round`` (their ids come back inside the
    database; seat ids are found by (game, number) there). Parameters: five arrays
    (round, seat, dollars, tally, won), then the game's id."""
    score = RoundScore
    return (
        f"INSERT INTO {table(score)} ({column(score, 'round')}, {column(score, 'seat')},"
        f" {column(score, 'dollars')}, {column(score, 'tally')}, {column(score, 'won_round')})"
        f" SELECT new_round.id, seat.{column(Seat, 'pk')}, v.dollars, v.tally, v.won"
        " FROM unnest(%s::int[], %s::int[], %s::int[], %s::int[], %s::bool[])"
        " AS v(round, seat, dollars, tally, won)"
        " JOIN new_round ON new_round.number = v.round"
        f" JOIN {table(Seat)} seat ON seat.{column(Seat, 'game')} = %s::bigint"
        f" AND seat.{column(Seat, 'number')} = v.seat"
    )


def _places(in_append: bool) -> str:
    """The seats' final places. Parameters: five arrays (``RANKING_KEYS``), then the game's
    id unless in an append (the ``moved`` row's)."""
    game = "(SELECT id FROM moved)" if in_append else "%s"
    return (
        f"UPDATE {table(Seat)} AS seat SET {column(Seat, 'place')} = v.place,"
        f" {column(Seat, 'tally')} = v.tally, {column(Seat, 'round_wins')} = v.round_wins,"
        f" {column(Seat, 'is_winner')} = v.winner"
        " FROM unnest(%s::int[], %s::int[], %s::int[], %s::int[], %s::bool[])"
        " AS v(number, place, tally, round_wins, winner)"
        f" WHERE seat.{column(Seat, 'game')} = {game} AND seat.{column(Seat, 'number')} = v.number"
    )


@cache
def rounds() -> str:
    """A game's rounds and their scores on their own (a recorded game's)."""
    return f"WITH new_round AS ({_new_rounds(False)}) {_round_scores()}"


@cache
def places() -> str:
    """A game's final places on their own (a recorded game's)."""
    return _places(False)


@cache
def append(
    entry: type[Event | Playout],
    fields: tuple[str, ...],
    with_rounds: bool,
    with_places: bool,
    seat_fields: tuple[str, ...] | None,
) -> str:
    """One append (games.store.append): the game row's ``fields`` guarded by its status and
    version, the entry, the snapshot, then optionally rounds, places and one seat's
    fields; every part draws its rows from ``moved``, so none writes unless it did.
    Returns the entry's id, or NULL when the game had moved on."""
    active = Game.Status.ACTIVE.value  # a constant of the model, not a value from outside
    snapshot, version = GameSnapshot, column(GameSnapshot, "version")
    state = column(GameSnapshot, "state")
    parts = [
        f"moved AS (UPDATE {table(Game)} SET {rows.assignments(Game, fields)}"
        f" WHERE {column(Game, 'pk')} = %s AND {column(Game, 'status')} = '{active}'"
        f" AND {column(Game, 'version')} = %s RETURNING {column(Game, 'pk')} AS id)",
        f"entry AS ({rows.insert_from(entry, 'moved')})",
        f"snapshot AS (INSERT INTO {table(snapshot)} ({column(snapshot, 'game')}, {version},"
        f" {state}) SELECT id, %s::integer, %s::bytea FROM moved"
        f" ON CONFLICT ({column(snapshot, 'game')})"
        f" DO UPDATE SET {version} = EXCLUDED.{version}, {state} = EXCLUDED.{state})",
    ]
    if with_rounds:
        parts += [f"new_round AS ({_new_rounds(True)})", f"scores AS ({_round_scores()})"]
    if with_places:
        parts.append(f"places AS ({_places(True)})")
    if seat_fields is not None:
        parts.append(
            f"seat AS (UPDATE {table(Seat)} SET {rows.assignments(Seat, seat_fields)}"
            f" WHERE {column(Seat, 'pk')} = %s AND EXISTS (SELECT FROM moved))"
        )
    return f"WITH {', '.join(parts)} SELECT (SELECT id FROM entry)"


_SEAT, _GAME, _SNAPSHOT, _ENTRY = (
    rows.Columns(Seat, "s"),
    rows.Columns(Game, "g"),
    rows.Columns(GameSnapshot, "n"),
    rows.Columns(Event, "e"),
)
SEAT_COLUMNS = (_SEAT, _GAME, _SNAPSHOT)
ENTRY_COLUMNS = _ENTRY


@cache
def seat(lock: bool, entry: bool) -> str:
    """A user's seat at a game with the game row and its snapshot (``SEAT_COLUMNS``), and
    with ``entry`` the game's log entry of one Idempotency-Key (``ENTRY_COLUMNS``).
    Parameters: the key (with ``entry``), the game's id, the user's id. ``lock`` locks the
    game row. Portable: SQLite runs it too."""
    g_pk, game_of = column(Game, "pk"), column(Seat, "game")
    columns = f"{_SEAT.sql}, {_GAME.sql}, {_SNAPSHOT.sql}"
    joins = ""
    if entry:  # the partial unique index on (game, key) serves it: keys are never empty
        key = column(Event, "idempotency_key")
        columns += f", {_ENTRY.sql}"
        joins = (
            f" LEFT JOIN {_ENTRY.table} ON e.{column(Event, 'game')} = g.{g_pk}"
            f" AND e.{key} = %s AND e.{key} <> ''"
        )
    sql = (
        f"SELECT {columns} FROM {_SEAT.table}"
        f" JOIN {_GAME.table} ON g.{g_pk} = s.{game_of}"
        f" LEFT JOIN {_SNAPSHOT.table} ON n.{column(GameSnapshot, 'game')} = g.{g_pk}{joins}"
        f" WHERE s.{game_of} = %s AND s.{column(Seat, 'user')} = %s"
    )
    if lock and connection.features.has_select_for_update:
        sql += " FOR UPDATE OF g" if connection.features.has_select_for_update_of else " FOR UPDATE"
    return sql
