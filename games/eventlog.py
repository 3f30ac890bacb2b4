"""A game's action log: reading it as one, and writing a whole game at once.

The log has two row shapes (games.models): ``Event``, one row per action with all of its
facts (actions sent one at a time, through games.services), and ``Playout``, the action
codes of a stretch decided in process and written in one go (games of built-in seats,
games.services.actions_record). ``entries`` and ``codes`` read both as one log; a
playout's seats, actors, action JSON and public events are rebuilt by replaying the
codes from the seed, which is exact. A game of built-in seats is thus written with one
statement on PostgreSQL (``playout_record``: its playout, rounds with their scores, the
seats' places, the game row and its snapshot), and through the ORM on other databases
(SQLite under ``make run``).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from functools import cache, lru_cache
from typing import Any, NamedTuple

import orjson
from django.db import connection, transaction

from cya_site import rows
from games.engine import RuleSet, State, action_to_json, apply, new_game, resign
from games.engine import actions as engine_actions
from games.models import Event, Game, GameSnapshot, Playout, Round, RoundScore, Seat

PublicEvents = tuple[dict[str, Any], ...]


class LogEntry(NamedTuple):
    """One entry of a game's log, whichever row holds it (the fields of ``Event``)."""

    seq: int
    seat: int | None
    actor_id: int | None
    action: dict[str, Any] | None
    action_code: int | None
    public_events: list[dict[str, Any]]
    origin: str
    idempotency_key: str
    created_at: datetime


def entries(game: Game, after: int = -1, limit: int | None = None) -> list[LogEntry]:
    """The log entries of ``game`` after seq ``after`` (at most ``limit``), in order.

    The log is gap-free (seq 0 is the deal, seq n took the game to version n), so the
    entries asked for are the seqs up to ``game.version`` or ``after + limit``.
    """
    upto = game.version if limit is None else min(game.version, after + limit)
    events = Event.objects.filter(game=game, seq__gt=after, seq__lte=upto).order_by("seq")
    logged = [_logged(e) for e in events]
    every = _playouts(game, upto)
    if not any(p.last_seq > after for p in every):
        return logged
    by_seq = {e.seq: e for e in logged}
    users = dict(Seat.objects.filter(game=game).values_list("number", "user_id"))
    state = new_game(RuleSet.from_json(game.rules), game.seed or 0)
    edition = state.rules.edition
    for seq, (code, playout) in sorted(_coded(game, 0, upto, every).items()):
        seat = None if code is None else _seat_of(state, code)
        state, public = replay_step(state, code)
        if seq > after and playout is not None and seat is not None:
            by_seq[seq] = LogEntry(
                seq,
                seat,
                users.get(seat),
                action_json(code, edition),
                code,
                orjson.loads(orjson.dumps(list(public))),  # the types a JSON column returns
                playout.origin,
                "",
                playout.created_at,
            )
    return [by_seq[seq] for seq in sorted(by_seq)]


def codes(game: Game, after: int, upto: int) -> list[int]:
    """The action codes of seqs ``after`` < seq <= ``upto``, in order: what a replay needs.

    Raises RuntimeError if the log lacks one of them (or holds an entry without one)."""
    coded = _coded(game, after, upto, _playouts(game, upto))
    found = []
    for seq in range(after + 1, upto + 1):
        code = coded.get(seq, (None, None))[0]
        if code is None:
            raise RuntimeError(f"game {game.pk}: the log has no action at {seq}")
        found.append(code)
    return found


def replay_step(state: State, code: int | None) -> tuple[State, PublicEvents]:
    """Apply one logged action (a resignation is logged as the engine's resign action)."""
    if code is None:
        raise RuntimeError("a logged action has no code")
    if engine_actions.action_type(code) == engine_actions.RESIGN:
        return resign(state, _resigned_seat(code))
    return apply(state, code)


def _seat_of(state: State, code: int) -> int:
    """The seat a logged action was taken for: the resigning one, or the one to act."""
    if engine_actions.action_type(code) == engine_actions.RESIGN:
        return _resigned_seat(code)
    return state.to_act


def _resigned_seat(code: int) -> int:
    return (code >> 8) & 15


def _logged(event: Event) -> LogEntry:
    return LogEntry(
        event.seq,
        event.seat,
        event.actor_id,
        event.action,
        event.action_code,
        event.public_events,
        event.origin,
        event.idempotency_key,
        event.created_at,
    )


def _playouts(game: Game, upto: int) -> list[Playout]:
    return list(Playout.objects.filter(game=game, first_seq__lte=upto).order_by("first_seq"))


def _coded(
    game: Game, after: int, upto: int, playouts: Sequence[Playout]
) -> dict[int, tuple[int | None, Playout | None]]:
    """Each seq after ``after`` up to ``upto``: its action code and the playout holding it
    (None for an Event row); ``playouts`` are the game's (``_playouts``)."""
    events = Event.objects.filter(game=game, seq__gt=after, seq__lte=upto)
    coded: dict[int, tuple[int | None, Playout | None]] = {
        seq: (code, None) for seq, code in events.values_list("seq", "action_code")
    }
    for playout in playouts:
        for seq, code in enumerate(playout.codes, playout.first_seq):
            if after < seq <= upto:
                coded[seq] = (code, playout)
    return coded


