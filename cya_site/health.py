"""Readiness: whether the database, Redis, the Celery broker and the workers answer now.

``/readyz`` (cya_site.views), ``manage.py status`` and the admin's summary all read
``readiness()``; docs/operations.md says what each check means and what to do when it is
down.

Every check runs in a thread of its own and all of them together get ``DEADLINE``
seconds: a server that accepts connections and then hangs (a stopped process, a full
disk, a partitioned network) leaves its check unanswered, reported as down, instead of
holding the probe past a load balancer's timeout. Each check also carries its own short
timeout, so its thread ends soon after. The threads are daemons: a hung one never keeps
``manage.py status`` from exiting.

The workers are found with Celery's ``ping`` broadcast (the remote-control mailbox
every worker consumes, over Redis pub/sub or the filesystem broker's control folder),
rather than a heartbeat the workers write somewhere or a periodic task beat sends:

- a reply needs what a task needs: the worker connected to the broker, and its main
  loop running (with the prefork pool the main process answers while tasks run);
- it works the same on both brokers with no store of its own: the cache under
  ``make run`` is each process's memory, and the rows belong to the apps;
- it does not depend on beat, which is one process that may be down by itself (the
  status command watches beat's work instead: idle work the sweeps would resend).

Its price is time: the number of workers is unknown, so replies are collected for the
whole of ``WORKER_TIMEOUT``. Each reply is a worker's heartbeat; the last time each worker
answered is remembered in the cache, so a worker that stopped answering is named with
the age of its last heartbeat.
"""

from __future__ import annotations

import contextlib
import os
import threading
import time
from collections.abc import Callable, Mapping
from typing import Any

import redis
from celery import Celery
from django.conf import settings
from django.core.cache import cache
from django.db import connections

from cya_site import backlog
from cya_site.celery import app as celery_app

# Seconds all checks together may take; load balancers commonly give a probe 2 to 5 s.
DEADLINE = 1.8
# Seconds each server gets to accept a connection and to answer.
SERVER_TIMEOUT = 1
# Seconds the workers' replies to the ping are collected.
WORKER_TIMEOUT = 1.0
# Cache key of {worker name: when it last answered (epoch seconds)}.
WORKERS_SEEN_KEY = "cya:health:workers-seen"
# A worker that has not answered for this long is forgotten (no longer named as missing).
FORGET_AFTER = 24 * 3600.0

Result = dict[str, Any]
Check = Callable[[], Result]


def readiness(checks: Mapping[str, Check] | None = None) -> Result:
    """``{"status": "ok" | "down", "checks": {name: {"ok", "ms", ...}}}``, within DEADLINE."""
    results = run_checks(default_checks() if checks is None else checks, DEADLINE)
    ok = all(result["ok"] for result in results.values())
    return {"status": "ok" if ok else "down", "checks": results}


def default_checks() -> dict[str, Check]:
    """The checks of this deployment: Redis only where REDIS_URL is configured; the broker
    and the workers are ``celery_app``'s."""
    checks: dict[str, Check] = {"database": check_database}
    if settings.REDIS_URL:
        checks["redis"] = lambda: check_redis(settings.REDIS_URL)
    checks["broker"] = lambda: check_broker(celery_app)
    checks["workers"] = lambda: check_workers(celery_app)
    checks["queues"] = check_queues
    return checks


def run_checks(checks: Mapping[str, Check], deadline: float) -> dict[str, Result]:
    """Each check's result, timed. A check returns details, with ``ok: False`` and an
    ``error`` when it found its server down; a check that raised or did not end by ``deadline`` is
    down, with the error it raised or the deadline it missed."""
    results: dict[str, Result] = {}
    threads = [
        threading.Thread(
            target=_run, args=(name, check, results), name=f"readiness-{name}", daemon=True
        )
        for name, check in checks.items()
    ]
    for thread in threads:
        thread.start()
    ends = time.monotonic() + deadline
    for thread in threads:
        thread.join(max(0.0, ends - time.monotonic()))
    late = {"ok": False, "error": f"no answer within {deadline:g} s"}
    return {name: dict(results.get(name, late)) for name in checks}


