"""Every change to bots, versions and matches: one transaction each.

Bots play as their own users through games.services, like anyone else. A match is set
up as one game per seat rotation (duplicate deals: the same seed every time), every
seat under a SeatControl; its result is rated exactly once, with the versions' rating
rows locked so concurrent matches cannot lose each other's updates.

This module is policy and transactions: the statements a match's claim, results and
finish take are bots.persistence's, leases are bots.leases' and the clock's rules
bots.timecontrol's.
"""

from __future__ import annotations

import re
import secrets
from collections.abc import Sequence
from typing import Any, cast

from celery import Task, signature
from django.db import IntegrityError, transaction
from django.db.models import F
from django.utils import timezone

from accounts.models import ApiToken, User
from accounts.services import token_create
from bots import health, persistence, ratings, timecontrol
from bots.models import (
    Bot,
    BotVersion,
    Match,
    MatchEntry,
    MatchGame,
    SeatControl,
    Strike,
)
from bots.persistence import matches as match_rows
from bots.strategies import STRATEGIES
from cya_site import dispatch, metrics, outbound
from cya_site.errors import DomainError
from games import services as game_services
from games.engine import RuleSet
from games.models import Game, Seat

PLATFORM_USERNAME = "platform"
NAME_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]{1,39}$")
RESERVED_NAMES = frozenset({"new"})  # /bots/new/ registers a bot: no bot's page can be there


def platform_user() -> User:
    """The staff account that owns built-in bots and deals ladder games."""
    user, created = User.objects.get_or_create(
        username=PLATFORM_USERNAME, defaults={"is_staff": True}
    )
    if created:
        user.set_unusable_password()
        user.save(update_fields=["password"])
    return user


# --- entries ----------------------------------------------------------------------------


@transaction.atomic
def bot_create(*, owner: User, name: str, kind: str, description: str = "") -> Bot:
    """Register a bot; it gets its own bot user account to play as."""
    if not NAME_PATTERN.match(name) or name.lower() in RESERVED_NAMES:
        raise DomainError(
            "invalid_bot_name",
            "A bot name is 2-40 letters, digits, '-' or '_', starting with a letter or digit, "
            "and not 'new'.",
            {"name": name},
        )
    if kind not in Bot.Kind.values:
        raise DomainError("invalid_bot_kind", f"kind must be one of {', '.join(Bot.Kind.values)}")
    if kind == Bot.Kind.BUILTIN and not owner.is_staff:
        raise DomainError(
            "permission_denied", "Only staff register built-in strategies.", status=403
        )
    if Bot.objects.filter(name__iexact=name).exists():
        raise DomainError("bot_name_taken", "A bot with this name exists.", {"name": name}, 409)
    username = f"bot.{name}"
    if User.objects.filter(username__iexact=username).exists():
        raise DomainError("bot_name_taken", "A bot with this name exists.", {"name": name}, 409)
    try:
        with transaction.atomic():  # two registrations of one name at once: one wins
            user = User.objects.create_user(username=username, is_bot=True)
            user.set_unusable_password()
            user.save(update_fields=["password"])
            return Bot.objects.create(
                owner=owner, user=user, name=name, kind=kind, description=description
            )
    except IntegrityError:
        raise DomainError(
            "bot_name_taken", "A bot with this name exists.", {"name": name}, 409
        ) from None


@transaction.atomic
def version_create(
    *,
    bot: Bot,
    by: User,
    tag: str = "",
    strategy: str = "",
    url: str = "",
    secret: str = "",
) -> BotVersion:
    """A new immutable version; it is validated (in a task) before it is ranked.

    A webhook URL must reach an allowed address (``cya_site.outbound.url_check``), or
    nothing is stored and no validation is queued.

    A new version starts from the previous version's mu with sigma re-inflated to the
    default: it is probably about as strong, but that has to be shown again.
    """
    _require_owner(bot, by)
    if bot.kind == Bot.Kind.BUILTIN:
        if strategy not in STRATEGIES:
            raise DomainError(
                "unknown_strategy", f"strategy must be one of {', '.join(sorted(STRATEGIES))}"
            )
    elif strategy:
        raise DomainError("invalid", "Only built-in bots take a strategy.", {"field": "strategy"})
    if bot.kind == Bot.Kind.WEBHOOK:
        if len(secret) < 16:
            raise DomainError(
                "invalid", "A webhook secret needs 16 characters or more.", {"field": "secret"}
            )
        outbound.url_check(url)  # after the checks that need no DNS
    elif url or secret:
        raise DomainError("invalid", "Only webhook bots take a URL and secret.", {"field": "url"})
    previous = bot.versions.order_by("-number").first()
    version = BotVersion.objects.create(
        bot=bot,
        number=(previous.number + 1) if previous else 1,
        tag=tag,
        strategy=strategy,
        url=url,
        secret=secret,
    )
    if previous is not None:
        version.mu = previous.mu
        version.save(update_fields=["mu"])
    dispatch.send_on_commit(_by_name(HANDSHAKE), (version.pk,))
    return version


