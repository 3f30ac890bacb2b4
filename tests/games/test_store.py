"""The stored state: the log is the truth, the snapshot follows it, the cache never lies.

A game's engine state is kept three ways (games.store): the seed and action log, a
snapshot row rewritten at every version, and each process's in-memory cache. These tests
show that both derived copies equal a replay of the log, and that a transaction that rolls
back leaves no trace in the cache.
"""

from __future__ import annotations

import random

import orjson
import pytest
from django.db import connection, transaction
from pytest_django import DjangoAssertNumQueries

from accounts.models import User
from games import services, store
from games.engine import (
    RuleSet,
    State,
    action_to_json,
    legal_actions,
    replay,
    state_from_json,
    state_to_json,
)
from games.models import Event, Game, GameSnapshot


class Rollback(Exception):
    """Raised to roll a transaction back on purpose."""


def replayed(game: Game) -> State:
    """The state that replaying the seed and the whole logged action list gives."""
    assert game.seed is not None
    log = Event.objects.filter(game=game, seq__gt=0).order_by("seq")
    codes = [code for code in log.values_list("action_code", flat=True) if code is not None]
    return replay(store.rules_of(game), game.seed, codes)


def test_the_snapshot_is_the_replayed_log_at_every_version(
    started: Game, alice: User, bob: User, carol: User
) -> None:
    users = {0: alice, 1: bob, 2: carol}
    rng = random.Random(3)
    for _ in range(40):
        game = Game.objects.get(pk=started.pk)
        if game.status != Game.Status.ACTIVE:
            break
        state = store.load_state(game)
        action = action_to_json(rng.choice(legal_actions(state)), state.rules.edition)
        services.action_submit(
            game_id=game.pk, user=users[state.to_act], action=action, version=game.version
        )

        game.refresh_from_db()
        snapshot = GameSnapshot.objects.get(game=game)
        assert snapshot.version == game.version
        assert state_from_json(orjson.loads(snapshot.state)) == replayed(game)


def test_a_game_read_with_its_snapshot_loads_without_replaying(
    started: Game, alice: User, django_assert_num_queries: DjangoAssertNumQueries
) -> None:
    services.action_submit(
        game_id=started.pk, user=alice, action={"type": "discard", "card": "cabin"}, version=0
    )
    store.forget(started.pk)
    game = Game.objects.select_related("snapshot").get(pk=started.pk)

    with django_assert_num_queries(0):
        state = store.load_state(game)

    assert state == replayed(game)


def test_a_stale_snapshot_is_caught_up_from_the_log(started: Game, alice: User) -> None:
    opening = store.load_state(started)
    services.action_submit(
        game_id=started.pk, user=alice, action={"type": "discard", "card": "cabin"}, version=0
    )
    # as if the last save had been lost: the snapshot one version behind the log
    stale = orjson.dumps(state_to_json(opening))
    GameSnapshot.objects.filter(game=started).update(version=0, state=stale)
    store.forget(started.pk)
    game = Game.objects.get(pk=started.pk)

    assert store.load_state(game) == replayed(game)


@pytest.mark.usefixtures("transactional_db")
def test_a_rolled_back_action_never_reaches_the_cache(alice: User, bob: User, staff: User) -> None:
    game = services.game_create(by=alice, rules=RuleSet.preset("2021", seats=2))
    services.game_join(game=game, user=bob)
    game = services.game_start(game=game, by=staff, seed=7)
    first, second = (
        action_to_json(code, "2021") for code in legal_actions(store.load_state(game))[:2]
    )
    assert first != second

    def submit_then_roll_back() -> None:
        with transaction.atomic():
            services.action_submit(game_id=game.pk, user=alice, action=first, version=0)
            raise Rollback

    with pytest.raises(Rollback):
        submit_then_roll_back()
    assert store.cached_version(game.pk) == 0
    # the same version, reached by another action this time
    services.action_submit(game_id=game.pk, user=alice, action=second, version=0)

    game.refresh_from_db()
    assert game.version == 1
    assert store.load_state(game) == replayed(game)
    assert Event.objects.get(game=game, seq=1).action == second


def test_snapshots_are_compressed_with_lz4_on_postgresql(db: None) -> None:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT attcompression FROM pg_attribute"
            " WHERE attrelid = 'games_gamesnapshot'::regclass AND attname = 'state'"
        )
        (method,) = cursor.fetchone()

    assert method == "l"  # lz4 (migration 0003): several times cheaper than pglz
