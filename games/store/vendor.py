"""The seam's one choice of path: PostgreSQL's statements, or the ORM on any other database.

Every write of ``games.store`` that PostgreSQL does in one statement has an ORM twin for
SQLite (``make run``); ``native()`` picks between them, and nothing else in the app asks
the database's vendor. ``orm_fallback()`` takes the ORM twin on PostgreSQL too, so the
suite runs both paths through the same tests against the same database
(tests/games/test_store_paths.py).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from django.db import connection

_orm_only = False


def native() -> bool:
    """Whether the seam writes with its PostgreSQL statements (else through the ORM)."""
    return connection.vendor == "postgresql" and not _orm_only


@contextmanager
def orm_fallback() -> Iterator[None]:
    """Within the block the seam takes its ORM path on every database (tests: both paths
    must write the same rows)."""
    global _orm_only  # a process-wide switch: the suite runs one test at a time
    before, _orm_only = _orm_only, True
    try:
        yield
    finally:
        _orm_only = before
