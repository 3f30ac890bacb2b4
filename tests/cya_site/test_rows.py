"""cya_site.rows: the hot path's hand-built statements mean what the ORM's mean."""

from __future__ import annotations

import pytest
from django.db import IntegrityError, connection, transaction
from django.test.utils import CaptureQueriesContext

from accounts.models import User
from cya_site import rows
from games.models import Event, Game, GameSnapshot


@pytest.fixture
def game(alice: User) -> Game:
    game = Game.objects.create(created_by=alice, rules={}, seat_count=2)
    GameSnapshot.objects.create(game=game, version=0, state=b"{}")
    return Game.objects.select_related("snapshot").get(pk=game.pk)


def log_entry(game: Game, seq: int) -> Event:
    return Event(game=game, seq=seq, seat=1, action={"type": "discard"}, public_events=[{"a": 1}])


def test_write_inserts_and_updates_as_the_orm_would_in_one_statement(game: Game) -> None:
    entry = log_entry(game, 1)
    game.version, game.to_act = 1, 0
    game.snapshot.version, game.snapshot.state = 1, b'{"v": 1}'

    with CaptureQueriesContext(connection) as queries:
        rows.write([entry], [(game, ["version", "to_act"]), (game.snapshot, ["version", "state"])])

    assert len(queries) == (1 if connection.vendor == "postgresql" else 3)
    stored = Event.objects.get(pk=entry.pk)
    assert (stored.game_id, stored.seq, stored.action, stored.public_events) == (
        game.pk,
        1,
        {"type": "discard"},
        [{"a": 1}],
    )
    assert not entry._state.adding
    assert Game.objects.values_list("version", "to_act").get(pk=game.pk) == (1, 0)
    snapshot = GameSnapshot.objects.get(game=game)
    assert (snapshot.version, bytes(snapshot.state)) == (1, b'{"v": 1}')


def test_a_refused_row_writes_none_of_them(game: Game) -> None:
    rows.insert(log_entry(game, 1))
    game.version = 5

    with pytest.raises(IntegrityError), transaction.atomic():  # seq 1 is taken
        rows.write([log_entry(game, 1)], [(game, ["version"])])

    assert Event.objects.filter(game=game).count() == 1
    assert Game.objects.values_list("version", flat=True).get(pk=game.pk) == 0


def test_fetch_one_loads_instances_through_the_orms_converters(game: Game) -> None:
    entry = log_entry(game, 1)
    rows.insert(entry)
    columns = rows.Columns(Event, "e")

    found = rows.fetch_one(
        f"SELECT {columns.sql} FROM {columns.table} WHERE e.id = %s", [entry.pk], [columns]
    )

    assert found is not None
    loaded = found[0]
    assert isinstance(loaded, Event)
    assert (loaded.pk, loaded.action, loaded.public_events, loaded.created_at) == (
        entry.pk,
        entry.action,
        entry.public_events,
        Event.objects.get(pk=entry.pk).created_at,
    )
