"""Advisory locks, the statements under bots.leases.

Without PostgreSQL (SQLite for ``make run``: one worker running one task at a time, and
one writer at a time) there is nothing to hold: every lock is granted.
"""

from __future__ import annotations

from django.db import DatabaseError, connection

from bots import persistence


def lock_try(namespace: int, key: int) -> bool:
    """Take the session lock (``namespace``, ``key``) if no one holds it: whether it was taken.
    It lasts until ``lock_release`` or the connection's end."""
    if not persistence.sql_path():
        return True
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT pg_try_advisory_lock(%s::int4, %s::int4)", _lock_keys(namespace, key)
        )
        (held,) = cursor.fetchone()
    return bool(held)


def lock_release(namespace: int, key: int) -> None:
    """Let go of a lock ``lock_try`` took; a connection that is gone has let go already."""
    if not persistence.sql_path():
        return
    try:
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT pg_advisory_unlock(%s::int4, %s::int4)", _lock_keys(namespace, key)
            )
    except DatabaseError:  # the connection is gone, and the lock with it
        pass


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


def _lock_keys(namespace: int, key: int) -> list[int]:
    return [namespace, key & 0x7FFFFFFF]  # the second key is an int4 too
