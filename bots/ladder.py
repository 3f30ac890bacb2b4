"""The ladder: which matches to start now (called by the Celery beat task)."""

from __future__ import annotations

import secrets
from random import Random

from django.conf import settings
from django.db import transaction
from django.db.models import Q

from bots import leases, services
from bots.matchmaking import Candidate, pick_table
from bots.models import BotVersion, Match, MatchEntry
from games.engine import RuleSet


@transaction.atomic
def schedule() -> list[Match]:
    """Create ladder matches until LADDER_TABLES are scheduled or running.

    Single-flight: while one run schedules, another (beat fired twice, two beats) finds
    it busy and creates nothing, so the ladder is never overbooked.
    """
    if not leases.single_flight(leases.LEASE_LADDER):
        return []
    busy_states = (Match.Status.SCHEDULED, Match.Status.RUNNING)
    running = Match.objects.filter(kind=Match.Kind.LADDER, status__in=busy_states).count()
    rng = Random(secrets.randbits(64))
    created = []
    for _ in range(max(0, settings.LADDER_TABLES - running)):
        busy = MatchEntry.objects.filter(match__status__in=busy_states).values("version_id")
        ready = (
            BotVersion.objects.filter(Q(status=BotVersion.Status.READY), bot__is_active=True)
            .exclude(pk__in=busy)
            .select_related("bot__owner")
        )
        candidates = [
            Candidate(v.pk, services.owner_key(v), v.mu, v.games_played, entrant=_entered(v))
            for v in ready
        ]
        size = rng.choice(settings.LADDER_SEATS)
        ids = pick_table(candidates, size, rng, settings.LADDER_EXPLORATION)
        if ids is None:
            break
        versions = {v.pk: v for v in ready if v.pk in ids}
        created.append(
            services.match_create(
                versions=[versions[i] for i in ids],
                rules=RuleSet.preset("2021", seats=size),
                decision_ms=settings.LADDER_DECISION_MS,
                time_bank_ms=settings.LADDER_TIME_BANK_MS,
            )
        )
    return created


def _entered(version: BotVersion) -> bool:
    """Whether someone entered this version (not one of the platform's built-ins)."""
    return bool(version.bot.owner.username != services.PLATFORM_USERNAME)
