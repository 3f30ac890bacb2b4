"""Writing a whole game at once: its log entries, rounds and final places, in bulk.

A bot game is written in one go (games.services.actions_record): hundreds of entries
with two JSON columns each, then a few rounds and the seats' places. On PostgreSQL the
entries are streamed with ``COPY`` as one text buffer built here (orjson, no per-value
adapters: several times cheaper than ``write_row``, let alone a parameterised INSERT),
and rounds, round scores and places take one statement each; other databases (SQLite
under ``make run``) take the ORM. Both write the same rows.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from functools import lru_cache
from typing import Any, NamedTuple

import orjson
from django.db import connection

from games.engine import action_to_json
from games.models import Event, Game, Round, RoundScore, Seat

_COLUMNS = (
    "game_id", "seq", "seat", "actor_id", "action", "action_code", "public_events",
    "origin", "idempotency_key", "created_at",
)  # fmt: skip
_NULL = "\\N"
# COPY's text format gives the backslash, tab, newline and carriage return a meaning.
_COPY_ESCAPES = str.maketrans({"\\": "\\\\", "\t": "\\t", "\n": "\\n", "\r": "\\r"})


class Entry(NamedTuple):
    """One log entry to write."""

    seq: int
    seat: int | None
    actor_id: int | None
    action: dict[str, Any] | None
    action_code: int | None
    public_events: Sequence[dict[str, Any]]
    origin: str


def append(game_id: int, entries: Sequence[Entry], created_at: datetime) -> None:
    """Write the entries in the current transaction."""
    if not entries:
        return
    if connection.vendor != "postgresql":
        Event.objects.bulk_create(
            Event(
                game_id=game_id,
                created_at=created_at,
                idempotency_key="",
                **{**e._asdict(), "public_events": list(e.public_events)},
            )
            for e in entries
        )
        return
    table = Event._meta.db_table
    tail = f"\t\t{created_at.isoformat()}\n"  # idempotency_key "" and created_at
    lines = [
        f"{game_id}\t{e.seq}\t{_text(e.seat)}\t{_text(e.actor_id)}\t"
        f"{_json(e.action) if e.action is not None else _NULL}\t{_text(e.action_code)}\t"
        f"{_json(e.public_events)}\t{_escape(e.origin)}{tail}"
        for e in entries
    ]
    with connection.cursor() as cursor:
        raw = cursor.cursor  # the psycopg cursor under Django's wrapper
        with raw.copy(f"COPY {table} ({', '.join(_COLUMNS)}) FROM STDIN") as copy:
            copy.write("".join(lines))


def lock(game_id: int) -> tuple[str, int, dict[int, int | None]] | None:
    """Lock the game row (``FOR UPDATE``) for a batch: its status, version and each seat's
    user; None if there is no such game. One statement on PostgreSQL."""
    if connection.vendor != "postgresql":
        locked = Game.objects.select_for_update().filter(pk=game_id)
        found = list(locked.values_list("status", "version", "seats__number", "seats__user"))
    else:
        with connection.cursor() as cursor:
            cursor.execute(_LOCK_SQL, [game_id])
            found = cursor.fetchall()
    if not found:
        return None
    return found[0][0], found[0][1], {number: user_id for _, _, number, user_id in found}


@lru_cache(maxsize=8192)
def action_json(code: int, edition: str) -> dict[str, Any]:
    """An action's JSON form (engine.actions.to_json), kept: a game repeats its actions.

    Callers must not change the dict they get: it is shared.
    """
    return action_to_json(code, edition)


def rounds_append(game_id: int, publics: Sequence[dict[str, Any]], finished_at: datetime) -> None:
    """Round and RoundScore rows for the game's ``round_end`` events."""
    if not publics:
        return
    if connection.vendor != "postgresql":
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
    with connection.cursor() as cursor:
        cursor.execute(_ROUNDS_SQL, _rounds_params(game_id, publics, finished_at))


