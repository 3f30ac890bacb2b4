"""The log's writer: an entry and every row it changes are written together, or not at all.

``store.append`` is the one way an action reaches the log (games.services calls it for
every action, resignation and timeout, and for a built-in game's playout). Every test
here runs twice (the ``store_path`` fixture): through the PostgreSQL statement, and
through its ORM twin, the path SQLite takes, forced on the same database.
"""

from __future__ import annotations

from typing import Any

import pytest
from django.db import IntegrityError, transaction
from django.utils import timezone

from accounts.models import User
from games import services, store
from games.engine import State, action_from_json, action_to_json, apply, legal_actions
from games.models import Event, Game, GameSnapshot, Seat
from tests.games.conftest import engine_state

pytestmark = pytest.mark.usefixtures("store_path")

DISCARD_CABIN = {"type": "discard", "card": "cabin"}  # seat 0's opening hand holds a cabin


def played(
    game: Game, user: User, action: dict[str, Any], key: str = ""
) -> tuple[Event, State, bytes]:
    """The entry for ``action`` at the game's version, the new state and its snapshot, with
    the game row's progress fields set as services would set them (nothing written)."""
    state = engine_state(game)
    code = action_from_json(action, "2021")
    new_state, events = apply(state, code)
    game.version, game.to_act = new_state.version, new_state.to_act
    entry = Event(
        game=game,
        seq=new_state.version,
        seat=state.to_act,
        actor=user,
        action=action_to_json(code, "2021"),
        action_code=code,
        public_events=list(events),
        idempotency_key=key,
        created_at=timezone.now(),
    )
    return entry, new_state, store.snapshot_bytes(new_state)


def snapshot_of(game: Game) -> tuple[int, bytes]:
    row = GameSnapshot.objects.get(game=game)
    return row.version, bytes(row.state)


def test_writes_the_entry_with_the_game_row_its_snapshot_and_the_seat(
    started: Game, alice: User
) -> None:
    entry, new_state, snapshot = played(started, alice, DISCARD_CABIN)
    seat = Seat.objects.get(game=started, number=0)
    seat.time_bank_ms = 1234

    written = store.append(
        started,
        0,
        entry,
        fields=services.PROGRESS_FIELDS,
        state=new_state,
        seat=(seat, ("time_bank_ms",)),
    )

    assert written is True
    assert entry.pk == Event.objects.get(game=started, seq=1).pk
    started.refresh_from_db()
    assert (started.version, started.to_act) == (1, new_state.to_act)
    assert snapshot_of(started) == (1, snapshot)
    assert Seat.objects.get(pk=seat.pk).time_bank_ms == 1234
    assert engine_state(started) == new_state


def test_refuses_a_game_that_moved_on_and_writes_nothing(started: Game, alice: User) -> None:
    read_at_zero = Game.objects.get(pk=started.pk)  # by a submission about to lose the race
    late, new_state, _ = played(read_at_zero, alice, {"type": "discard", "card": "jewels"})
    services.action_submit(game_id=started.pk, user=alice, action=DISCARD_CABIN, version=0)
    before = snapshot_of(started), list(Event.objects.filter(game=started).values())
    seat = Seat.objects.get(game=started, number=0)
    seat.time_bank_ms = 99

    written = store.append(
        read_at_zero,
        0,
        late,
        fields=services.PROGRESS_FIELDS,
        state=new_state,
        seat=(seat, ("time_bank_ms",)),
    )

    assert written is False
    assert late.pk is None
    assert (snapshot_of(started), list(Event.objects.filter(game=started).values())) == before
    assert Seat.objects.get(pk=seat.pk).time_bank_ms is None
    assert Game.objects.get(pk=started.pk).version == 1


def test_refuses_a_game_that_has_ended_and_writes_nothing(started: Game, alice: User) -> None:
    entry, new_state, _ = played(started, alice, DISCARD_CABIN)
    Game.objects.filter(pk=started.pk).update(status=Game.Status.ABORTED)

    written = store.append(started, 0, entry, fields=services.PROGRESS_FIELDS, state=new_state)

    assert written is False
    assert not Event.objects.filter(game=started, seq=1).exists()
    assert Game.objects.get(pk=started.pk).version == 0


def test_an_entry_that_breaks_a_constraint_raises_and_writes_nothing(
    started: Game, alice: User, bob: User
) -> None:
    services.action_submit(
        game_id=started.pk, user=alice, action=DISCARD_CABIN, version=0, key="once"
    )
    action = action_to_json(legal_actions(engine_state(started))[0], "2021")
    entry, new_state, _ = played(started, bob, action, key="once")  # the key seq 1 used

    with pytest.raises(IntegrityError), transaction.atomic():
        store.append(started, 1, entry, fields=services.PROGRESS_FIELDS, state=new_state)

    assert Game.objects.get(pk=started.pk).version == 1
    assert snapshot_of(started)[0] == 1
    assert list(Event.objects.filter(game=started).values_list("seq", flat=True)) == [0, 1]
