"""Leases: who may do a piece of work just now, so a second delivery leaves it alone.

A lease (``lease``) is a row (bots.models.Lease) on (namespace, key) with an owner, a
fencing token and an expiry. A task holds its work's lease while it runs, renewing the
expiry in the background: a second delivery of the task finds it held and leaves it (the
broker redelivers a task that outruns its visibility timeout, the sweep resends work it
finds idle). Unlike an advisory lock, a row outlives a database restart, so two runs of
one match never overlap. A worker that dies stops renewing: LEASE_SECONDS later the work
is free for the next run, whose take-over raises the token; the first run, if it was only
cut off, then fails its ``Held.check`` at its next finishing write and stops without
writing (tasks give back the attempt it claimed).

Single-flight scheduling and get-or-create races use transaction-level advisory locks
(``serialised``, ``single_flight``), which end with their transaction.
"""

from __future__ import annotations

import logging
import os
import socket
import threading
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from datetime import datetime, timedelta

from django.conf import settings
from django.db import DatabaseError, connection, connections, transaction
from django.utils import timezone

from bots.persistence import leases as lease_rows
from bots.persistence import locks
from cya_site import rows

log = logging.getLogger(__name__)

LEASE_MATCH = 0x626F7473  # "bots": the first key of a match's advisory lock
LEASE_VERSION = 0x76657273  # "vers": a version's validation
LEASE_LADDER = 0x6C616464  # "ladd": the ladder's scheduling (one key)
LEASE_BUILTIN = 0x6275696C  # "buil": creating the built-in bots (one key)
LEASE_TURN = 0x7475726E  # "turn": a bot seat's move at a people's table (by game)


Fence = Callable[[], None]  # a run's ``Held.check``, or ``unfenced``


def unfenced() -> None:
    """No lease to check: a run outside a task (``manage.py play``, a test)."""


@contextmanager
def fenced(fence: Fence) -> Iterator[None]:
    """A finishing write's transaction, ``fence`` checked first inside it: a run whose
    lease was taken over raises LeaseLost there and writes nothing."""
    with transaction.atomic():
        fence()
        yield


@contextmanager
def fenced_pipeline(fence: Fence, *, last: bool = False) -> Iterator[None]:
    """``fenced`` for a block whose statements go in one round trip (games of built-in
    seats written whole: games.store.append_all): a run's lease (a ``Held`` as the fence)
    is checked in the same transaction, before them, and on PostgreSQL in the same round
    trip (cya_site.rows.pipeline), its answer read once they have run. A run whose lease
    was taken over raises LeaseLost, whatever the block did or raised, and the
    transaction, rolled back, writes nothing. The block must not need a statement's
    row count (a pipeline has none until it syncs). ``last``: the block is the run's
    last write (a match's result), and the statement that checks the lease lets it go
    too, as ``Held.last_check`` does."""
    if not isinstance(fence, Held):
        with fenced(fence):
            yield
        return
    with transaction.atomic(), rows.pipeline(), fence.sent(last) as held:
        try:
            yield
        except Exception as error:  # perhaps a write refused for being stale: it was
            if _lost(held):  # another run's, which took this one's lease over
                raise fence.lost() from error
            raise
        if not held():
            raise fence.lost()


def _lost(held: Callable[[], bool]) -> bool:
    """Whether a lease's check, read after its block failed, says it was taken over
    (False if the failure left it unreadable)."""
    try:
        return not held()
    except DatabaseError:
        return False


class LeaseLost(Exception):
    """A run's lease was taken over (its time ran out while the database was away): it
    must not write what it has done."""


