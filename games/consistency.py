"""The consistency check: replay finished games from their logs and compare what is stored.

The action log (seed + actions) is the truth; everything else stored about a game is
derived from it: the game row's version, round, winners and end reason, the seats'
places and tallies, the rounds with their scores, the public events of ``Event`` rows and
the snapshot. ``games_verify`` replays each game through the engine and names every
stored value that differs from the replay (``manage.py verify_games``).

Only digital games have a log. A game recorded at a real table (``Game.Mode.RECORDED``)
derives its rows from the tournaments' score ledger instead, so it is not checked here.

A forked game starts from its parent's position (games.store.initial_state), which is
replayed from the parent's log: the parent's own rows are checked as a game of their own.

Games are read in batches: each batch costs six queries however many games it holds
(the games, then their events, playouts, seats, round scores and snapshots), and each
fork two more per ancestor (its start is read from the parent's log).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from itertools import islice
from typing import Any, NamedTuple, cast

import orjson
from django.db.models import QuerySet

from games import store
from games.engine import EngineError, State
from games.engine.state import DECISION_NAMES
from games.models import Event, Game, GameSnapshot, Playout, Round, RoundScore, Seat
from games.services.progress import end_reason

BATCH = 500

_GAME_FIELDS = (
    "id",
    "rules",
    "seed",
    "version",
    "status",
    "round_number",
    "to_act",
    "decision_kind",
    "winners",
    "end_reason",
    "forked_from_id",
    "fork_step",
    "fork_redeal",
)


class Mismatch(NamedTuple):
    """One stored value that differs from what the game's log replays to."""

    game_id: int
    field: str
    stored: Any
    replayed: Any


class _Logged(NamedTuple):
    """An ``Event`` row: the facts it stores beside its action code."""

    seat: int | None
    action: Any
    code: int | None
    public_events: Any


@dataclass
class _Stored:
    """Everything stored about one game that derives from its log."""

    game: Any  # a row of _GAME_FIELDS
    events: dict[int, _Logged] = field(default_factory=dict)
    codes: dict[int, int | None] = field(default_factory=dict)  # by seq, of either row shape
    twice: set[int] = field(default_factory=set)  # seqs that both row shapes hold, or two playouts
    seats: dict[int, tuple[Any, ...]] = field(default_factory=dict)
    rounds: set[int] = field(default_factory=set)
    scores: dict[tuple[int, int], tuple[Any, ...]] = field(default_factory=dict)
    snapshot: tuple[int, bytes] | None = None


class _Replayed(NamedTuple):
    """What a game's log replays to: the final state, the events that derive rows, and
    the facts of each seq that has an ``Event`` row."""

    state: State
    rounds: list[dict[str, Any]]
    end: dict[str, Any] | None
    events: dict[int, _Logged]


def finished_games(*, ids: Sequence[int] = (), since: datetime | None = None) -> QuerySet[Game]:
    """The finished digital games to check: those of ``ids`` if given, finished at or after
    ``since`` if given, in id order."""
    games = Game.objects.filter(status=Game.Status.FINISHED, mode=Game.Mode.DIGITAL)
    if ids:
        games = games.filter(pk__in=ids)
    if since is not None:
        games = games.filter(finished_at__gte=since)
    return games.order_by("pk")


def games_verify(games: QuerySet[Game], *, batch: int = BATCH) -> Iterator[list[Mismatch]]:
    """Replay each of ``games`` from its seed and log: per game, in order, the stored values
    that differ from the replay (an empty list for a game that is consistent).

    Reads ``batch`` games at a time from a server-side cursor, and each batch's rows in
    one query per table."""
    rows = games.values_list(*_GAME_FIELDS, named=True).iterator(chunk_size=batch)
    while chunk := list(islice(rows, batch)):
        for stored in _load(chunk):
            yield game_verify(stored)


def game_verify(stored: _Stored) -> list[Mismatch]:
    """The stored values of one game that differ from what its log replays to."""
    codes = _log_codes(stored)
    if isinstance(codes, Mismatch):
        return [codes]
    replayed = _replay(stored, codes)
    if isinstance(replayed, Mismatch):
        return [replayed]
    return [
        *_check_events(stored, replayed.events),
        *_check_game(stored.game, replayed),
        *_check_seats(stored, replayed.end),
        *_check_rounds(stored, replayed.rounds),
        *_check_snapshot(stored, replayed.state),
    ]


