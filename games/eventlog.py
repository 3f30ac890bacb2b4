"""A game's action log: reading it as one, and writing a whole game at once.

The log has two row shapes (games.models): ``Event``, one row per action with all of its
facts (actions sent one at a time, through games.services), and ``Playout``, the action
codes of a stretch decided in process and written in one go (games of built-in seats,
games.services.actions_record). ``entries`` and ``codes`` read both as one log; a
playout's seats, actors, action JSON and public events are rebuilt by replaying the
codes from the seed, which is exact.

Either entry is written by ``append``: on PostgreSQL one statement that writes it with
every row it changes (the game row, its snapshot, rounds with their scores, the seats'
places) only if the game is still at the version it was played from; through the ORM on
other databases (SQLite under ``make run``). An action is one statement, and so is a whole
game of built-in seats; several games' entries go in one round trip (``append_all``).
"""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import ExitStack
from datetime import datetime
from functools import cache, lru_cache
from typing import Any, NamedTuple, Protocol

import orjson
from django.db import connection, transaction

from cya_site import rows
from games.engine import RuleSet, State, action_to_json, apply, fork, new_game, resign
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


class Origin(Protocol):
    """What decides a stored game's first state: a ``Game``, or a row of these fields."""

    @property
    def rules(self) -> Any: ...
    @property
    def seed(self) -> int | None: ...
    @property
    def forked_from_id(self) -> int | None: ...
    @property
    def fork_step(self) -> int | None: ...
    @property
    def fork_redeal(self) -> bool: ...


ORIGIN_FIELDS = ("rules", "seed", "forked_from_id", "fork_step", "fork_redeal")


def initial_state(game: Origin) -> State:
    """The state a dealt game starts from, at version 0: what its log's seq 0 holds.

    A new game is dealt from its seed. A fork starts at its parent's state after
    ``fork_step`` actions (the parent's own start and log, so forks of forks work),
    handed to the engine's ``fork`` with the fork's seed and ``fork_redeal``. Every
    reader of a stored game starts here: starting it, rebuilding it, replays, the
    consistency check. A fork costs two queries per ancestor (its log's two row shapes).
    Raises ValueError for a game not yet dealt, RuntimeError for a parent log with a gap.
    """
    if game.seed is None:
        raise ValueError("the game has not been dealt")
    if game.forked_from_id is None or game.fork_step is None:
        return new_game(RuleSet.from_json(game.rules), game.seed)
    parent = Game.objects.only(*ORIGIN_FIELDS).get(pk=game.forked_from_id)
    state = initial_state(parent)
    for code in codes(parent, 0, game.fork_step):
        state = replay_step(state, code)[0]
    return fork(state, game.seed, redeal=game.fork_redeal)


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
    state = initial_state(game)
    edition = state.rules.edition
    for seq, (code, playout) in sorted(_coded(game, 0, upto, every).items()):
        seat = None if code is None else seat_of(state, code)
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


def seat_of(state: State, code: int) -> int:
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


class Append(NamedTuple):
    """One entry to append to a game's log, with the rows it changes (``append``)."""

    game: Game
    start: int
    entry: Event | Playout
    fields: Sequence[str]
    snapshot: bytes
    publics: Sequence[dict[str, Any]] = ()
    ranking: Sequence[dict[str, Any]] | None = None
    seat: tuple[Seat, Sequence[str]] | None = None