class Held:
    """A lease this run holds: its fencing token, renewed in the background until let go."""

    def __init__(self, namespace: int, key: int, owner: str, token: int) -> None:
        self.namespace, self.key, self.owner, self.token = namespace, key, owner, token
        self._stop = threading.Event()
        self._renewer = threading.Thread(target=self._renew, name=f"lease-{key}", daemon=True)
        self._let_go_with_write = False

    def check(self) -> None:
        """Within the transaction of a finishing write: raise LeaseLost unless this run
        still holds the lease, and keep it so until the transaction ends."""
        if not lease_rows.current(self.namespace, self.key, self.token):
            raise self.lost()

    __call__ = check  # a run's fence (``Fence``): ``fenced_pipeline`` knows it by its type

    def lost(self) -> LeaseLost:
        return LeaseLost(f"lease {self.namespace}:{self.key} #{self.token} taken over")

    def last_check(self) -> None:
        """``check`` for a run whose finishing write is its last (a bot's turn at a
        people's table): the same statement lets the lease go with the write, so the run
        ends one round trip sooner. Renewing stops first, as the run is ending; a write
        rolled back leaves the lease held, and ``lease`` lets it go as usual."""
        self._stop.set()
        if not lease_rows.release(self.namespace, self.key, self.token, timezone.now()):
            raise LeaseLost(f"lease {self.namespace}:{self.key} #{self.token} taken over")
        transaction.on_commit(self._written)

    def sent(self, last: bool) -> AbstractContextManager[Callable[[], bool]]:
        """``fenced_pipeline``'s check, sent in its round trip: the lease kept locked to
        the transaction's end, or with ``last`` let go by it (``last_check``)."""
        if not last:
            return lease_rows.current_sent(self.namespace, self.key, self.token)
        self._stop.set()
        transaction.on_commit(self._written)
        return lease_rows.release_sent(self.namespace, self.key, self.token, timezone.now())

    def _written(self) -> None:
        self._let_go_with_write = True

    def _renew(self) -> None:
        """Push the expiry on every third of LEASE_SECONDS; a database that is away is
        tried again at the next turn, on a new connection."""
        try:
            while not self._stop.wait(settings.LEASE_SECONDS / 3):
                try:
                    if not lease_rows.renew(self.namespace, self.key, self.token, *_times()):
                        log.warning("lease %s:%s taken over", self.namespace, self.key)
                        return
                except DatabaseError as error:
                    log.warning("lease %s:%s not renewed (%s)", self.namespace, self.key, error)
                    connection.close()
        finally:
            connections.close_all()  # this thread's own connection

    def _let_go(self) -> None:
        self._stop.set()
        self._renewer.join(timeout=10)
        if self._let_go_with_write:
            return
        try:
            lease_rows.release(self.namespace, self.key, self.token, timezone.now())
        except DatabaseError:  # the database is away: the lease runs out by itself
            log.warning("lease %s:%s left to run out", self.namespace, self.key)


def _times() -> tuple[datetime, timedelta]:
    return timezone.now(), timedelta(seconds=settings.LEASE_SECONDS)


@contextmanager
def lease(namespace: int, key: int, run: str = "", tried: int = 0) -> Iterator[Held | None]:
    """Hold (``namespace``, ``key``) while the block runs, unless someone else holds it:
    yields this run's ``Held`` (its fencing token), or None. The lease is a row: a
    database restart does not drop it, as it would an advisory lock, so a second run
    cannot start while the first one still works; a holder that died lets go after
    LEASE_SECONDS.

    The owner is ``run`` (a task's id, which its retries keep), its ``tried`` (the
    task's retries) and this process: a retry takes the lease on from its earlier try at
    once, even one that could not let go (the database was away), while a copy of the
    task delivered twice finds it held (bots.persistence.leases.succeeds)."""
    owner = f"{run or threading.get_ident()}#{tried}@{socket.gethostname()}:{os.getpid()}"
    token = lease_rows.take(namespace, key, owner, *_times())
    if token is None:
        yield None
        return
    held = Held(namespace, key, owner, token)
    held._renewer.start()
    try:
        yield held
    finally:
        held._let_go()


def held_for(namespace: int, key: int) -> float:
    """Seconds until the lease runs out if its holder stops renewing it (0: free)."""
    expires = lease_rows.expires(namespace, key)
    return 0.0 if expires is None else max(0.0, (expires - timezone.now()).total_seconds())


def lease_free(namespace: int, key: int) -> bool:
    """Whether no one holds the lease just now (the sweep's test of idle work)."""
    return lease_rows.free(namespace, key, timezone.now())


def serialised(namespace: int) -> None:
    """Within a transaction: wait until no other transaction runs under ``namespace``,
    and keep others waiting until this one ends (get-or-create paths that race)."""
    locks.transaction_lock_wait(namespace)


def single_flight(namespace: int) -> bool:
    """Within a transaction: whether this one is the only one running under
    ``namespace`` (a transaction-level advisory lock, let go at commit or rollback).
    Without PostgreSQL, SQLite's one writer at a time is the only guard."""
    return locks.transaction_lock_try(namespace)
