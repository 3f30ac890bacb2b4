"""Challenges: an owner's bot against chosen bots and built-ins, on N duplicate deals, unrated.

The owner of a bot with a ready version names its opponents (other people's ready
versions, their own, or the platform's built-in strategies), the number of deals and the
rules. Each deal is one friendly match (``bots.services.match_create``): the same cards
once per rotation of the seats, so every entrant plays every chair, dealt from the
challenge's seed as the arena and ``cya-bot play`` deal (bots.strategies.duplicate). The
matches are played by ``bots.play_match`` on the batch queue, in slices, like the
ladder's; a friendly match is never rated, so no entrant's rating, games or matches
played move. The sweep resends a deal whose task was lost, as it does any match.

An owner may start ``CHALLENGES_PER_DAY`` challenges in any 24 hours; one more is refused
``too_many_challenges`` (429) with ``wait_seconds`` (answered as ``Retry-After``) until
the oldest of them is a day old. A paused version (bots.health) neither challenges nor is
challenged. Anyone may read a challenge's results, as anyone may read a ladder match.
"""

from __future__ import annotations

import math
import secrets
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from accounts.models import User
from bots import selectors, services, tasks
from bots.models import Bot, BotVersion, Challenge, ChallengeDeal, Match
from bots.strategies.duplicate import deal_seeds
from bots.validation import SEATABLE_BUILTINS, builtin_versions
from cya_site import dispatch
from cya_site.errors import DomainError
from games.engine import RuleSet

MAX_DEALS = 20
MAX_OPPONENTS = 5  # six seats at most (RULES #5: the ladder's and the arena's largest table)
DAY = timedelta(days=1)


@dataclass(frozen=True)
class Opponent:
    """An opponent to seat: a built-in ``strategy`` by name, or a bot ``version`` id."""

    strategy: str = ""
    version: int | None = None


@transaction.atomic
def challenge_create(
    *, by: User, bot: Bot, opponents: Sequence[Opponent], deals: int, rules: RuleSet
) -> Challenge:
    """Challenge ``opponents`` with ``bot``'s ready version to ``deals`` duplicate deals.

    Raises DomainError ``permission_denied`` (403) unless ``by`` owns the bot;
    ``version_paused`` (409) for a paused challenger or opponent; ``no_ready_version``
    (409) for a bot with no ready version; ``no_such_version``, ``unknown_strategy``,
    ``same_entrant`` or ``invalid_rules`` (422); ``too_many_challenges`` (429) past
    ``CHALLENGES_PER_DAY``. The deals' matches are sent to the workers after the commit.
    """
    if bot.owner_id != by.pk:
        raise DomainError(
            "permission_denied", "Only the bot's owner challenges with it.", status=403
        )
    if not 1 <= deals <= MAX_DEALS:
        raise DomainError("invalid", f"deals must be 1 to {MAX_DEALS}.", {"field": "deals"})
    entrants = [_challenger(bot), *_opponents(opponents)]
    _check_distinct(entrants)
    if rules.seats != len(entrants):
        raise DomainError(
            "invalid_rules",
            f"The rules seat {rules.seats}, the challenge has {len(entrants)} entrants.",
            {"field": "seats"},
        )
    _limit_check(by, timezone.now())
    challenge = Challenge.objects.create(
        by=by, bot=bot, deals=deals, rules=rules.to_json(), seed=secrets.randbits(40)
    )
    for number, seed in enumerate(deal_seeds(challenge.seed, deals), start=1):
        match = services.match_create(
            versions=entrants,
            kind=Match.Kind.FRIENDLY,
            rules=rules,
            seed=seed,
            decision_ms=settings.LADDER_DECISION_MS,
            time_bank_ms=settings.LADDER_TIME_BANK_MS,
        )
        ChallengeDeal.objects.create(challenge=challenge, number=number, match=match)
        dispatch.send_on_commit(tasks.play_match, (match.pk,))
    return challenge


def _paused(version: BotVersion, field: str, **extra: int) -> DomainError:
    return DomainError(
        "version_paused",
        f"{version.bot.name} v{version.number} is paused: it neither challenges nor is "
        "challenged until its owner resumes it.",
        {"field": field, "version": version.pk, **extra},
        409,
    )


