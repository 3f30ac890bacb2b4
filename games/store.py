"""Loading and saving a game's engine state: the action log is the truth.

``load_state(game)`` rebuilds the state at ``game.version`` from, in order of cost: this
process's cache, the stored snapshot (plus any actions logged after it), or a full replay
from the seed. ``save_state`` refreshes both at every version, so any web worker, not
only the one that served the last action, finds the current state in the row it reads
with the game (``select_related("snapshot")``) and never replays on the hot path.
Callers hold the game row lock when they save.

The cache learns a state only when the transaction that produced it commits: a rolled
back or failed commit must not leave a process believing in a version the database
never kept (a state is keyed by game and version, and versions only grow).
"""

from __future__ import annotations

import threading
from collections import OrderedDict

import orjson
from django.db import transaction

from cya_site import rows
from games import eventlog
from games.engine import RuleSet, State, new_game, state_from_json, state_to_json
from games.models import Game, GameSnapshot

CACHE_SIZE = 512
SNAPSHOT_FIELDS = ("version", "state")

_cache: OrderedDict[int, State] = OrderedDict()
_lock = threading.Lock()


def rules_of(game: Game) -> RuleSet:
    """The game's RuleSet."""
    return RuleSet.from_json(game.rules)


def load_state(game: Game) -> State:
    """The engine state at ``game.version`` (the game must have started)."""
    with _lock:
        cached = _cache.get(game.pk)
        if cached is not None and cached.version == game.version:
            _cache.move_to_end(game.pk)
            return cached
    state = _rebuild(game)
    _remember(game.pk, state)
    return state


def save_state(game: Game, state: State) -> None:
    """Keep ``state`` as the game's current state (the caller holds the row lock)."""
    snapshot = snapshot_state(game, state)
    if snapshot is not None:
        rows.update(snapshot, SNAPSHOT_FIELDS)


def snapshot_state(game: Game, state: State) -> GameSnapshot | None:
    """``save_state`` for a caller that writes the snapshot row with rows of its own: the
    snapshot read with the game, its fields set, for the caller to write
    (``SNAPSHOT_FIELDS``); None when there was none to reuse and it has been written."""
    _remember(game.pk, state)
    data = snapshot_bytes(state)
    snapshot: GameSnapshot | None = None
    if Game.snapshot.is_cached(game):
        snapshot = getattr(game, "snapshot", None)
    if snapshot is not None:
        snapshot.version, snapshot.state = state.version, data  # read with the game: no lookup
        return snapshot
    if not GameSnapshot.objects.filter(game=game).update(version=state.version, state=data):
        GameSnapshot.objects.create(game=game, version=state.version, state=data)
    return None


def snapshot_bytes(state: State) -> bytes:
    """The snapshot column's value for ``state``."""
    return orjson.dumps(state_to_json(state))


def remember(game_id: int, state: State) -> None:
    """Keep ``state`` in this process's cache once the current transaction commits (for a
    caller that wrote the snapshot itself)."""
    _remember(game_id, state)


def cached_version(game_id: int) -> int | None:
    """The version of the game this process holds in memory, if any (diagnostics, tests)."""
    with _lock:
        cached = _cache.get(game_id)
    return None if cached is None else cached.version


def forget(game_id: int) -> None:
    """Drop a game's cached state (tests use it to force a rebuild)."""
    with _lock:
        _cache.pop(game_id, None)


def _remember(game_id: int, state: State) -> None:
    transaction.on_commit(lambda: _cache_put(game_id, state))


def _cache_put(game_id: int, state: State) -> None:
    with _lock:
        _cache[game_id] = state
        _cache.move_to_end(game_id)
        while len(_cache) > CACHE_SIZE:
            _cache.popitem(last=False)


def _rebuild(game: Game) -> State:
    if game.seed is None:
        raise ValueError(f"game {game.pk} has not been dealt")
    if Game.snapshot.is_cached(game):  # read with the game row: the same version
        snapshot = getattr(game, "snapshot", None)
    else:
        snapshot = GameSnapshot.objects.filter(game=game).first()
    if snapshot is not None and snapshot.version <= game.version:
        state = state_from_json(orjson.loads(snapshot.state))
    else:
        state = new_game(rules_of(game), game.seed)
    if state.version < game.version:
        for code in eventlog.codes(game, state.version, game.version):
            state = replay_one(state, code)
    if state.version != game.version:
        raise RuntimeError(f"game {game.pk}: log ends at {state.version}, game at {game.version}")
    return state


def replay_one(state: State, code: int | None) -> State:
    """Apply one logged action (eventlog.replay_step): the state it leads to."""
    return eventlog.replay_step(state, code)[0]
