"""Leases: who may do a piece of work just now, so a second delivery leaves it alone.

A lease is an advisory lock (bots.persistence.locks) on (namespace, key). A task holds its
work's lease while it runs: a second delivery of the task finds it held by the first and
leaves it (the broker redelivers a task that outruns its visibility timeout, the sweep
resends work it finds idle for a while). A worker that dies, even by SIGKILL, drops its
leases with its connection, and the work is free for the next run.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from bots.persistence import locks

LEASE_MATCH = 0x626F7473  # "bots": the first key of a match's advisory lock
LEASE_VERSION = 0x76657273  # "vers": a version's validation
LEASE_LADDER = 0x6C616464  # "ladd": the ladder's scheduling (one key)
LEASE_BUILTIN = 0x6275696C  # "buil": creating the built-in bots (one key)
LEASE_TURN = 0x7475726E  # "turn": a bot seat's move at a people's table (by game)


@contextmanager
def lease(namespace: int, key: int) -> Iterator[bool]:
    """Hold (``namespace``, ``key``) while the block runs, unless someone else holds it:
    yields whether this run got it. Without PostgreSQL (SQLite for ``make run``, one worker
    that runs one task at a time) there is nothing to hold, and every run gets it."""
    if not locks.lock_try(namespace, key):
        yield False
        return
    try:
        yield True
    finally:
        locks.lock_release(namespace, key)


def lease_free(namespace: int, key: int) -> bool:
    """Whether no one holds the lease just now (the sweep's test of idle work)."""
    with lease(namespace, key) as held:
        return held


def serialised(namespace: int) -> None:
    """Within a transaction: wait until no other transaction runs under ``namespace``,
    and keep others waiting until this one ends (get-or-create paths that race)."""
    locks.transaction_lock_wait(namespace)


def single_flight(namespace: int) -> bool:
    """Within a transaction: whether this one is the only one running under
    ``namespace`` (a transaction-level advisory lock, let go at commit or rollback).
    Without PostgreSQL, SQLite's one writer at a time is the only guard."""
    return locks.transaction_lock_try(namespace)