# --- reading a batch ----------------------------------------------------------------------


def _load(chunk: Sequence[Any]) -> list[_Stored]:
    """The stored rows of a batch of games (rows of ``_GAME_FIELDS``), in one query a table."""
    by_id = {row.id: _Stored(row) for row in chunk}
    ids = list(by_id)
    events = Event.objects.filter(game_id__in=ids).values_list(
        "game_id", "seq", "seat", "action", "action_code", "public_events"
    )
    for game_id, seq, seat, action, code, public in events:
        found = by_id[game_id]
        found.events[seq] = _Logged(seat, action, code, public)
        found.codes[seq] = code
    playouts = Playout.objects.filter(game_id__in=ids).values_list("game_id", "first_seq", "codes")
    for game_id, first_seq, codes in playouts:
        found = by_id[game_id]
        seqs = range(first_seq, first_seq + len(codes))
        found.twice.update(found.codes.keys() & seqs)
        found.codes.update(zip(seqs, codes, strict=True))
    seats = Seat.objects.filter(game_id__in=ids).values_list(
        "game_id", "number", "place", "tally", "round_wins", "is_winner"
    )
    for game_id, number, *result in seats:
        by_id[game_id].seats[number] = tuple(result)
    for game_id, number in Round.objects.filter(game_id__in=ids).values_list("game_id", "number"):
        by_id[game_id].rounds.add(number)
    scores = RoundScore.objects.filter(round__game_id__in=ids).values_list(
        "round__game_id", "round__number", "seat__number", "dollars", "tally", "won_round"
    )
    for game_id, round_number, seat, *score in scores:
        by_id[game_id].scores[round_number, seat] = tuple(score)
    snapshots = GameSnapshot.objects.filter(game_id__in=ids).values_list(
        "game_id", "version", "state"
    )
    for game_id, version, state in snapshots:
        by_id[game_id].snapshot = (version, bytes(state))
    return list(by_id.values())


# --- replaying ----------------------------------------------------------------------------


def _log_codes(stored: _Stored) -> list[int] | Mismatch:
    """The log's action codes, seq 1 onwards, if it is whole: a deal at seq 0, then one
    entry for every seq up to the last, none twice, each with a code."""
    game_id = stored.game.id
    if 0 not in stored.events:
        return Mismatch(game_id, "log 0", "missing", "the deal")
    if stored.twice:
        return Mismatch(game_id, f"log {min(stored.twice)}", "2 entries", "1 entry")
    codes = [stored.codes.get(seq) for seq in range(1, max(stored.codes) + 1)]
    if None in codes:
        seq = codes.index(None) + 1
        found = "no action code" if seq in stored.codes else "no entry"
        return Mismatch(game_id, f"log {seq}", found, "an action code")
    return cast(list[int], codes)


def _replay(stored: _Stored, codes: list[int]) -> _Replayed | Mismatch:
    """Apply the log to the seed, keeping each ``Event`` row's replayed facts beside it."""
    game = stored.game
    if game.seed is None:
        return Mismatch(game.id, "seed", None, "the seed the log was dealt from")
    try:
        state = store.initial_state(game)
    except (EngineError, RuntimeError) as error:  # a fork whose parent's log is broken
        parent = f"game {game.forked_from_id} at step {game.fork_step}"
        return Mismatch(game.id, "fork", parent, f"refused: {error}")
    rounds: list[dict[str, Any]] = []
    end = None
    replayed: dict[int, _Logged] = {0: _Logged(None, None, None, list(state.history))}
    edition = state.rules.edition
    logged = stored.events
    for seq, code in enumerate(codes, 1):
        before = state
        try:
            state, public = store.replay_step(state, code)
        except EngineError as error:
            return Mismatch(game.id, f"log {seq}", code, f"refused: {error.code}")
        if seq in logged:
            seat = store.seat_of(before, code)
            replayed[seq] = _Logged(seat, store.action_json(code, edition), code, list(public))
        for event in public:
            if event["type"] == "round_end":
                rounds.append(event)
            elif event["type"] == "game_end":
                end = event
    return _Replayed(state, rounds, end, replayed)


# --- comparing ----------------------------------------------------------------------------


