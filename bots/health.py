"""A version's health: off the ladder when its answers keep failing, back on when they work.

A ready version is paused automatically after ``BOT_PAUSE_STRIKES`` strikes in a row
across games (a good answer resets the count), or once ``BOT_PAUSE_AUTOPILOT_GAMES`` of
its seats went to the autopilot within ``BOT_PAUSE_WINDOW_MINUTES``. Its owner may pause
and resume it by hand too. A paused version is never seated (the ladder and the tables
take ready versions only), its seats in games still running go to the autopilot, and a
match it sat in does not move its rating (``bots.services.match_finish``). Resuming
repeats the validation handshake first (webhook bots), and resumes only if it passes.

The owner of an automatically paused version is told on its page, by email if their
account has an address, and on the bot's alert webhook if they set one
(``bots.notify_pause``, after the commit).
"""

from __future__ import annotations

import json
import logging
import time
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, cast

import httpx
from celery import Task, signature
from django.conf import settings
from django.core.mail import send_mail
from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from accounts.models import User
from bots import webhook
from bots.models import Bot, BotVersion, SeatControl
from cya_site import dispatch, outbound
from cya_site.errors import DomainError
from games.models import Game

log = logging.getLogger(__name__)
NOTIFY_PAUSE = "bots.notify_pause"  # bots.tasks.notify_pause, sent by name (no cycle)
Reason = BotVersion.PauseReason


@dataclass(frozen=True)
class Limits:
    """When a version is paused: strikes in a row, or autopilot games within a window."""

    strikes: int
    autopilot_games: int
    window: timedelta


def limits() -> Limits:
    """The limits the settings give."""
    return Limits(
        settings.BOT_PAUSE_STRIKES,
        settings.BOT_PAUSE_AUTOPILOT_GAMES,
        timedelta(minutes=settings.BOT_PAUSE_WINDOW_MINUTES),
    )