HANDSHAKE = "bots.handshake"  # bots.tasks.handshake, which sends bots.validate_version


def _by_name(task: str) -> Task[Any, Any]:
    """A task of bots.tasks to send, by its name: the tasks sit above the services they
    call, so this module never imports them (the import contract "bots has no import
    cycles"). A signature sends as the task itself would (``apply_async``, ``name``)."""
    return cast("Task[Any, Any]", signature(task))


@transaction.atomic
def bot_token_create(*, bot: Bot, by: User, name: str) -> tuple[ApiToken, str]:
    """A token for an API-client bot's own user (shown once): its owner's alone, as anyone's
    tokens are their own (staff may revoke them, never issue them: a token plays as the bot)."""
    if bot.owner_id != by.pk:
        raise DomainError("permission_denied", "Only the bot's owner gets its tokens.", status=403)
    if bot.kind != Bot.Kind.API_CLIENT:
        raise DomainError("invalid_bot_kind", "Only API-client bots hold tokens.", status=409)
    return token_create(user=bot.user, name=name)


def owner_key(version: BotVersion) -> int:
    """Who a version plays for at a table: its owner, except that the platform's built-in
    baselines cannot collude, so each of them counts as its own owner."""
    if version.bot.owner.username == PLATFORM_USERNAME:
        return -version.pk
    return version.bot.owner_id


def _require_owner(bot: Bot, user: User) -> None:
    if bot.owner_id != user.pk and not user.is_staff:
        raise DomainError("permission_denied", "This bot is someone else's.", status=403)


# --- matches ----------------------------------------------------------------------------


@transaction.atomic
def match_create(
    *,
    versions: Sequence[BotVersion],
    kind: str = Match.Kind.LADDER,
    rules: RuleSet | None = None,
    seed: int | None = None,
    duplicate: bool = True,
    decision_ms: int = 1000,
    time_bank_ms: int = 15_000,
) -> Match:
    """A table of versions: one dealt game per rotation (duplicate deals), or one game."""
    n = len(versions)
    if kind == Match.Kind.LADDER and len({owner_key(v) for v in versions}) != n:
        raise DomainError("same_owner", "Two versions of one owner never share a ladder table.")
    rules = rules or RuleSet.preset("2021", seats=n)
    if rules.seats != n:
        raise DomainError("invalid_rules", f"The rules seat {rules.seats}, the match has {n}.")
    match = Match.objects.create(
        kind=kind,
        rules=rules.to_json(),
        seed=secrets.randbits(63) if seed is None else seed,
        duplicate=duplicate,
        decision_ms=decision_ms,
        time_bank_ms=time_bank_ms,
    )
    MatchEntry.objects.bulk_create(
        MatchEntry(match=match, version=v, position=p) for p, v in enumerate(versions)
    )
    dealer = platform_user()
    for rotation in range(n if duplicate else 1):
        game = game_services.game_create(by=dealer, rules=rules, take_seat=False)
        for position, version in enumerate(versions):
            game_services.game_join(
                game=game, user=version.bot.user, seat=(position + rotation) % n
            )
        game_services.game_start(game=game, by=dealer, seed=match.seed)
        MatchGame.objects.create(match=match, game=game, rotation=rotation)
        SeatControl.objects.bulk_create(
            SeatControl(
                seat=Seat.objects.get(game=game, number=(position + rotation) % n),
                version=version,
                time_bank_ms=time_bank_ms,
            )
            for position, version in enumerate(versions)
        )
    _counted(match.kind, Match.Status.SCHEDULED)
    return match


def _counted(kind: str, status: str) -> None:
    """Count a match entering ``status`` once the change commits (at once outside a
    transaction): a rolled-back change is no transition."""
    transaction.on_commit(metrics.MATCH_TRANSITIONS.labels(kind, status).inc)


def match_claim(*, match_id: int, attempt: bool = True) -> Match | None:
    """Mark a match running (a rerun after a crash resumes it); None once it has ended.

    Each claim counts an attempt, except a retry after an outage (``attempt`` False):
    attempts count crashes of the match itself, which give up after a few.
    On PostgreSQL one conditional UPDATE ... RETURNING (bots.persistence.matches): the claim and
    the row it leaves, in one round trip.
    """
    match = match_rows.match_claim(match_id, attempt=attempt, now=timezone.now())
    if match is not None:
        _counted(match.kind, Match.Status.RUNNING)
    return match


def match_attempt_refund(*, match_id: int) -> None:
    """Give back the attempt a slice's claim counted, once the slice played its games: a
    match sliced game by game (``bots.tasks.play_match``) counts only the slices that
    crashed, not every slice it took."""
    Match.objects.filter(pk=match_id, attempts__gt=0).update(attempts=F("attempts") - 1)