def playout_record(
    game: Game,
    start: int,
    played: Sequence[int],
    origin: str,
    created_at: datetime,
    publics: Sequence[dict[str, Any]],
    ranking: Sequence[dict[str, Any]] | None,
    snapshot: bytes,
    fields: Sequence[str],
) -> bool:
    """Write a game played on from version ``start`` in one go, if it is still active at
    ``start``: the actions ``played`` as one playout, the ``round_end`` events' rounds
    and scores, the final places if it ended (``ranking``), the game row's ``fields``
    and its snapshot (the state as JSON bytes). False, and nothing written, if the game
    moved on or ended meanwhile.

    On PostgreSQL it is one statement, atomic on its own: every part draws its rows from
    the guarded update of the game row, so no part writes unless that one did.
    """
    if not played:
        raise ValueError("a playout holds at least one action")
    if connection.vendor != "postgresql":  # the same rows through the ORM
        with transaction.atomic():
            locked = Game.objects.select_for_update().filter(pk=game.pk)
            if locked.values_list("status", "version").first() != (Game.Status.ACTIVE, start):
                return False
            Playout.objects.create(
                game=game,
                first_seq=start + 1,
                codes=list(played),
                origin=origin,
                created_at=created_at,
            )
            rounds_append(game.pk, publics, created_at)
            if ranking is not None:
                places_set(game.pk, ranking)
            rows.update(game, fields)
            GameSnapshot.objects.update_or_create(
                game=game, defaults={"version": start + len(played), "state": snapshot}
            )
        return True
    params = [
        *rows.prepared(game, fields),
        game.pk,
        start,
        *[start + 1, orjson.dumps(list(played)).decode(), origin, created_at],
        *[len(played) + start, snapshot],
    ]
    if publics:
        params += [created_at, *_rounds_params(game.pk, publics)]
    if ranking is not None:
        params += _places_params(ranking)
    sql = _playout_sql(tuple(fields), bool(publics), ranking is not None)
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return bool(cursor.fetchone()[0])


@cache
def _playout_sql(fields: tuple[str, ...], rounds: bool, places: bool) -> str:
    sets = rows.assignments(Game, fields)
    parts = [
        f"moved AS (UPDATE games_game SET {sets} "
        "WHERE id = %s AND status = 'active' AND version = %s RETURNING id)",
        "playout AS (INSERT INTO games_playout (game_id, first_seq, codes, origin, created_at) "
        "SELECT id, %s, %s::jsonb, %s, %s FROM moved)",
        "snapshot AS (INSERT INTO games_gamesnapshot (game_id, version, state) "
        "SELECT id, %s, %s FROM moved ON CONFLICT (game_id) "
        "DO UPDATE SET version = EXCLUDED.version, state = EXCLUDED.state)",
    ]
    if rounds:
        parts += [
            f"new_round AS ({_NEW_ROUNDS.format(game='moved')})",
            f"scores AS ({_ROUND_SCORES})",
        ]
    if places:
        parts.append(f"places AS ({_PLACES.format(game_id='(SELECT id FROM moved)')})")
    return f"WITH {', '.join(parts)} SELECT count(*) FROM moved"


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
        cursor.execute(_ROUNDS_SQL, [finished_at, game_id, *_rounds_params(game_id, publics)])


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
        cursor.execute(_PLACES_SQL, [*_places_params(ranking), game_id])


def _rounds_params(game_id: int, publics: Sequence[dict[str, Any]]) -> list[Any]:
    """The parameters of ``_NEW_ROUNDS`` that follow its ``finished_at`` and game, then
    those of ``_ROUND_SCORES``."""
    scores = [
        (p["round"], n, dollars, p["tallies"][n], n in p["round_winners"])
        for p in publics
        for n, dollars in enumerate(p["scores"])
    ]
    columns = [list(column) for column in zip(*scores, strict=True)]
    return [[p["round"] for p in publics], *columns, game_id]


def _places_params(ranking: Sequence[dict[str, Any]]) -> list[Any]:
    """The parameters of ``_PLACES`` before its game."""
    return [[row[key] for row in ranking] for key in _RANKING_KEYS]


# A game's new rounds (RETURNING their ids), the score rows of those rounds (the ids come
# back inside the database; seat ids are found by (game, number) there), and the seats'
# final places: fragments of one statement each, or of a playout's (``{game}`` names
# the rows giving the game's id).
_NEW_ROUNDS = """
    INSERT INTO games_round (game_id, number, finished_at)
    SELECT game.id, number, %s FROM {game} AS game, unnest(%s::int[]) AS number
    RETURNING id, number
"""
_ROUND_SCORES = """
INSERT INTO games_roundscore (round_id, seat_id, dollars, tally, won_round)
SELECT new_round.id, seat.id, v.dollars, v.tally, v.won
FROM unnest(%s::int[], %s::int[], %s::int[], %s::int[], %s::bool[])
    AS v(round, seat, dollars, tally, won)
JOIN new_round ON new_round.number = v.round
JOIN games_seat seat ON seat.game_id = %s AND seat.number = v.seat
"""
_ROUNDS_SQL = (
    f"WITH new_round AS ({_NEW_ROUNDS.format(game='(SELECT %s::bigint AS id)')}) {_ROUND_SCORES}"
)

_RANKING_KEYS = ("seat", "place", "tally", "round_wins", "winner")
_PLACES = """
UPDATE games_seat AS seat
SET place = v.place, tally = v.tally, round_wins = v.round_wins, is_winner = v.winner
FROM unnest(%s::int[], %s::int[], %s::int[], %s::int[], %s::bool[])
    AS v(number, place, tally, round_wins, winner)
WHERE seat.game_id = {game_id} AND seat.number = v.number
"""
_PLACES_SQL = _PLACES.format(game_id="%s")