def _challenger(bot: Bot) -> BotVersion:
    """The bot's ready version, which plays the challenge."""
    versions = BotVersion.objects.select_related("bot__user").filter(bot=bot)
    ready = versions.filter(status=BotVersion.Status.READY).first()
    if ready is not None and bot.is_active:
        return ready
    paused = versions.filter(status=BotVersion.Status.PAUSED).first()
    if paused is not None:
        raise _paused(paused, "bot")
    raise DomainError(
        "no_ready_version",
        f"{bot.name} has no ready version to play: add one, and wait for its validation.",
        {"field": "bot", "bot": bot.name},
        409,
    )


def _opponents(chosen: Sequence[Opponent]) -> list[BotVersion]:
    """Each opponent's version: the built-in one of its strategy, or the ready version it
    names (``unknown_strategy``, ``version_paused``, ``no_such_version`` otherwise)."""
    if not 1 <= len(chosen) <= MAX_OPPONENTS:
        raise DomainError(
            "invalid", f"Choose 1 to {MAX_OPPONENTS} opponents.", {"field": "opponents"}
        )
    ids = {o.version for o in chosen if o.version is not None}
    ready = {v.pk: v for v in selectors.seatable_versions().filter(pk__in=ids)}
    builtins = {v.strategy: v for v in builtin_versions(SEATABLE_BUILTINS)}
    out = []
    for index, opponent in enumerate(chosen):
        if opponent.version is None:
            if opponent.strategy not in builtins:
                raise DomainError(
                    "unknown_strategy",
                    f"strategy must be one of {', '.join(sorted(builtins))}",
                    {"field": "opponents", "opponent": index, "strategy": opponent.strategy},
                )
            out.append(builtins[opponent.strategy])
        elif opponent.version in ready:
            out.append(ready[opponent.version])
        else:
            out.append(_not_ready(opponent.version, index))
    return out


def _not_ready(version_id: int, index: int) -> BotVersion:
    """Raise why version ``version_id`` cannot be challenged: paused, or not ready at all."""
    version = BotVersion.objects.select_related("bot").filter(pk=version_id).first()
    if version is not None and version.status == BotVersion.Status.PAUSED:
        raise _paused(version, "opponents", opponent=index)
    raise DomainError(
        "no_such_version",
        "No validated version of an active bot has that id.",
        {"field": "opponents", "opponent": index, "version": version_id},
    )


def _check_distinct(entrants: Sequence[BotVersion]) -> None:
    """A version sits once at a table of a challenge (its challenger included)."""
    seen: set[int] = set()
    for index, version in enumerate(entrants):
        if version.pk in seen:
            raise DomainError(
                "same_entrant",
                f"{version.bot.name} v{version.number} is entered twice: each entrant plays once.",
                {"field": "opponents", "opponent": index - 1, "version": version.pk},
            )
        seen.add(version.pk)


# --- the daily limit -------------------------------------------------------------------------


def challenges_left(user: User, now: datetime) -> tuple[int, float]:
    """How many more challenges ``user`` may start now, and, if none, the seconds until
    one more is allowed (the oldest of the last 24 hours turns a day old)."""
    limit = settings.CHALLENGES_PER_DAY
    recent = list(
        Challenge.objects.filter(by=user, created_at__gt=now - DAY)
        .order_by("-created_at")
        .values_list("created_at", flat=True)[:limit]
    )
    if len(recent) < limit:
        return limit - len(recent), 0.0
    return 0, (recent[-1] + DAY - now).total_seconds()


def _limit_check(user: User, now: datetime) -> None:
    """Refuse a challenge past the day's limit. The user's row is locked first, so two
    challenges sent at once are counted one after the other."""
    User.objects.select_for_update().filter(pk=user.pk).first()
    left, wait = challenges_left(user, now)
    if left <= 0:
        seconds = max(1, math.ceil(wait))
        raise DomainError(
            "too_many_challenges",
            f"You have started {settings.CHALLENGES_PER_DAY} challenges in the last 24 hours, "
            f"the most a day allows: try again in {seconds} seconds.",
            {"wait_seconds": seconds, "limit": settings.CHALLENGES_PER_DAY},
            429,
        )