def verdict(*, streak: int, autopilot_games: int, rules: Limits) -> tuple[str, str] | None:
    """Why a version must be paused (a ``PauseReason`` and words for its owner), or None."""
    if streak >= rules.strikes:
        return Reason.STRIKES, f"{streak} strikes in a row across games"
    if autopilot_games >= rules.autopilot_games:
        minutes = int(rules.window.total_seconds() // 60)
        return Reason.AUTOPILOT, f"{autopilot_games} games on autopilot within {minutes} minutes"
    return None


def strike_counted(*, version_id: int, detail: str, autopilot: bool) -> BotVersion | None:
    """Count a strike of a ready version (``autopilot``: it just put a seat on autopilot),
    and pause the version if that was one too many; the version when it was paused.

    Runs inside ``bots.services.strike_record``'s transaction, with the version's row
    locked, so two of its games striking at once count both strikes.
    """
    version = BotVersion.objects.select_for_update().get(pk=version_id)
    if version.status != BotVersion.Status.READY:  # validation, or already off the ladder
        return None
    version.strike_streak += 1
    version.save(update_fields=["strike_streak"])
    now = timezone.now()
    rules = limits()
    games = _autopilot_games(version, now - rules.window) if autopilot else 0
    found = verdict(streak=version.strike_streak, autopilot_games=games, rules=rules)
    if found is None:
        return None
    reason, words = found
    return _pause(version, reason, f"{words}; the latest: {detail}"[:300], now, notify=True)


def _autopilot_games(version: BotVersion, since: datetime) -> int:
    if version.health_since is not None:
        since = max(since, version.health_since)
    return SeatControl.objects.filter(version=version, autopilot_since__gte=since).count()


def answered(version: BotVersion) -> None:
    """A good answer: the strikes in a row start again from none. Writes only when the
    version (as read with its seat) had some, so a healthy bot's decisions cost nothing."""
    if version.strike_streak:
        BotVersion.objects.filter(pk=version.pk).update(strike_streak=0)
        version.strike_streak = 0


def _pause(
    version: BotVersion, reason: str, detail: str, now: datetime, *, notify: bool
) -> BotVersion:
    """Take a locked ready version off the ladder; its running games' seats go to the
    autopilot, so nobody waits on a bot that is known not to answer."""
    version.status = BotVersion.Status.PAUSED
    version.paused_at = now
    version.pause_reason = reason
    version.pause_detail = detail
    version.pause_notified_at = None
    version.strike_streak = 0
    version.save(
        update_fields=[
            "status", "paused_at", "pause_reason", "pause_detail", "pause_notified_at",
            "strike_streak",
        ]
    )  # fmt: skip
    SeatControl.objects.filter(
        version=version, autopilot_since__isnull=True, seat__game__status=Game.Status.ACTIVE
    ).update(autopilot_since=now)
    if notify:
        dispatch.send_on_commit(cast("Task[Any, Any]", signature(NOTIFY_PAUSE)), (version.pk,))
    return version


def _require_owner(bot: Bot, user: User) -> None:
    if bot.owner_id != user.pk and not user.is_staff:
        raise DomainError("permission_denied", "This bot is someone else's.", status=403)


@transaction.atomic
def version_pause(*, bot: Bot, by: User) -> BotVersion:
    """Pause the bot's ready version by hand (its owner or staff).

    Raises DomainError ``permission_denied`` (403), or ``nothing_to_pause`` (409) when
    the bot has no ready version.
    """
    _require_owner(bot, by)
    version = (
        BotVersion.objects.select_for_update()
        .filter(bot=bot, status=BotVersion.Status.READY)
        .first()
    )
    if version is None:
        raise DomainError(
            "nothing_to_pause", "This bot has no ready version to pause.", {"bot": bot.name}, 409
        )
    return _pause(version, Reason.OWNER, f"paused by {by.username}", timezone.now(), notify=False)


def version_resume(*, bot: Bot, by: User) -> BotVersion:
    """Put the bot's paused version back on the ladder, once its handshake answers.

    A webhook version's handshake is repeated first, outside any transaction (it waits on
    the bot's server). Raises DomainError ``permission_denied`` (403), ``not_paused``
    (409) when no version of the bot is paused, or ``handshake_failed`` (409, the reason
    in ``details``) when the handshake did not pass: the version stays paused.
    """
    _require_owner(bot, by)
    version = _paused(bot)
    if bot.kind == Bot.Kind.WEBHOOK:
        try:
            webhook.handshake(version.url, version.secret)
        except webhook.HandshakeError as error:
            raise DomainError(
                "handshake_failed",
                f"The handshake failed ({error.reason}: {error.detail}); the version stays paused.",
                {"reason": error.reason, "detail": error.detail},
                409,
            ) from None
        finally:  # a web request's thread keeps no connection to the bot's server
            webhook.close()
    with transaction.atomic():
        version = BotVersion.objects.select_for_update().get(pk=_paused(bot).pk)
        version.status = BotVersion.Status.READY
        version.health_since = timezone.now()
        version.strike_streak = 0
        version.paused_at = None
        version.pause_reason = ""
        version.pause_detail = ""
        version.save(
            update_fields=[
                "status", "health_since", "strike_streak", "paused_at", "pause_reason",
                "pause_detail",
            ]
        )  # fmt: skip
    return version


def _paused(bot: Bot) -> BotVersion:
    version = BotVersion.objects.filter(bot=bot, status=BotVersion.Status.PAUSED).first()
    if version is None:
        raise DomainError("not_paused", "No version of this bot is paused.", {"bot": bot.name}, 409)
    return version


@transaction.atomic
def bot_alerts_set(*, bot: Bot, by: User, url: str) -> Bot:
    """Set (or, with ``""``, clear) the webhook told when one of the bot's versions is
    paused. Raises DomainError as ``outbound.url_check`` does, or ``permission_denied``."""
    _require_owner(bot, by)
    if url:
        outbound.url_check(url)
    bot.alert_url = url
    bot.save(update_fields=["alert_url"])
    return bot


# --- telling the owner ---------------------------------------------------------------------

ALERT_TIMEOUT_SECONDS = 10


def pause_claim(version_id: int) -> BotVersion | None:
    """Claim telling the owner of a pause, once: the paused version, or None when it was
    told already or is no longer paused (a redelivered task finds it done)."""
    claimed = BotVersion.objects.filter(
        Q(pause_notified_at__isnull=True), pk=version_id, status=BotVersion.Status.PAUSED
    ).update(pause_notified_at=timezone.now())
    if not claimed:
        return None
    return BotVersion.objects.select_related("bot__owner").get(pk=version_id)


def alert_body(version: BotVersion) -> dict[str, Any]:
    """What the owner's alert webhook is sent (nothing secret)."""
    return {
        "event": "version.paused",
        "bot": version.bot.name,
        "version": version.number,
        "reason": version.pause_reason,
        "detail": version.pause_detail,
        "paused_at": version.paused_at.isoformat() if version.paused_at else None,
        "page": f"/bots/{version.bot.name}/",
    }


def email_text(version: BotVersion) -> tuple[str, str]:
    """The subject and body of the email telling the owner of a pause."""
    bot = version.bot
    subject = f"Your bot {bot.name} v{version.number} was paused"
    body = (
        f"Version {version.number} of your bot {bot.name} was taken off the ladder: "
        f"{version.pause_detail}.\n\n"
        "It plays no more ladder games, and its rating stays as it is, until you resume it "
        f"on its page (/bots/{bot.name}/) or with POST /api/v1/bots/{bot.pk}/resume/. "
        "Resuming repeats the handshake first: start your bot's server before you do.\n"
    )
    return subject, body


def pause_tell(version: BotVersion) -> list[str]:
    """Email the owner (if their account has an address) and call the bot's alert webhook
    (if set) about a pause; what was done, in words. A failed call is logged, never
    retried: the page says it all anyway."""
    done = []
    owner = version.bot.owner
    if owner.email:
        subject, body = email_text(version)
        send_mail(subject, body, None, [owner.email])
        done.append("emailed")
    if version.bot.alert_url:
        done.append(_alert(version))
    return done


def _alert(version: BotVersion) -> str:
    body = json.dumps(alert_body(version), separators=(",", ":")).encode()
    headers = {"Content-Type": "application/json", "X-CYA-Event": "version.paused"}
    if version.secret:  # a webhook bot's owner can check it came from the platform
        timestamp = str(int(time.time()))
        headers["X-CYA-Timestamp"] = timestamp
        headers["X-CYA-Signature"] = webhook.sign(version.secret, timestamp, body)
    try:
        with outbound.client() as http:
            response = http.post(
                version.bot.alert_url, content=body, headers=headers, timeout=ALERT_TIMEOUT_SECONDS
            )
    except httpx.HTTPError as error:
        log.warning("pause alert of %s: %s", version, outbound.failure(error))
        return f"alert webhook: {outbound.failure(error)}"
    return f"alert webhook: HTTP {response.status_code}"
