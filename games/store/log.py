"""Reading a game's action log as one, whichever rows hold it (part of games.store).

The log has two row shapes (games.models): ``Event``, one row per action with all of its
facts (actions sent one at a time, through games.services), and ``Playout``, the action
codes of a stretch decided in process and written in one go (games of built-in seats,
games.services.actions_record). ``entries`` and ``codes`` read both as one log; a
playout's seats, actors, action JSON and public events are rebuilt by replaying the
codes from the seed, which is exact. Both are written by games.store.append.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from functools import lru_cache
from typing import Any, NamedTuple, Protocol

import orjson

from games.engine import RuleSet, State, action_to_json, apply, fork, new_game, resign
from games.engine import actions as engine_actions
from games.models import Event, Game, Playout, Seat

PublicEvents = tuple[dict[str, Any], ...]


class LogEntry(NamedTuple):
    """One entry of a game's log, whichever row holds it (the fields of ``Event``)."""

    seq: int
    seat: int | None
    actor_id: int | None
    action: dict[str, Any] | None
    action_code: int | None
    public_events: list[dict[str, Any]]
    origin: str  # an Event.Origin value
    idempotency_key: str
    created_at: datetime


class Start(Protocol):
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


START_FIELDS = ("rules", "seed", "forked_from_id", "fork_step", "fork_redeal")


def initial_state(game: Start) -> State:
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
    parent = Game.objects.only(*START_FIELDS).get(pk=game.forked_from_id)
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


@lru_cache(maxsize=8192)
def action_json(code: int, edition: str) -> dict[str, Any]:
    """An action's JSON form (engine.actions.to_json), kept: a game repeats its actions.

    Callers must not change the dict they get: it is shared.
    """
    return action_to_json(code, edition)


def public_entry(entry: Event | LogEntry) -> dict[str, Any]:
    """A log entry as clients see it (the events API, the streams, an action's answer):
    what everyone saw, never the action."""
    return {"seq": entry.seq, "seat": entry.seat, "events": entry.public_events}
