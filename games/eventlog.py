"""Writing many log entries at once: COPY on PostgreSQL, bulk_create elsewhere.

A bot game is written in one go (games.services.actions_record): hundreds of entries
with two JSON columns each. On PostgreSQL they are streamed with ``COPY`` and serialised
with orjson, several times cheaper than a parameterised INSERT; other databases (SQLite
under ``make run``) take ``bulk_create``. Both write the same rows.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any, NamedTuple

import orjson
from django.db import connection

from games.models import Event

_COLUMNS = (
    "game_id", "seq", "seat", "actor_id", "action", "action_code", "public_events",
    "origin", "idempotency_key", "created_at",
)  # fmt: skip


class Entry(NamedTuple):
    """One log entry to write."""

    seq: int
    seat: int | None
    actor_id: int | None
    action: dict[str, Any] | None
    action_code: int | None
    public_events: Sequence[dict[str, Any]]
    origin: str


def append(game_id: int, entries: Sequence[Entry], created_at: datetime) -> None:
    """Write the entries in the current transaction."""
    if not entries:
        return
    if connection.vendor != "postgresql":
        Event.objects.bulk_create(
            Event(game_id=game_id, created_at=created_at, idempotency_key="", **e._asdict())
            for e in entries
        )
        return
    table = Event._meta.db_table
    with connection.cursor() as cursor:
        raw = cursor.cursor  # the psycopg cursor under Django's wrapper
        with raw.copy(f"COPY {table} ({', '.join(_COLUMNS)}) FROM STDIN") as copy:
            for e in entries:
                copy.write_row(
                    (
                        game_id,
                        e.seq,
                        e.seat,
                        e.actor_id,
                        None if e.action is None else orjson.dumps(e.action).decode(),
                        e.action_code,
                        orjson.dumps(list(e.public_events)).decode(),
                        e.origin,
                        "",
                        created_at,
                    )
                )
