"""Celery tasks of the bots app: thin, idempotent, given ids only.

A database or broker outage (cya_site.dispatch.TRANSIENT) is retried with backoff, never
counted against the work; work that no retry reaches is sent again by ``sweep``.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from celery import Task, shared_task
from django.conf import settings
from django.utils import timezone

from bots import decision_log, health, ladder, leases, recovery, runner, services, validation
from bots.models import BotVersion
from cya_site import dispatch, metrics

log = logging.getLogger(__name__)
MAX_ATTEMPTS = 3
SLICED = "sliced"  # a slice of a match played; the rest is sent as a new task
HELD = "held elsewhere"  # another run holds the match; sent again for when it runs out


@shared_task(
    name="bots.play_match",
    bind=True,
    acks_late=True,
    time_limit=7200,
    soft_time_limit=7000,
    max_retries=None,
)
def play_match(self, match_id: int) -> str:  # type: ignore[no-untyped-def]
    """Play a slice of a match (its games for MATCH_SLICE_SECONDS), then send the rest as
    a new task; the last slice rates it. A rerun resumes it, and rates it only once.

    A platform fault (an engine or server error, or a worker crashing again and again)
    voids the match instead of rating it; an outage only delays it. A second delivery
    while the first still runs finds the match held and leaves it.
    """
    try:
        outcome = _play(match_id, run=self.request.id or "", tried=self.request.retries)
    except dispatch.TRANSIENT as error:
        log.warning("match %s: %s; retrying", match_id, error)
        raise self.retry(exc=error, countdown=dispatch.backoff(self.request.retries)) from None
    if outcome == SLICED:  # behind the batch work sent meanwhile, never ahead of it
        dispatch.send(play_match, (match_id,))
    elif outcome == HELD:  # come back when it would run out: its holder may have died
        wait = leases.held_for(leases.LEASE_MATCH, match_id)
        dispatch.send(play_match, (match_id,), countdown=wait + 1)
    return outcome


def _play(match_id: int, *, run: str, tried: int) -> str:
    with leases.lease(leases.LEASE_MATCH, match_id, run, tried) as held:
        if held is None:
            return HELD
        log.info("match %s: run %s start", match_id, held.token)
        try:
            return _slice(match_id, held, attempt=tried == 0)
        finally:
            log.info("match %s: run %s end", match_id, held.token)


def _slice(match_id: int, held: leases.Held, *, attempt: bool) -> str:
    match = services.match_claim(match_id=match_id, attempt=attempt)
    if match is None:
        return "already ended"
    if match.attempts > MAX_ATTEMPTS:
        services.match_void(match=match, reason=f"gave up after {MAX_ATTEMPTS} attempts")
        return "voided"
    try:
        if not runner.run_slice(match, settings.MATCH_SLICE_SECONDS, held):
            services.match_attempt_refund(match_id=match_id)
            return SLICED
    except dispatch.TRANSIENT:
        raise  # an outage is no fault of the match: retried, never voided
    except leases.LeaseLost:  # cut off and taken over: the other run plays it
        log.warning("match %s: lease %s lost, stopping", match_id, held.token)
        services.match_attempt_refund(match_id=match_id)
        return "lease lost"
    except Exception as error:  # a platform fault: never rate what it touched
        log.exception("match %s voided", match_id)
        services.match_void(match=match, reason=f"{type(error).__name__}: {error}")
        return "voided"
    return "finished"


@shared_task(
    name="bots.handshake",
    bind=True,
    acks_late=True,
    time_limit=120,
    soft_time_limit=100,
    max_retries=None,
)
def handshake(self, version_id: int) -> str:  # type: ignore[no-untyped-def]
    """A new version's handshake, on the interactive queue: its author learns in seconds
    whether the bot answers; a pass sends the validation game to the batch queue."""
    outcome = _validating(self, version_id, validation.handshake)
    if outcome == BotVersion.Status.VALIDATING:
        dispatch.send(validate_version, (version_id,))
    return outcome


@shared_task(
    name="bots.validate_version",
    bind=True,
    acks_late=True,
    time_limit=3600,
    soft_time_limit=3500,
    max_retries=None,
)
def validate_version(self, version_id: int) -> str:  # type: ignore[no-untyped-def]
    """A version's validation game at a full table, on the batch queue (its handshake
    first, if it is still PENDING: a sweep's resend, ``manage.py`` and the tests)."""
    return _validating(self, version_id, validation.validate)


