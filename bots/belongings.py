"""The bots part of a person's data download and deletion (accounts.belongings): the bot
entries they own, with their versions (never a webhook secret) and the games their
decision logs are kept for (each downloaded as NDJSON: the logs themselves can be
megabytes, so the download names them rather than holding them); deleting the account
stops its bots being scheduled and deletes their decision logs, while their games and
ratings stay."""

from __future__ import annotations

from typing import Any

from django.db.models import Sum

from accounts import belongings
from accounts.models import User
from bots.models import Bot, DecisionLog


def bots_export(user: User) -> list[dict[str, Any]]:
    """Each bot the person owns, with its versions."""
    bots = Bot.objects.filter(owner=user).prefetch_related("versions").order_by("id")
    logs: dict[int, list[dict[str, Any]]] = {}
    kept = (
        DecisionLog.objects.filter(version__bot__owner=user)
        .values("version__bot_id", "game_id", "seat", "version__number")
        .annotate(count=Sum("decisions"))
        .order_by("version__bot_id", "game_id", "seat")
    )
    for row in kept:
        bot_id, game = row["version__bot_id"], row["game_id"]
        logs.setdefault(bot_id, []).append(
            {
                "game": game,
                "seat": row["seat"],
                "version": row["version__number"],
                "decisions": row["count"],
                "download": f"/api/v1/bots/{bot_id}/decision-log/?game={game}",
            }
        )
    return [
        {
            "name": bot.name,
            "kind": bot.kind,
            "description": bot.description,
            "created_at": bot.created_at.isoformat(),
            "active": bot.is_active,
            "versions": [
                {
                    "number": v.number,
                    "tag": v.tag,
                    "strategy": v.strategy,
                    "url": v.url,
                    "status": v.status,
                    "mu": v.mu,
                    "sigma": v.sigma,
                    "games_played": v.games_played,
                }
                for v in bot.versions.all()
            ],
            "decision_logs": logs.get(bot.pk, []),
        }
        for bot in bots
    ]


def bots_depart(user: User, shown_as: str) -> None:
    """A deleted person's bots are no longer scheduled, and their decision logs (the
    bots' debug notes, which were theirs alone to read) are deleted."""
    Bot.objects.filter(owner=user).update(is_active=False)
    DecisionLog.objects.filter(version__bot__owner=user).delete()


def register() -> None:
    belongings.register_export("bots", bots_export)
    belongings.register_departure("bots", bots_depart)
