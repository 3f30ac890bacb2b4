"""Reads shared by the API and the pages: the ladder's leaderboard, seatable versions."""

from __future__ import annotations

from typing import Any

from django.db.models import QuerySet

from bots import ratings
from bots.models import BotVersion


def leaderboard() -> list[dict[str, Any]]:
    """Every ranked version, best first by its conservative rating (mu - 3 sigma)."""
    rows = BotVersion.objects.filter(
        status=BotVersion.Status.READY, bot__is_active=True
    ).select_related("bot__owner")
    ordered = sorted(rows, key=lambda v: (-v.ordinal, -v.mu, v.pk))
    return [
        {
            "rank": i + 1,
            "bot": v.bot.name,
            "owner": v.bot.owner.username,
            "version": v.number,
            "version_id": v.pk,
            "mu": v.mu,
            "sigma": v.sigma,
            "ordinal": v.ordinal,
            "games_played": v.games_played,
            "provisional": ratings.provisional(v.sigma, v.games_played),
        }
        for i, v in enumerate(ordered)
    ]


def seatable_versions() -> QuerySet[BotVersion]:
    """The versions anyone may seat at a table: validated, of active bots."""
    return BotVersion.objects.filter(
        status=BotVersion.Status.READY, bot__is_active=True
    ).select_related("bot__user")