def _validating(
    task: Task[Any, Any], version_id: int, step: Callable[[BotVersion, leases.Fence], BotVersion]
) -> str:
    """Run ``step`` (a part of bots.validation) on the version under its lease, its
    writes fenced by it: a second delivery finds it held, a run whose lease was taken
    over stops without writing."""
    try:
        run, tried = task.request.id or "", task.request.retries
        with leases.lease(leases.LEASE_VERSION, version_id, run, tried) as held:
            if held is None:
                return HELD
            version = BotVersion.objects.select_related("bot").get(pk=version_id)
            # VALIDATING too: a redelivery after the worker died mid-validation finishes it
            if version.status not in recovery.VALIDATING:
                return str(version.status)
            try:
                return str(step(version, held.check).status)
            except dispatch.TRANSIENT:
                raise
            except leases.LeaseLost:  # taken over: the other run validates it
                log.warning("version %s: lease %s lost, stopping", version_id, held.token)
                return "lease lost"
            except Exception as error:  # a platform fault: said, and never left validating
                log.exception("validation of version %s failed", version_id)
                note = f"validation stopped by a platform fault ({type(error).__name__})"
                with leases.fenced(held.check):
                    failed = services.version_validated(version=version, passed=False, log=[note])
                return str(failed.status)
    except dispatch.TRANSIENT as error:
        log.warning("version %s: %s; retrying", version_id, error)
        raise task.retry(exc=error, countdown=dispatch.backoff(task.request.retries)) from None


@shared_task(
    name="bots.play_turn",
    bind=True,
    acks_late=True,
    time_limit=600,
    soft_time_limit=570,
    max_retries=None,
)
def play_turn(self, game_id: int, version: int) -> str:  # type: ignore[no-untyped-def]
    """A bot seat's move at a people's table (bots.tables), if it is still its turn at
    ``version``; a second delivery finds the move made, or the game held, and leaves."""
    try:
        lease = leases.lease(
            leases.LEASE_TURN, game_id, self.request.id or "", self.request.retries
        )
        with lease as held:
            if held is None:
                return HELD
            try:
                return runner.play_turn(game_id, version, held.check, held.last_check)
            except leases.LeaseLost:  # taken over: the other run plays the turn
                log.warning("game %s turn %s: lease lost, stopping", game_id, version)
                return "lease lost"
    except dispatch.TRANSIENT as error:
        log.warning("game %s turn %s: %s; retrying", game_id, version, error)
        raise self.retry(exc=error, countdown=dispatch.backoff(self.request.retries)) from None


@shared_task(name="bots.check_turns", time_limit=30, soft_time_limit=20)
def check_turns() -> int:
    """Send again, within seconds of when it was due, each bot turn at a people's table
    that did not come (bots.recovery.late_turns): people do not wait for the sweep."""
    turns = recovery.late_turns(timezone.now())
    for turn in turns:
        dispatch.send(play_turn, turn)
    if turns:
        metrics.SWEEP_RESENT.labels("late_turn").inc(len(turns))
    return len(turns)


@shared_task(name="bots.schedule_ladder", time_limit=60, soft_time_limit=50)
def schedule_ladder() -> int:
    """Keep the ladder's tables playing: start matches up to the configured number."""
    matches = ladder.schedule()
    for match in matches:
        dispatch.send(play_match, (match.pk,))
    return len(matches)


@shared_task(name="bots.sweep", time_limit=120, soft_time_limit=100)
def sweep() -> int:
    """Send again the matches, validations and bot turns a crash or an outage left undone."""
    now = timezone.now()
    matches, versions = recovery.idle_matches(now), recovery.idle_validations(now)
    turns = recovery.idle_turns(now)
    for match_id in matches:
        dispatch.send(play_match, (match_id,))
    statuses = BotVersion.objects.filter(pk__in=versions).values_list("pk", "status")
    for version_id, status in statuses:  # the handshake on its own queue, then the game
        pending = status == BotVersion.Status.PENDING
        dispatch.send(handshake if pending else validate_version, (version_id,))
    for turn in turns:
        dispatch.send(play_turn, turn)
    for kind, found in (("match", matches), ("validation", versions), ("turn", turns)):
        if found:
            metrics.SWEEP_RESENT.labels(kind).inc(len(found))
    return len(matches) + len(versions) + len(turns)


@shared_task(name="bots.notify_pause", time_limit=60, soft_time_limit=50)
def notify_pause(version_id: int) -> str:
    """Tell a paused version's owner, by email and on the bot's alert webhook (each if
    set), once: a redelivery finds it told (``bots.health.pause_claim``)."""
    version = health.pause_claim(version_id)
    if version is None:
        return "told already, or no longer paused"
    return ", ".join(health.pause_tell(version)) or "nothing to tell on"


@shared_task(name="bots.expire_decision_logs", time_limit=600, soft_time_limit=570)
def expire_decision_logs() -> int:
    """Delete the decision logs older than DECISION_LOG_DAYS (beat runs it every
    DECISION_LOG_SWEEP_SECONDS); a rerun finds them gone."""
    return decision_log.expire(timezone.now())
