"""Transaction-level advisory locks, the statements under bots.leases' ``serialised`` and
``single_flight`` (a run's own lease is a row: bots.persistence.leases).

Without PostgreSQL (SQLite for ``make run``: one worker running one task at a time, and
one writer at a time) there is nothing to hold: every lock is granted.
"""

from __future__ import annotations

from django.db import connection

from bots import persistence


def transaction_lock_wait(namespace: int) -> None:
    """Within a transaction: wait for the lock on ``namespace``, held until it ends."""
    if persistence.sql_path():
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_xact_lock(%s::int4, 0)", [namespace])


def transaction_lock_try(namespace: int) -> bool:
    """Within a transaction: take the lock on ``namespace`` until it ends, if no one holds
    it; whether it was taken."""
    if not persistence.sql_path():
        return True
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_try_advisory_xact_lock(%s::int4, 0)", [namespace])
        (held,) = cursor.fetchone()
    return bool(held)