def append(
    game: Game,
    start: int,
    entry: Event | Playout,
    *,
    fields: Sequence[str],
    snapshot: bytes,
    publics: Sequence[dict[str, Any]] = (),
    ranking: Sequence[dict[str, Any]] | None = None,
    seat: tuple[Seat, Sequence[str]] | None = None,
) -> bool:
    """Append ``entry`` to the log of a game that is still active at version ``start``,
    with every row it changes: the game row's ``fields``, its snapshot (the new state as
    JSON bytes), the rounds and scores of the ``round_end`` events in ``publics``, the
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
    return _append_one(Append(game, start, entry, fields, snapshot, publics, ranking, seat))


def append_all(items: Sequence[Append]) -> list[bool]:
    """``append`` each of ``items`` (entries of different games), in one round trip: whether
    each was written. On PostgreSQL the statements are sent together and run as one
    implicit transaction (rows.pipeline); elsewhere one after the other in a transaction.
    Either way an error writes none of them."""
    if len(items) < 2:
        return [_append_one(item) for item in items]
    if connection.vendor != "postgresql":
        with transaction.atomic():
            return [_append_one(item) for item in items]
    with ExitStack() as stack:
        cursors = [stack.enter_context(rows.cursor()) for _ in items]
        with rows.pipeline():
            for cursor, item in zip(cursors, items, strict=True):
                cursor.execute(*_statement(item))
        return [
            _appended(item.entry, cursor.fetchone()[0])
            for cursor, item in zip(cursors, items, strict=True)
        ]


def _append_one(item: Append) -> bool:
    if connection.vendor != "postgresql":
        return _append_orm(*_placed(item))
    with rows.cursor() as cursor:
        cursor.execute(*_statement(item))
        return _appended(item.entry, cursor.fetchone()[0])


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


def _statement(item: Append) -> tuple[str, list[Any]]:
    """The one PostgreSQL statement of an append, and its parameters."""
    game, start, entry, fields, snapshot, publics, ranking, seat = _placed(item)
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
    sql = _append_sql(
        type(entry),
        tuple(fields),
        bool(publics),
        ranking is not None,
        None if seat is None else tuple(seat[1]),
    )
    return sql, params


def _appended(entry: Event | Playout, pk: int | None) -> bool:
    if pk is None:
        return False
    rows.inserted(entry, pk)
    return True


def _append_orm(
    game: Game,
    start: int,
    entry: Event | Playout,
    fields: Sequence[str],
    snapshot: bytes,
    publics: Sequence[dict[str, Any]],
    ranking: Sequence[dict[str, Any]] | None,
    seat: tuple[Seat, Sequence[str]] | None,
) -> bool:
    """``append`` through the ORM, for databases other than PostgreSQL."""
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


@cache
def _append_sql(
    entry: type[Event | Playout],
    fields: tuple[str, ...],
    rounds: bool,
    places: bool,
    seat_fields: tuple[str, ...] | None,
) -> str:
    parts = [
        f"moved AS (UPDATE games_game SET {rows.assignments(Game, fields)} "
        "WHERE id = %s AND status = 'active' AND version = %s RETURNING id)",
        f"entry AS ({rows.insert_from(entry, 'moved')})",
        "snapshot AS (INSERT INTO games_gamesnapshot (game_id, version, state) "
        "SELECT id, %s::integer, %s::bytea FROM moved ON CONFLICT (game_id) "
        "DO UPDATE SET version = EXCLUDED.version, state = EXCLUDED.state)",
    ]
    if rounds:
        parts += [
            f"new_round AS ({_NEW_ROUNDS.format(game='moved')})",
            f"scores AS ({_ROUND_SCORES})",
        ]
    if places:
        parts.append(f"places AS ({_PLACES.format(game_id='(SELECT id FROM moved)')})")
    if seat_fields is not None:
        parts.append(
            f"seat AS (UPDATE games_seat SET {rows.assignments(Seat, seat_fields)} "
            "WHERE id = %s AND EXISTS (SELECT FROM moved))"
        )
    return f"WITH {', '.join(parts)} SELECT (SELECT id FROM entry)"


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
    with rows.cursor() as cursor:
        cursor.execute(_ROUNDS_SQL, [finished_at, game_id, *_rounds_params(game_id, publics)])


def places_set(game_id: int, ranking: Sequence[dict[str, Any]]) -> None:
    """The final place, tally, round wins and winner flag of each seat in ``ranking`` (rows
    of the engine's ranking)."""
    if connection.vendor != "postgresql":
        by_seat = {row["seat"]: row for row in ranking}
        seats = list(Seat.objects.filter(game_id=game_id, number__in=by_seat))
        for seat in seats:
            _place(seat, by_seat[seat.number])
        Seat.objects.bulk_update(seats, PLACE_FIELDS)
        return
    with rows.cursor() as cursor:
        cursor.execute(_PLACES_SQL, [*_places_params(ranking), game_id])


PLACE_FIELDS = ("place", "tally", "round_wins", "is_winner")


def _place(seat: Seat, row: dict[str, Any]) -> None:
    """Set a seat's ``PLACE_FIELDS`` from its row of the engine's ranking."""
    seat.place, seat.tally = row["place"], row["tally"]
    seat.round_wins, seat.is_winner = row["round_wins"], row["winner"]


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
    SELECT game.id, number, %s::timestamptz FROM {game} AS game, unnest(%s::int[]) AS number
    RETURNING id, number
"""
_ROUND_SCORES = """
INSERT INTO games_roundscore (round_id, seat_id, dollars, tally, won_round)
SELECT new_round.id, seat.id, v.dollars, v.tally, v.won
FROM unnest(%s::int[], %s::int[], %s::int[], %s::int[], %s::bool[])
    AS v(round, seat, dollars, tally, won)
JOIN new_round ON new_round.number = v.round
JOIN games_seat seat ON seat.game_id = %s::bigint AND seat.number = v.seat
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