def _check_events(stored: _Stored, replayed: dict[int, _Logged]) -> Iterator[Mismatch]:
    """Each ``Event`` row's seat, action and public events against the replay's."""
    for seq, logged in sorted(stored.events.items()):
        again = replayed[seq]
        if seq > 0:
            yield from _differences(stored.game.id, f"event {seq} seat", logged.seat, again.seat)
            yield from _differences(
                stored.game.id, f"event {seq} action", logged.action, again.action
            )
        yield from _differences(
            stored.game.id,
            f"event {seq} public_events",
            logged.public_events,
            _as_stored(again.public_events),
        )


def _check_game(game: Any, replayed: _Replayed) -> Iterator[Mismatch]:
    """The game row's fields that follow from the log."""
    state, end = replayed.state, replayed.end
    expected: dict[str, Any] = {
        "status": Game.Status.FINISHED if state.over else Game.Status.ACTIVE,
        "version": state.version,
        "round_number": state.round,
        "winners": list(state.winners),
        "end_reason": "" if end is None else end_reason(end),
        "to_act": None if state.over else state.to_act,
        "decision_kind": "" if state.over else DECISION_NAMES[state.kind],
    }
    for name, value in expected.items():
        yield from _differences(game.id, name, getattr(game, name), value)


def _check_seats(stored: _Stored, end: dict[str, Any] | None) -> Iterator[Mismatch]:
    """Each seat's place, tally, round wins and winner flag against the game's ranking."""
    ranking = {} if end is None else {row["seat"]: row for row in end["ranking"]}
    names = ("place", "tally", "round_wins", "is_winner")
    for number in sorted(stored.seats.keys() | ranking.keys()):
        row = ranking.get(number)
        again = (None,) * 4 if row is None else _seat_result(row)
        found = stored.seats.get(number, (None,) * 4)
        for name, value, expected in zip(names, found, again, strict=True):
            yield from _differences(stored.game.id, f"seat {number} {name}", value, expected)


def _seat_result(row: dict[str, Any]) -> tuple[Any, ...]:
    return (row["place"], row["tally"], row["round_wins"], row["winner"])


def _check_rounds(stored: _Stored, rounds: list[dict[str, Any]]) -> Iterator[Mismatch]:
    """The rounds, and each seat's dollars, tally and round win in each round."""
    game_id = stored.game.id
    numbers = [r["round"] for r in rounds]
    yield from _differences(game_id, "rounds", sorted(stored.rounds), numbers)
    expected = {
        (r["round"], seat): (dollars, r["tallies"][seat], seat in r["round_winners"])
        for r in rounds
        for seat, dollars in enumerate(r["scores"])
    }
    names = ("dollars", "tally", "won_round")
    for key in sorted(stored.scores.keys() | expected.keys()):
        found = stored.scores.get(key, (None,) * 3)
        again = expected.get(key, (None,) * 3)
        for name, value, want in zip(names, found, again, strict=True):
            yield from _differences(game_id, f"round {key[0]} seat {key[1]} {name}", value, want)


def _check_snapshot(stored: _Stored, state: State) -> Iterator[Mismatch]:
    """The snapshot: at the final version, holding exactly the final state (named by key)."""
    game_id = stored.game.id
    if stored.snapshot is None:
        yield Mismatch(game_id, "snapshot", None, f"the state at version {state.version}")
        return
    version, data = stored.snapshot
    yield from _differences(game_id, "snapshot version", version, state.version)
    expected = store.snapshot_bytes(state)
    if data == expected:
        return
    try:
        found = orjson.loads(data)
    except orjson.JSONDecodeError:
        yield Mismatch(game_id, "snapshot state", "unreadable JSON", "the final state")
        return
    again = orjson.loads(expected)
    if not isinstance(found, dict):
        yield Mismatch(game_id, "snapshot state", found, "the final state")
        return
    for key in sorted(found.keys() | again.keys()):
        yield from _differences(game_id, f"snapshot {key}", found.get(key), again.get(key))


def _differences(game_id: int, name: str, stored: Any, replayed: Any) -> Iterable[Mismatch]:
    return () if stored == replayed else (Mismatch(game_id, name, stored, replayed),)


def _as_stored(value: Any) -> Any:
    """A replayed value as a JSON column gives it back (tuples become lists)."""
    return orjson.loads(orjson.dumps(value))