def places_set(game_id: int, ranking: Sequence[dict[str, Any]]) -> None:
    """Every seat's final place, tally, round wins and winner flag (the engine's ranking)."""
    if connection.vendor != "postgresql":
        rows = {row["seat"]: row for row in ranking}
        seats = list(Seat.objects.filter(game_id=game_id))
        for seat in seats:
            row = rows[seat.number]
            seat.place, seat.tally = row["place"], row["tally"]
            seat.round_wins, seat.is_winner = row["round_wins"], row["winner"]
        Seat.objects.bulk_update(seats, ["place", "tally", "round_wins", "is_winner"])
        return
    with connection.cursor() as cursor:
        cursor.execute(_PLACES_SQL, _places_params(game_id, ranking))


def results_set(
    game_id: int,
    publics: Sequence[dict[str, Any]],
    ranking: Sequence[dict[str, Any]] | None,
    finished_at: datetime,
) -> None:
    """Rounds with their scores, and the final places if the game ended (``ranking``):
    one round trip on PostgreSQL, for a batch that played rounds and ended the game."""
    if connection.vendor != "postgresql" or not publics or ranking is None:
        rounds_append(game_id, publics, finished_at)
        if ranking is not None:
            places_set(game_id, ranking)
        return
    params = [*_rounds_params(game_id, publics, finished_at), *_places_params(game_id, ranking)]
    with connection.cursor() as cursor:  # a client-side bound cursor takes both at once
        cursor.execute(f"{_ROUNDS_SQL};{_PLACES_SQL}", params)


def _rounds_params(
    game_id: int, publics: Sequence[dict[str, Any]], finished_at: datetime
) -> list[Any]:
    scores = [
        (p["round"], n, dollars, p["tallies"][n], n in p["round_winners"])
        for p in publics
        for n, dollars in enumerate(p["scores"])
    ]
    columns = [list(column) for column in zip(*scores, strict=True)]
    return [game_id, finished_at, [p["round"] for p in publics], *columns, game_id]


def _places_params(game_id: int, ranking: Sequence[dict[str, Any]]) -> list[Any]:
    return [*([row[key] for row in ranking] for key in _RANKING_KEYS), game_id]


_LOCK_SQL = """
SELECT game.status, game.version, seat.number, seat.user_id
FROM games_game game JOIN games_seat seat ON seat.game_id = game.id
WHERE game.id = %s
FOR UPDATE OF game
"""

# One statement for a game's rounds and their scores: the rounds' new ids come back to
# the score rows inside the database, and seat ids are found by (game, number) there.
_ROUNDS_SQL = """
WITH new_round AS (
    INSERT INTO games_round (game_id, number, finished_at)
    SELECT %s, number, %s FROM unnest(%s::int[]) AS number
    RETURNING id, number
)
INSERT INTO games_roundscore (round_id, seat_id, dollars, tally, won_round)
SELECT new_round.id, seat.id, v.dollars, v.tally, v.won
FROM unnest(%s::int[], %s::int[], %s::int[], %s::int[], %s::bool[])
    AS v(round, seat, dollars, tally, won)
JOIN new_round ON new_round.number = v.round
JOIN games_seat seat ON seat.game_id = %s AND seat.number = v.seat
"""

_RANKING_KEYS = ("seat", "place", "tally", "round_wins", "winner")
_PLACES_SQL = """
UPDATE games_seat AS seat
SET place = v.place, tally = v.tally, round_wins = v.round_wins, is_winner = v.winner
FROM unnest(%s::int[], %s::int[], %s::int[], %s::int[], %s::bool[])
    AS v(number, place, tally, round_wins, winner)
WHERE seat.game_id = %s AND seat.number = v.number
"""


def _text(value: int | None) -> str:
    return _NULL if value is None else str(value)


def _json(value: Any) -> str:
    # orjson writes control characters inside strings as escapes (``\\n``), never raw, so
    # only a backslash needs escaping again for COPY; most entries hold none.
    text = orjson.dumps(value).decode()
    return text.replace("\\", "\\\\") if "\\" in text else text


def _escape(value: str) -> str:
    return value.translate(_COPY_ESCAPES)
