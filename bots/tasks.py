"""Celery tasks of the bots app: thin, idempotent, given ids only."""

from __future__ import annotations

import logging

from celery import shared_task

from bots import ladder, runner, services, validation
from bots.models import BotVersion

log = logging.getLogger(__name__)
MAX_ATTEMPTS = 3


@shared_task(name="bots.play_match", acks_late=True, time_limit=7200, soft_time_limit=7000)
def play_match(match_id: int) -> str:
    """Play a match to its end and rate it; a rerun resumes it, and rates it only once.

    A platform fault (an engine or server error, or a worker crashing again and again)
    voids the match instead of rating it. A second delivery while the first still runs
    waits for it (``match_lease``), then finds the match ended.
    """
    with services.match_lease(match_id):
        match = services.match_claim(match_id=match_id)
        if match is None:
            return "already ended"
        if match.attempts > MAX_ATTEMPTS:
            services.match_void(match=match, reason=f"gave up after {MAX_ATTEMPTS} attempts")
            return "voided"
        try:
            runner.run_match(match)
        except Exception as error:  # a platform fault: never rate what it touched
            log.exception("match %s voided", match_id)
            services.match_void(match=match, reason=f"{type(error).__name__}: {error}")
            return "voided"
        return "finished"


@shared_task(name="bots.validate_version", acks_late=True, time_limit=3600, soft_time_limit=3500)
def validate_version(version_id: int) -> str:
    """Handshake and one validation game at a full table before a version is ranked."""
    version = BotVersion.objects.select_related("bot").get(pk=version_id)
    # VALIDATING too: a redelivery after the worker died mid-validation finishes it
    if version.status not in (BotVersion.Status.PENDING, BotVersion.Status.VALIDATING):
        return version.status
    return validation.validate(version).status


@shared_task(name="bots.schedule_ladder", time_limit=60, soft_time_limit=50)
def schedule_ladder() -> int:
    """Keep the ladder's tables playing: start matches up to the configured number."""
    matches = ladder.schedule()
    for match in matches:
        play_match.delay(match.pk)
    return len(matches)
