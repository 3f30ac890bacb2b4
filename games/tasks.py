"""Celery tasks of the games app: thin, idempotent, and given ids only."""

from __future__ import annotations

from datetime import datetime

from celery import shared_task
from django.conf import settings
from django.utils import timezone

from cya_site import dispatch, metrics
from games import selectors, services
from games.services.announce import ENFORCE_DEADLINE


@shared_task(name=ENFORCE_DEADLINE, time_limit=30, soft_time_limit=20, acks_late=True)
def enforce_deadline(game_id: int, version: int) -> int | None:
    """Apply the safe default to an unanswered decision once its deadline has passed.

    Scheduled with ``eta`` at the deadline; a rerun, or a run after the seat answered,
    finds the game at another version and changes nothing. A run that comes too early
    schedules itself again for the deadline.
    """
    outcome = services.decision_timeout(game_id=game_id, version=version)
    if isinstance(outcome, datetime):
        dispatch.send(enforce_deadline, (game_id, version), eta=outcome)
        return None
    return None if outcome is None else outcome.seq


@shared_task(name="games.sweep_deadlines", time_limit=120, soft_time_limit=100)
def sweep_deadlines() -> int:
    """Enforce the deadlines whose task was lost (a broker restarted, or down when the
    decision was made): every timed decision overdue by more than SWEEP_AFTER_SECONDS."""
    found = selectors.overdue_decisions(timezone.now()).values_list("pk", "version")
    enforced = sum(
        services.decision_timeout(game_id=pk, version=version) is not None
        for pk, version in found[: settings.SWEEP_BATCH]
    )
    if enforced:
        metrics.SWEEP_RESENT.labels("deadline").inc(enforced)
    return enforced
