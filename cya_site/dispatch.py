"""Sending work to the workers without ever failing what has committed.

A task is sent after the change it follows commits; if the broker is down just then, the
change stands and the send is dropped with a warning, because a periodic sweep finds
what was left undone from the rows (``bots.sweep``, ``games.sweep_deadlines``,
``tournaments.sync_results``). ``TRANSIENT`` names the errors of a database or broker
that is restarting or out of reach: tasks retry those with ``backoff`` rather than
failing their work.
"""

from __future__ import annotations

import logging
import random
from typing import Any

import kombu.exceptions
import redis.exceptions
from celery import Task
from django.db import InterfaceError, OperationalError, transaction

log = logging.getLogger(__name__)

# A database connection lost or refused (psycopg's errors reach Django code as these two),
# a broker or Redis that cannot be reached or answered in time.
TRANSIENT: tuple[type[Exception], ...] = (
    OperationalError,
    InterfaceError,
    kombu.exceptions.OperationalError,
    redis.exceptions.ConnectionError,
    redis.exceptions.TimeoutError,
    ConnectionError,
)
BACKOFF_FIRST = 2.0  # seconds before the first retry
BACKOFF_MOST = 300.0  # the longest wait between retries


def backoff(retries: int) -> float:
    """Seconds to wait before retry ``retries + 1``: doubling, capped, with full jitter
    so that workers cut off together do not all come back in the same instant."""
    ceiling = min(BACKOFF_MOST, BACKOFF_FIRST * 2**retries)
    return random.uniform(ceiling / 2, ceiling)  # timing, not secrets


def send(task: Task[Any, Any], args: tuple[Any, ...] = (), **options: Any) -> bool:
    """Send ``task``; False (and a warning) if the broker could not take it."""
    try:
        task.apply_async(args, **options)
    except TRANSIENT as error:
        log.warning("%s%r not sent (%s); the sweep will find it", task.name, args, error)
        return False
    return True


def send_on_commit(task: Task[Any, Any], args: tuple[Any, ...] = (), **options: Any) -> None:
    """``send`` once the current transaction commits (at once outside one)."""
    transaction.on_commit(lambda: send(task, args, **options))
