"""cya_site.rows: the hot path's hand-built statements mean what the ORM's mean."""

from __future__ import annotations

import threading

import pytest
from django.db import DEFAULT_DB_ALIAS, IntegrityError, connection, connections, transaction
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


def test_insert_and_update_write_what_the_orm_would(game: Game) -> None:
    entry = log_entry(game, 1)
    game.version, game.to_act = 1, 0
    game.snapshot.version, game.snapshot.state = 1, b'{"v": 1}'

    rows.insert(entry)
    changed = rows.update(game, ["version", "to_act"]) + rows.update(
        game.snapshot, ["version", "state"]
    )

    assert changed == 2
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


def test_a_refused_insert_writes_nothing_and_raises_the_orms_error(game: Game) -> None:
    rows.insert(log_entry(game, 1))

    with pytest.raises(IntegrityError), transaction.atomic():  # seq 1 is taken
        rows.insert(log_entry(game, 1))

    assert Event.objects.filter(game=game).count() == 1


def test_insert_from_writes_one_row_per_source_row_and_none_without_one(game: Game) -> None:
    sql = "WITH source AS (SELECT id FROM games_game WHERE id = %s) " + rows.insert_from(
        Event, "source"
    )

    for seq, game_id in ((1, game.pk), (2, -1)):  # the second game does not exist
        entry = log_entry(game, seq)
        with rows.cursor() as cursor:
            cursor.execute(sql, [game_id, *rows.insert_values(entry)])
            found = cursor.fetchall()
        assert len(found) == (1 if game_id == game.pk else 0)

    assert list(Event.objects.filter(game=game).values_list("seq", "action")) == [
        (1, {"type": "discard"})
    ]


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


def test_statements_are_logged_like_the_orms_with_their_values(game: Game) -> None:
    game.version = 7
    with CaptureQueriesContext(connection) as queries:
        rows.update(game, ["version"])

    assert [q["sql"] for q in queries] == [
        f'UPDATE "games_game" SET "version" = 7 WHERE "id" = {game.pk}'
    ]


def test_statements_run_on_the_connection_of_the_thread_that_runs_them(game: Game) -> None:
    """As Django's ``connection`` would: each thread has its own, looked up when it runs."""
    used = {}

    def run() -> None:
        try:
            with rows.cursor() as cursor:
                cursor.execute("SELECT 1")
                used["thread"] = (cursor.db, connections[DEFAULT_DB_ALIAS])
        finally:
            connections.close_all()

    thread = threading.Thread(target=run)
    thread.start()
    thread.join()
    with rows.cursor() as cursor:
        ours = cursor.db

    theirs, their_own = used["thread"]
    assert theirs is their_own
    assert ours is connections[DEFAULT_DB_ALIAS]
    assert theirs is not ours


@pytest.mark.skipif(connection.vendor != "postgresql", reason="prepared on PostgreSQL only")
def test_a_statement_is_prepared_once_per_connection(game: Game) -> None:
    statement = 'UPDATE "games_game" SET "version" = $1 WHERE "id" = $2'

    def prepared() -> int:
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT count(*) FROM pg_prepared_statements WHERE statement = %s", [statement]
            )
            return int(cursor.fetchone()[0])

    for version in (1, 2, 3):
        game.version = version
        rows.update(game, ["version"])

    assert prepared() == 1
    assert Game.objects.values_list("version", flat=True).get(pk=game.pk) == 3


@pytest.mark.skipif(connection.vendor != "postgresql", reason="prepared on PostgreSQL only")
def test_a_prepared_statement_is_planned_once_not_on_every_run(game: Game) -> None:
    statement = 'UPDATE "games_game" SET "round_number" = $1 WHERE "id" = $2'
    for number in range(1, 9):  # past the five runs after which PostgreSQL would choose
        game.round_number = number
        rows.update(game, ["round_number"])

    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT generic_plans, custom_plans FROM pg_prepared_statements WHERE statement = %s",
            [statement],
        )
        assert cursor.fetchone() == (8, 0)
