"""Loading and saving a game's engine state: the action log is the truth (part of games.store).

``load_state(game)`` rebuilds the state at ``game.version`` from, in order of cost: this
process's cache, the stored snapshot (plus any actions logged after it), or a full replay
from the seed. The snapshot is rewritten with every log entry (games.store.append), so
any web worker, not only the one that served the last action, finds the current state in
the row it reads with the game (``select_related("snapshot")``) and never replays on
the hot path.

The cache learns a state only when the transaction that produced it commits: a rolled
back or failed commit must not leave a process believing in a version the database
never kept (a state is keyed by game and version, and versions only grow).
"""

from __future__ import annotations

import threading
from collections import OrderedDict

import orjson
from django.db import transaction

from games.engine import RuleSet, State, state_from_json, state_to_json
from games.models import Game, GameSnapshot
from games.store import log

CACHE_SIZE = 512

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
    """Keep ``state`` as the game's current state (a game being dealt; the caller holds
    the row lock). Actions write their snapshot with their log entry (store.append)."""
    GameSnapshot.objects.update_or_create(
        game=game, defaults={"version": state.version, "state": snapshot_bytes(state)}
    )
    _remember(game.pk, state)


def snapshot_bytes(state: State) -> bytes:
    """The snapshot column's value for ``state``."""
    return orjson.dumps(state_to_json(state))


def saved(game: Game, state: State, data: bytes) -> None:
    """For a caller that has just written ``data`` (``snapshot_bytes(state)``) as the
    game's snapshot: the snapshot row read with the game says so too, and this process's
    cache keeps ``state`` once the current transaction commits."""
    if Game.snapshot.is_cached(game):
        snapshot = getattr(game, "snapshot", None)
        if snapshot is not None:
            snapshot.version, snapshot.state = state.version, data
    _remember(game.pk, state)


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
        state = log.initial_state(game)
    if state.version < game.version:
        for code in log.codes(game, state.version, game.version):
            state = replay_one(state, code)
    if state.version != game.version:
        raise RuntimeError(f"game {game.pk}: log ends at {state.version}, game at {game.version}")
    return state


def replay_one(state: State, code: int | None) -> State:
    """Apply one logged action (log.replay_step): the state it leads to."""
    return log.replay_step(state, code)[0]
