"""The hottest read: a user's seat with its game and snapshot (part of games.store).

Every decision read and every action starts here, so each shape is one statement built
once (games.store.statements), its rows loaded through the ORM's own converters
(cya_site.rows). The statement is portable: SQLite runs the same one.
"""

from __future__ import annotations

from typing import Any, cast

from accounts.models import User
from cya_site import rows
from cya_site.errors import DomainError
from games.models import Event, Game, GameSnapshot, Seat
from games.store import statements


def seat_at(game_id: int, user: User, *, lock: bool = False) -> Seat:
    """The user's seat at a game, with the game row and its snapshot, in one query.

    ``lock`` also locks the game row until the transaction ends. Raises DomainError
    ``not_found`` (404) for no such game and ``not_seated`` (403) for a game the user has
    no seat at.
    """
    return _seat(statements.seat(lock, False), [game_id, user.pk], game_id)[0]


def seat_and_entry(game_id: int, user: User, key: str) -> tuple[Seat, Event | None]:
    """``seat_at``, and the game's log entry sent with Idempotency-Key ``key`` if there is
    one (by anyone), in the same query: a retry is recognised at no extra cost."""
    sql = statements.seat(False, True)
    return _seat(sql, [key, game_id, user.pk], game_id, statements.ENTRY_COLUMNS)


def _seat(
    sql: str, params: list[Any], game_id: int, *extra: rows.Columns
) -> tuple[Seat, Event | None]:
    found = rows.fetch_one(sql, params, (*statements.SEAT_COLUMNS, *extra))
    if found is None:
        if not Game.objects.filter(pk=game_id).exists():
            raise DomainError("not_found", "No such game.", status=404)
        raise DomainError("not_seated", "You have no seat at this table.", status=403)
    seat, game, snapshot, *entry = found
    Seat.game.field.set_cached_value(seat, game)
    with_snapshot(game, snapshot)
    return cast(Seat, seat), cast(Event | None, entry[0] if entry else None)


def with_snapshot(game: Game, snapshot: GameSnapshot | None) -> Game:
    """Cache a snapshot read in the game's query on both (store.load_state reads it there)."""
    Game.snapshot.related.set_cached_value(game, snapshot)
    if snapshot is not None:
        GameSnapshot.game.field.set_cached_value(snapshot, game)
    return game
