"""Queues by latency class: what a person waits for never waits behind batch work.

Every task names its class here, in one table the settings turn into Celery's
``task_routes`` (STYLE section 6: routes in settings, never at the call site):

- ``interactive``: a person is waiting for it: a bot's move at a people's table, a
  decision's deadline, a new version's handshake; and beat's short housekeeping (the
  sweeps, the ladder's schedule);
- ``batch``: the ladder's and bot tournaments' matches (in slices of about
  MATCH_SLICE_SECONDS), a new version's validation game, tournaments' rounds and the
  result sync;
- ``outbound``: clubs' webhooks and bot owners' pause alerts, which wait on other
  people's servers.

Workers are started per class (docs/operations.md, "Processes"; ``make run`` starts the
same split), so a busy ladder never delays a bot's move at a people's table.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Mapping

INTERACTIVE = "interactive"
BATCH = "batch"
OUTBOUND = "outbound"
CLASSES = (INTERACTIVE, BATCH, OUTBOUND)

# task name -> latency class; a test checks that every task of the app has one
TASK_CLASSES: Mapping[str, str] = {
    "bots.play_turn": INTERACTIVE,
    "bots.check_turns": INTERACTIVE,
    # a new version's handshake: its author waits on the page (the game that follows is batch)
    "bots.handshake": INTERACTIVE,
    "games.enforce_deadline": INTERACTIVE,
    "games.sweep_deadlines": INTERACTIVE,
    "cya_site.ping": INTERACTIVE,
    # beat's housekeeping is short, and must not wait behind the matches it schedules
    # and resends: a busy ladder would look like a missing beat (cya_site.status)
    "bots.schedule_ladder": INTERACTIVE,
    "tournaments.pair_queues": INTERACTIVE,  # people waiting for a table
    "bots.sweep": INTERACTIVE,
    "bots.expire_decision_logs": BATCH,
    "bots.play_match": BATCH,
    "bots.validate_version": BATCH,
    "tournaments.play_round": BATCH,
    "tournaments.round_finished": BATCH,
    "tournaments.take_result": BATCH,
    "tournaments.rate_online_game": BATCH,
    "tournaments.rate_club": BATCH,
    "tournaments.sync_results": BATCH,
    "tournaments.deliver": OUTBOUND,
    "bots.notify_pause": OUTBOUND,
}


def queue_name(prefix: str, latency: str) -> str:
    """The broker queue of a latency class (``prefix`` keeps sites sharing a broker apart)."""
    return f"{prefix}{latency}"


def routes(prefix: str) -> dict[str, dict[str, str]]:
    """Celery's ``task_routes``: each task to its class's queue."""
    return {name: {"queue": queue_name(prefix, c)} for name, c in TASK_CLASSES.items()}


def batch_priority() -> list[str]:
    """The command a batch worker is started under: Linux's idle scheduling class
    (``chrt --idle 0``), in which it gets a core only while nothing else wants one, so
    the web servers and the interactive worker beside it never wait for it; ``nice -n 19``
    where ``chrt`` is missing. (``nice -n 10`` still let a busy ladder triple a person's
    action p99 on two cores: benchmarks/live.py.)"""
    return ["chrt", "--idle", "0"] if shutil.which("chrt") else ["nice", "-n", "19"]


def batch_concurrency(cores: int | None = None) -> int:
    """A batch worker's processes by default (the Procfile's ``BATCH_CONCURRENCY``): one
    fewer than the machine's cores, and at least one, so that people's work always finds
    a core of its own. The idle scheduling class (``batch_priority``) gives way to it on a
    shared core, but not to the cost of sharing it: with the batch worker on both cores of
    two, a bot's turn at a people's table took twice as long at the median (12 and 27 ms,
    benchmarks/live.py), every part of it alike, round trips to the database and Python."""
    return max(1, (cores or os.cpu_count() or 1) - 1)


def queues(prefix: str, classes: tuple[str, ...] = CLASSES) -> list[str]:
    """The broker queues of ``classes`` (a worker's ``--queues``)."""
    return [queue_name(prefix, c) for c in classes]
