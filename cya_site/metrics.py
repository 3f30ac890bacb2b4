"""Prometheus metrics (prometheus-client): what is counted where, and ``/metrics``.

Counters and histograms are module globals that the code bumps where things happen
(an action applied or refused, a game started, a match changing state, a webhook call, a
task run); states that the database or Redis already hold (matches by status, queue
lengths) are read when Prometheus scrapes, by ``_Live``, instead of being kept in step.
docs/operations.md ("Metrics") lists every metric and its labels.

Several processes (gunicorn's workers, Celery's pool) each count their own: with
``PROMETHEUS_MULTIPROC_DIR`` set in the environment before the process starts, the library
keeps each process's values in files there, and a scrape adds them up
(``MultiProcessCollector``). The directory must be emptied before the processes start
(``manage.py metrics_clear``), and a process that exits has its live gauges dropped
(``process_exited``: gunicorn's ``child_exit`` hook, Celery's ``worker_process_shutdown``).

Labels are bounded sets: a route is its URL pattern, never a path with ids in it.
"""

from __future__ import annotations

import logging
import os
import shutil
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

from django.db import DatabaseError
from prometheus_client import REGISTRY, CollectorRegistry, Counter, Gauge, Histogram, multiprocess
from prometheus_client.metrics_core import GaugeMetricFamily, Metric
from prometheus_client.registry import Collector

from cya_site import backlog

log = logging.getLogger(__name__)

MULTIPROCESS_DIR = os.environ.get("PROMETHEUS_MULTIPROC_DIR", "")

# --- requests -------------------------------------------------------------------------
REQUEST_SECONDS = Histogram(
    "cya_http_request_duration_seconds",
    "Time from a request reaching Django to its response being ready, by route pattern.",
    ["method", "route", "status"],
)
LEAN_ANSWERS = Counter(
    "cya_lean_answers_total",
    "Requests answered on the event loop without Django's middleware or DRF (cya_site.lean),"
    " by route pattern; they count in the request latency histogram too.",
    ["route"],
)

# --- games ----------------------------------------------------------------------------
ACTIONS_SUBMITTED = Counter(
    "cya_actions_submitted_total",
    "Actions applied to games through games.services.action_submit, by origin.",
    ["origin"],
)
ACTIONS_REFUSED = Counter(
    "cya_actions_refused_total",
    "Action submissions refused (stale version, illegal action, ...), by error code.",
    ["code"],
)
GAMES_STARTED = Counter("cya_games_started_total", "Games dealt (games.services.game_start).")
GAMES_ENDED = Counter(
    "cya_games_ended_total", "Games that ended, by how: finished or aborted.", ["status"]
)
STREAMS_OPEN = Gauge(
    "cya_streams_open",
    "Game streams open now (games.api.stream), over all live server processes.",
    multiprocess_mode="livesum",
)

# --- bots and the ladder --------------------------------------------------------------
MATCH_TRANSITIONS = Counter(
    "cya_match_transitions_total",
    "Matches entering a state: scheduled (created), running (claimed by a worker, again "
    "after a crash), finished, voided; by match kind.",
    ["kind", "status"],
)
SWEEP_RESENT = Counter(
    "cya_sweep_resent_total",
    "Work a sweep found left undone and sent again: match, validation, turn (bots.sweep), "
    "deadline (games.sweep_deadlines, the deadlines it enforced) and late_turn "
    "(bots.check_turns).",
    ["kind"],
)
WEBHOOK_SECONDS = Histogram(
    "cya_webhook_duration_seconds",
    "Webhook bot calls (bots.webhook), by call (decision or handshake) and outcome "
    "(ok, timeout, connection_error, http_error, malformed).",
    ["call", "outcome"],
    buckets=(0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0),
)
STRIKES = Counter("cya_bot_strikes_total", "Strikes given to bot seats, by reason.", ["reason"])

# --- Celery ---------------------------------------------------------------------------
TASK_SECONDS = Histogram(
    "cya_celery_task_duration_seconds",
    "Celery tasks' run time in the worker, by task name and final state.",
    ["task", "state"],
    buckets=(0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0, 300.0),
)


def observe_request(method: str, route: str, status: int, seconds: float) -> None:
    """One request's latency (tracing.RequestMiddleware)."""
    REQUEST_SECONDS.labels(method, route, str(status)).observe(seconds)


def process_exited(pid: int) -> None:
    """Drop an exited process's live gauges (multiprocess mode; a no-op otherwise)."""
    if MULTIPROCESS_DIR:
        multiprocess.mark_process_dead(pid, MULTIPROCESS_DIR)  # type: ignore[no-untyped-call]


def clear_multiprocess_dir(path: str) -> int:
    """Empty ``path`` of the previous run's files, as the library requires before the
    processes start (counters would otherwise go on from old values and dead processes'
    gauges linger); returns how many files went. Creates the folder if it is missing."""
    folder = Path(path)
    folder.mkdir(parents=True, exist_ok=True)
    removed = 0
    for entry in folder.iterdir():
        if entry.is_dir():
            shutil.rmtree(entry)
        else:
            entry.unlink()
        removed += 1
    return removed


# --- read at scrape time ------------------------------------------------------------------


class _Live(Collector):
    """What the database and the broker hold now: matches by kind and status, whether
    the database answered, and each Celery queue's length and oldest task's age."""

    def collect(self) -> Iterator[Metric]:
        yield from _database_families()
        yield from _queue_families()


def _database_families() -> Iterator[Metric]:
    up = GaugeMetricFamily("cya_database_up", "1 if the scrape could read the database.")
    try:
        families = [family for read in _from_database for family in read()]
    except DatabaseError as error:
        log.warning("metrics: the database did not answer: %s", error)
        up.add_metric([], 0)
        yield up
        return
    up.add_metric([], 1)
    yield up
    yield from families


# Readers of figures the database holds, added by the apps above (bots.apps: matches by
# status): cya_site imports no app.
_from_database: list[Callable[[], Iterable[Metric]]] = []


def read_at_scrape(reader: Callable[[], Iterable[Metric]]) -> None:
    """Have every scrape report ``reader``'s figures (read from the database)."""
    if reader not in _from_database:
        _from_database.append(reader)


def _queue_families() -> Iterator[Metric]:
    length = GaugeMetricFamily(
        "cya_celery_queue_length",
        "Tasks waiting in each Celery queue (-1 if the broker did not answer).",
        labels=["queue"],
    )
    oldest = GaugeMetricFamily(
        "cya_celery_queue_oldest_seconds",
        "Seconds the oldest task waiting in each Celery queue has waited (0 when empty).",
        labels=["queue"],
    )
    for found in backlog.backlogs():
        length.add_metric([found.queue], found.depth)
        oldest.add_metric([found.queue], found.oldest_seconds or 0.0)
    yield length
    yield oldest


class _Registered(Collector):
    """This process's own metrics (single-process mode: the default registry)."""

    def collect(self) -> Iterable[Metric]:
        return REGISTRY.collect()


def registry() -> CollectorRegistry:
    """What a scrape reports: every process's metrics, and the live figures."""
    scraped = CollectorRegistry(auto_describe=False)
    if MULTIPROCESS_DIR:
        multiprocess.MultiProcessCollector(scraped, MULTIPROCESS_DIR)  # type: ignore[no-untyped-call]
    else:
        scraped.register(_Registered())
    scraped.register(_Live())
    return scraped
