"""Reads shared by the API and the pages: the ladder's leaderboard, seatable versions,
a bot, its versions, matches, strikes and rating history."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.db.models import Prefetch, Q, QuerySet

from accounts.models import User
from bots import ratings
from bots.models import Bot, BotVersion, Match, MatchEntry, MatchGame, RatingChange, Strike


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


# --- a bot's page and its API reads ---------------------------------------------------------


def bot_named(name: str) -> Bot | None:
    """The bot called ``name`` (names are unique in any letter case), with its owner."""
    return Bot.objects.select_related("owner", "user").filter(name__iexact=name).first()


def bot_filter(value: str) -> Q:
    """Which bot ``value`` names: a number is an id, anything else a name (any letter
    case). One reading each, so a value never names two bots (a bot whose name is all
    digits is found by its id)."""
    if value.isdigit():
        return Q(pk=int(value))
    return Q(name__iexact=value)


def matches_of(bots: Q) -> QuerySet[Match]:
    """The matches in which a version of the bots ``bots`` selects sat: one row each,
    however many of its versions sat there."""
    entries = MatchEntry.objects.filter(version__bot__in=Bot.objects.filter(bots))
    return Match.objects.filter(pk__in=entries.values("match_id"))


def match_rows(matches: QuerySet[Match]) -> QuerySet[Match]:
    """Matches with everything a match's row shows: entries with their bots, the games
    (with their status: only a finished one has a replay), the rating changes, and the
    bot challenge a friendly match is a deal of (four queries, however many matches)."""
    games = MatchGame.objects.select_related("game").only(
        "match_id", "rotation", "game_id", "game__status"
    )
    return matches.select_related("challenge_deal").prefetch_related(
        "entries__version__bot",
        Prefetch("match_games", queryset=games),
        Prefetch("rating_changes", queryset=RatingChange.objects.select_related("version__bot")),
    )


def bot_versions(bot: Bot) -> list[BotVersion]:
    """Every version of a bot, newest first."""
    return list(bot.versions.order_by("-number"))


def bot_strikes(bot: Bot, limit: int) -> list[Strike]:
    """A bot's latest strikes (newest first), each with its version and its seat's game."""
    rows = Strike.objects.filter(control__version__bot=bot).select_related(
        "control__seat", "control__version"
    )
    return list(rows.order_by("-created_at", "-pk")[:limit])


@dataclass(frozen=True)
class RatingPoint:
    """A version's conservative rating (mu - 3 sigma) after one rated match."""

    match_id: int
    version: int  # its number
    ordinal: float
    at: datetime


def rating_history(bot: Bot, limit: int) -> list[RatingPoint]:
    """The bot's versions' ratings after each of its latest ``limit`` rated matches,
    oldest first."""
    changes = (
        RatingChange.objects.filter(version__bot=bot)
        .select_related("version")
        .order_by("-created_at", "-match_id")[:limit]
    )
    return [
        RatingPoint(c.match_id, c.version.number, c.mu_after - 3 * c.sigma_after, c.created_at)
        for c in reversed(changes)
    ]


def bots_owned(user: User) -> list[Bot]:
    """A user's own bots, by name, with their versions (two queries)."""
    bots = Bot.objects.filter(owner=user).select_related("owner").prefetch_related("versions")
    return list(bots.order_by("name"))


def bots_all() -> QuerySet[Bot]:
    """Every bot, by name, with its owner and versions (for a page of them)."""
    return Bot.objects.select_related("owner").prefetch_related("versions").order_by("name")