def _run(name: str, check: Check, results: dict[str, Result]) -> None:
    started = time.perf_counter()
    try:
        result = {"ok": True, **check()}
    except Exception as error:  # every failure is a finding, reported by name
        result = {"ok": False, "error": f"{type(error).__name__}: {error}".strip()}
    result["ms"] = round((time.perf_counter() - started) * 1000, 1)
    results[name] = result


def check_database() -> Result:
    """The default database runs ``SELECT 1``, on a connection of this thread's own,
    closed afterwards (a probe never holds one of the serving connections)."""
    connection = connections["default"]
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
            cursor.fetchone()
    finally:
        connection.close()
    return {}


def check_redis(url: str) -> Result:
    """Redis answers PING (the cache, the throttle's counters, the announcements)."""
    client = redis.Redis.from_url(
        url, socket_connect_timeout=SERVER_TIMEOUT, socket_timeout=SERVER_TIMEOUT
    )
    try:
        client.ping()
    finally:
        client.close()
    return {}


def check_broker(app: Celery) -> Result:
    """A connection to ``app``'s broker opens: Redis answers, or the filesystem broker's
    folders are there to write to."""
    with app.connection_for_write(connect_timeout=SERVER_TIMEOUT) as connection:
        connection.ensure_connection(max_retries=0, timeout=SERVER_TIMEOUT)  # no retry: now
        transport = connection.transport_cls
        options = connection.transport_options or {}
    folder = options.get("data_folder_out")
    if folder:
        _writable(folder)
    return {"transport": transport if isinstance(transport, str) else transport.__name__}


def _writable(folder: str) -> None:
    if not os.access(folder, os.W_OK | os.X_OK):
        raise OSError(f"the broker's folder {folder} cannot be written to")


def check_queues() -> Result:
    """Each queue's waiting tasks and its oldest task's age (cya_site.backlog): what the
    workers have yet to take. Never down by itself: a backlog is for the operator to
    read (``manage.py status`` names one), and a broker away is the broker check's."""
    return {"queues": {found.queue: found.as_json() for found in backlog.backlogs()}}


def check_workers(app: Celery, timeout: float = WORKER_TIMEOUT) -> Result:
    """The workers of ``app``'s broker that answer a ping within ``timeout``: down when
    none does.

    ``workers`` maps each worker that answered now, or did within FORGET_AFTER, to the
    age in seconds of its last answer (0 for those that answered now).
    """
    replies = app.control.ping(timeout=timeout) or []
    now = time.time()
    answered = sorted(name for reply in replies for name in reply)
    seen = _remember(answered, now)
    ages = {name: round(max(0.0, now - at), 1) for name, at in sorted(seen.items())}
    result: Result = {"answered": len(answered), "workers": ages}
    if not answered:
        last = ", ".join(f"{name} {age:g} s ago" for name, age in ages.items())
        result.update(ok=False, error="no worker answered" + (f" (last: {last})" if last else ""))
    return result


def _remember(answered: list[str], now: float) -> dict[str, float]:
    """Record who answered now; return every worker seen within FORGET_AFTER. The cache
    being down (Redis away) only forgets the history; the ping's answer still counts."""
    try:
        seen: dict[str, float] = dict(cache.get(WORKERS_SEEN_KEY) or {})
    except Exception:  # the redis check reports Redis itself
        seen = {}
    seen.update(dict.fromkeys(answered, now))
    seen = {name: at for name, at in seen.items() if now - at < FORGET_AFTER}
    with contextlib.suppress(Exception):  # as above
        cache.set(WORKERS_SEEN_KEY, seen, timeout=int(FORGET_AFTER))
    return seen