@transaction.atomic
def strike_record(
    *, control: SeatControl, game_version: int, reason: str, detail: str, elapsed_ms: int
) -> SeatControl:
    """Log a strike; the third one hands the seat to the autopilot for the rest of the game.
    A ready version's strikes count towards its pause (``bots.health.strike_counted``)."""
    control = SeatControl.objects.select_for_update().get(pk=control.pk)
    Strike.objects.create(
        control=control,
        game_version=game_version,
        reason=reason,
        detail=detail[:500],
        elapsed_ms=elapsed_ms,
    )
    control.strikes += 1
    control.time_bank_ms = timecontrol.bank_after_strike(control.time_bank_ms, reason)
    handed_over = control.strikes >= timecontrol.MAX_STRIKES and control.autopilot_since is None
    if handed_over:
        control.autopilot_since = timezone.now()
    control.save(update_fields=["strikes", "time_bank_ms", "autopilot_since"])
    health.strike_counted(
        version_id=control.version_id, detail=f"{reason} ({detail})", autopilot=handed_over
    )
    transaction.on_commit(metrics.STRIKES.labels(reason).inc)
    return control


def time_spend(*, control: SeatControl, decision_ms: int, elapsed_ms: int) -> None:
    """Charge time beyond the per-decision limit to the seat's bank."""
    if elapsed_ms > decision_ms:
        SeatControl.objects.filter(pk=control.pk).update(
            time_bank_ms=timecontrol.bank_after_answer(
                control.time_bank_ms, decision_ms, elapsed_ms
            )
        )


@transaction.atomic(savepoint=False)  # within a caller's transaction, one fate with it
def match_finish(*, match: Match) -> Match:
    """Aggregate the games and rate the entries: exactly once, whatever reruns happen.

    Locks the match row, so a concurrent or repeated finish waits and then finds it ended;
    a rated match also locks its versions' rows (in id order, so matches sharing versions
    cannot deadlock), so concurrent matches cannot lose each other's rating updates. On
    PostgreSQL that is three statements (bots.persistence.matches): the match and its entries'
    results with their versions' ratings, sent together (one round trip with the
    transaction's start), then one write of the rest.
    """
    ladder = match.kind == Match.Kind.LADDER  # a kind never changes: known before the lock
    match, (entries, games) = match_rows.match_locked_with_results(match.pk, lock_versions=ladder)
    if match.status in persistence.ENDED:  # a void is never rated
        return match
    rate = ladder and match.rated_at is None
    standings = [e.standing for e in entries]
    places = ratings.ranks(standings)
    match.status = Match.Status.FINISHED
    match.finished_at = timezone.now()
    match.result = {
        "places": {str(e.standing.key): places[e.standing.key] for e in entries},
        "dollars": {str(e.standing.key): e.standing.dollars for e in entries},
    }
    changes: list[ratings.Change] = []
    if rate:  # a paused version's rating stays as it is (bots.health); the others move
        paused = {e.standing.key for e in entries if e.paused}
        rated = ratings.rate(standings, {e.standing.key: e.rating for e in entries})
        changes = [c for c in rated if c.key not in paused]
        match.rated_at = match.finished_at
    match_rows.match_finish_write(match, entries, places, changes, games)
    _counted(match.kind, Match.Status.FINISHED)
    return match


@transaction.atomic
def match_void(*, match: Match, reason: str) -> Match:
    """A platform fault: the match and its unfinished games end without a result."""
    match = Match.objects.select_for_update().get(pk=match.pk)
    if match.status in persistence.ENDED:
        return match
    dealer = platform_user()
    for mg in match.match_games.select_related("game"):
        if mg.game.status in (Game.Status.OPEN, Game.Status.ACTIVE):
            game_services.game_abort(game=mg.game, by=dealer, reason="platform_fault")
    match.status = Match.Status.VOIDED
    match.void_reason = reason[:200]
    match.finished_at = timezone.now()
    match.save(update_fields=["status", "void_reason", "finished_at"])
    _counted(match.kind, Match.Status.VOIDED)
    return match


@transaction.atomic
def version_handshaken(*, version: BotVersion, log: list[str]) -> BotVersion:
    """A PENDING version answered its handshake (or has none): VALIDATING, with the
    handshake's answer as its log so far; its validation game comes next
    (bots.tasks.handshake sends it). A version no longer PENDING is left as it is."""
    version = BotVersion.objects.select_for_update().get(pk=version.pk)
    if version.status != BotVersion.Status.PENDING:
        return version
    version.status = BotVersion.Status.VALIDATING
    version.validation_log = log
    version.save(update_fields=["status", "validation_log"])
    return version


@transaction.atomic
def version_validated(*, version: BotVersion, passed: bool, log: list[str]) -> BotVersion:
    """Record a validation: a passing version is ranked, older ready ones retire."""
    version = BotVersion.objects.select_for_update().get(pk=version.pk)
    version.validation_log = log
    version.validated_at = timezone.now()
    version.status = BotVersion.Status.READY if passed else BotVersion.Status.FAILED
    version.save(update_fields=["validation_log", "validated_at", "status"])
    if passed:
        BotVersion.objects.filter(
            bot=version.bot, status__in=(BotVersion.Status.READY, BotVersion.Status.PAUSED)
        ).exclude(pk=version.pk).update(status=BotVersion.Status.RETIRED)
    return version
