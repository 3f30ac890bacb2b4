"""Finding the work a crash or an outage left undone: matches, validations and bot turns
no worker holds.

A match is sent to the workers when it is created, a validation when its version is; a
worker that dies, a database that restarts under a task, a broker that restarts with
messages in it, can each leave one with no task to finish it. The sweep (``bots.sweep``,
every SWEEP_EVERY_SECONDS) sends again each one that has waited SWEEP_AFTER_SECONDS since
it was last sent and that no worker holds (its lease is free). A run that meets work
already done or held leaves it, so sending twice is harmless.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.core.cache import cache
from django.db.models import Max, QuerySet

from bots import leases
from bots.models import BotVersion, Match
from games.models import Game

BUSY = (Match.Status.SCHEDULED, Match.Status.RUNNING)
VALIDATING = (BotVersion.Status.PENDING, BotVersion.Status.VALIDATING)


def idle_matches(now: datetime) -> list[int]:
    """Matches to send again (marked as sent now): unfinished, idle, held by no one."""
    stale = now - timedelta(seconds=settings.SWEEP_AFTER_SECONDS)
    return _take(_waiting_matches(stale), leases.LEASE_MATCH, stale, now)


def idle_validations(now: datetime) -> list[int]:
    """Versions whose validation to send again, as ``idle_matches``."""
    stale = now - timedelta(seconds=settings.SWEEP_AFTER_SECONDS)
    return _take(_waiting_validations(stale), leases.LEASE_VERSION, stale, now)


def idle_counts(now: datetime) -> dict[str, int]:
    """How many matches and validations the sweep would send again at ``now``, marking
    nothing (``manage.py status``): at most SWEEP_BATCH of each, as a sweep takes."""
    stale = now - timedelta(seconds=settings.SWEEP_AFTER_SECONDS)
    return {
        "matches": len(_unheld(_waiting_matches(stale), leases.LEASE_MATCH)),
        "validations": len(_unheld(_waiting_validations(stale), leases.LEASE_VERSION)),
    }


def _waiting_matches(stale: datetime) -> QuerySet[Match]:
    return Match.objects.filter(status__in=BUSY, dispatched_at__lt=stale)


def _waiting_validations(stale: datetime) -> QuerySet[BotVersion]:
    return BotVersion.objects.filter(status__in=VALIDATING, dispatched_at__lt=stale)


def _unheld(found: QuerySet[Any], namespace: int) -> list[int]:
    """The ids of ``found`` that no one holds, oldest first (at most SWEEP_BATCH)."""
    ids = found.order_by("dispatched_at").values_list("pk", flat=True)[: settings.SWEEP_BATCH]
    return [pk for pk in ids if leases.lease_free(namespace, pk)]


def _take(found: QuerySet[Any], namespace: int, stale: datetime, now: datetime) -> list[int]:
    """The ids of ``found`` that no one holds, oldest first, each marked sent by a
    conditional update, so that two sweeps at once send each one once."""
    again = found.model._default_manager.filter(dispatched_at__lt=stale)
    return [pk for pk in _unheld(found, namespace) if again.filter(pk=pk).update(dispatched_at=now)]


def late_turns(now: datetime) -> list[tuple[int, int]]:
    """Bot turns at people's tables that were due and did not come (a broker restart lost
    the task, a worker died): the (game, version) of each that no worker holds, TURN_LATE_SECONDS
    past its time (BOT_MOVE_DELAY_MS after the move before), each at most once per
    TURN_LATE_SECONDS (``bots.check_turns`` sends them again every TURN_CHECK_SECONDS)."""
    late = settings.BOT_MOVE_DELAY_MS / 1000 + settings.TURN_LATE_SECONDS
    return [
        turn
        for turn in idle_turns(now, idle_for=timedelta(seconds=late))
        if _first_call(f"cya:turn-resent:{turn[0]}:{turn[1]}", settings.TURN_LATE_SECONDS)
    ]


def _first_call(key: str, seconds: int) -> bool:
    """Whether no one has asked for ``key`` in the last ``seconds`` (the cache's add).
    A cache out of reach (Redis away) answers yes: a turn sent twice plays once."""
    try:
        return bool(cache.add(key, 1, timeout=seconds))
    except Exception:  # a cache that cannot be reached: see above
        return True


def idle_turns(now: datetime, idle_for: timedelta | None = None) -> list[tuple[int, int]]:
    """Bot turns at people's tables left unplayed (a lost task, a worker that died): the
    (game, version) of every active table whose bot has been to act for more than
    ``idle_for`` (SWEEP_AFTER_SECONDS) and that no worker holds."""
    if idle_for is None:
        idle_for = timedelta(seconds=settings.SWEEP_AFTER_SECONDS)
    stale = now - idle_for
    found = (
        Game.objects.filter(status=Game.Status.ACTIVE, mode=Game.Mode.DIGITAL)
        .exclude(bot_seats=[])
        .annotate(last=Max("events__created_at"))
        .filter(last__lt=stale)
        .order_by("last")
        .values_list("pk", "version", "to_act", "bot_seats")
    )
    return [
        (pk, version)
        for pk, version, to_act, bots in found[: settings.SWEEP_BATCH]
        if to_act in bots and leases.lease_free(leases.LEASE_TURN, pk)
    ]
