"""Every change to bots, versions and matches: one transaction each.

Bots play as their own users through games.services, like anyone else. A match is set
up as one game per seat rotation (duplicate deals: the same seed every time), every
seat under a SeatControl; its result is rated exactly once, with the versions' rating
rows locked so concurrent matches cannot lose each other's updates.
"""

from __future__ import annotations

import re
import secrets
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from functools import cache
from typing import Any, TypeVar

from django.db import DatabaseError, connection, transaction
from django.db.models import Model
from django.utils import timezone

from accounts.models import ApiToken, User
from accounts.services import token_create
from bots import ratings
from bots.models import (
    Bot,
    BotVersion,
    Match,
    MatchEntry,
    MatchGame,
    RatingChange,
    SeatControl,
    Strike,
)
from bots.strategies import STRATEGIES
from cya_site import rows
from cya_site.errors import DomainError
from games import services as game_services
from games.engine import RuleSet
from games.models import Game, Seat

M = TypeVar("M", bound=Model)
PLATFORM_USERNAME = "platform"
MAX_STRIKES = 3
LEASE_NAMESPACE = 0x626F7473  # "bots": the first key of a match's advisory lock
NAME_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]{1,39}$")


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
    if not NAME_PATTERN.match(name):
        raise DomainError(
            "invalid_bot_name",
            "A bot name is 2-40 letters, digits, '-' or '_', starting with a letter or digit.",
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
    user = User.objects.create_user(username=username, is_bot=True)
    user.set_unusable_password()
    user.save(update_fields=["password"])
    return Bot.objects.create(owner=owner, user=user, name=name, kind=kind, description=description)


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
        if not url.startswith(("http://", "https://")):
            raise DomainError("invalid", "A webhook bot needs an http(s) URL.", {"field": "url"})
        if len(secret) < 16:
            raise DomainError(
                "invalid", "A webhook secret needs 16 characters or more.", {"field": "secret"}
            )
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
    from bots.tasks import validate_version

    transaction.on_commit(lambda: validate_version.delay(version.pk))
    return version


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


def webhook_secret() -> str:
    """A strong random secret, offered to owners who have none."""
    return secrets.token_urlsafe(32)


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
    return match


@contextmanager
def match_lease(match_id: int) -> Iterator[None]:
    """Hold the match while the block runs: a second run of it (a task delivered twice)
    waits here until the first ends, so one runner at a time asks its bots and records
    its strikes.

    A PostgreSQL session advisory lock: a worker that dies, even by SIGKILL, drops it
    with its connection, and the redelivered task goes on. Without PostgreSQL (SQLite
    for ``make run``, one worker) there is nothing to hold.
    """
    if connection.vendor != "postgresql":
        yield
        return
    key = [LEASE_NAMESPACE, match_id & 0x7FFFFFFF]
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_advisory_lock(%s::int4, %s::int4)", key)
    try:
        yield
    finally:
        try:
            with connection.cursor() as cursor:
                cursor.execute("SELECT pg_advisory_unlock(%s::int4, %s::int4)", key)
        except DatabaseError:  # the connection is gone, and the lock with it
            pass


def match_claim(*, match_id: int) -> Match | None:
    """Mark a match running (a rerun after a crash resumes it); None once it has ended.

    One conditional UPDATE ... RETURNING: the claim and the row it leaves, in one round trip.
    """
    found = rows.fetch_one(
        _claim_sql(),
        [Match.Status.RUNNING, timezone.now(), match_id, *ENDED],
        [rows.Columns(Match, rows.quote(Match._meta.db_table))],
    )
    return None if found is None else found[0]


ENDED = (Match.Status.FINISHED, Match.Status.VOIDED)


@cache
def _claim_sql() -> str:
    table = rows.quote(Match._meta.db_table)
    returning = rows.Columns(Match, table).sql
    return (
        f"UPDATE {table} SET status = %s, attempts = attempts + 1, "
        f"started_at = COALESCE(started_at, %s) "
        f"WHERE id = %s AND status NOT IN (%s, %s) RETURNING {returning}"
    )


@transaction.atomic
def strike_record(
    *, control: SeatControl, game_version: int, reason: str, detail: str, elapsed_ms: int
) -> SeatControl:
    """Log a strike; the third one hands the seat to the autopilot for the rest of the game."""
    control = SeatControl.objects.select_for_update().get(pk=control.pk)
    Strike.objects.create(
        control=control,
        game_version=game_version,
        reason=reason,
        detail=detail[:500],
        elapsed_ms=elapsed_ms,
    )
    control.strikes += 1
    control.time_bank_ms = bank_after_strike(control.time_bank_ms, reason)
    if control.strikes >= MAX_STRIKES and control.autopilot_since is None:
        control.autopilot_since = timezone.now()
    control.save(update_fields=["strikes", "time_bank_ms", "autopilot_since"])
    return control


def time_spend(*, control: SeatControl, decision_ms: int, elapsed_ms: int) -> None:
    """Charge time beyond the per-decision limit to the seat's bank."""
    if elapsed_ms > decision_ms:
        SeatControl.objects.filter(pk=control.pk).update(
            time_bank_ms=bank_after_answer(control.time_bank_ms, decision_ms, elapsed_ms)
        )


# The time-control rules themselves, pure, so ``manage.py play`` keeps the same clock.


def bank_after_answer(time_bank_ms: int, decision_ms: int, elapsed_ms: int) -> int:
    """The time bank after an answer: time beyond the per-decision limit is charged to it."""
    return max(0, time_bank_ms - max(0, elapsed_ms - decision_ms))


def bank_after_strike(time_bank_ms: int, reason: str) -> int:
    """The time bank after a strike: a timeout has used all of it."""
    return 0 if reason == Strike.Reason.TIMEOUT else time_bank_ms


@transaction.atomic
def match_finish(*, match: Match) -> Match:
    """Aggregate the games and rate the entries: exactly once, whatever reruns happen.

    Locks the match row, so a concurrent or repeated finish waits and then finds it ended.
    """
    match = Match.objects.select_for_update().get(pk=match.pk)
    if match.status in (Match.Status.FINISHED, Match.Status.VOIDED):  # a void is never rated
        return match
    entries = list(match.entries.all())
    standings, games = _standings(match, entries)
    places = ratings.ranks(standings)
    by_version = {s.key: s for s in standings}
    for entry in entries:
        s = by_version[entry.version_id]
        entry.place = places[entry.version_id]
        entry.dollars = s.dollars
        entry.forfeited = s.forfeited
    _update_each(entries, ENTRY_RESULT_FIELDS)
    match.status = Match.Status.FINISHED
    match.finished_at = timezone.now()
    match.result = {
        "places": {str(e.version_id): e.place for e in entries},
        "dollars": {str(e.version_id): e.dollars for e in entries},
    }
    if match.kind == Match.Kind.LADDER and match.rated_at is None:
        _rate(match, standings, games)
        match.rated_at = timezone.now()
    rows.update(match, MATCH_RESULT_FIELDS)
    return match


ENTRY_RESULT_FIELDS = ("place", "dollars", "forfeited")
MATCH_RESULT_FIELDS = ("status", "finished_at", "result", "rated_at")
RATING_FIELDS = ("mu", "sigma", "games_played", "matches_played")


def _standings(match: Match, entries: list[MatchEntry]) -> tuple[list[ratings.Standing], int]:
    """Each entry's aggregate over the match's games (in entry order), and how many games."""
    controls = SeatControl.objects.filter(seat__game__match_game__match=match).values_list(
        "version_id", "seat__game_id", "seat__place", "seat__tally", "autopilot_since"
    )
    totals: dict[int, dict[str, Any]] = {
        e.version_id: {"places": 0, "dollars": 0, "forfeited": False} for e in entries
    }
    games = set()
    for version_id, game_id, place, tally, autopilot_since in controls:
        total = totals[version_id]
        total["places"] += place or 0
        total["dollars"] += tally or 0
        total["forfeited"] |= autopilot_since is not None
        games.add(game_id)
    return [ratings.Standing(key=k, **v) for k, v in totals.items()], len(games)


def _rate(match: Match, standings: list[ratings.Standing], games: int) -> None:
    ids = sorted(s.key for s in standings)
    locked = {
        v.pk: v
        for v in BotVersion.objects.select_for_update()
        .filter(pk__in=ids)
        .order_by("pk")
        .only("pk", *RATING_FIELDS)
    }
    changes = ratings.rate(standings, {k: (v.mu, v.sigma) for k, v in locked.items()})
    RatingChange.objects.bulk_create(
        RatingChange(
            match=match,
            version_id=change.key,
            mu_before=change.mu_before,
            sigma_before=change.sigma_before,
            mu_after=change.mu_after,
            sigma_after=change.sigma_after,
            expected_place=change.expected_place,
            actual_place=change.place,
        )
        for change in changes
    )
    for change in changes:  # the rows are locked: their counts are current
        version = locked[change.key]
        version.mu, version.sigma = change.mu_after, change.sigma_after
        version.games_played += games
        version.matches_played += 1
    _update_each(list(locked.values()), RATING_FIELDS)


def _update_each(objs: Sequence[M], field_names: Sequence[str]) -> None:
    """Write these fields of several saved rows of one model: one UPDATE ... FROM unnest
    on PostgreSQL (the ORM's bulk_update builds a CASE chain per column), else one
    prepared UPDATE a row (cya_site.rows)."""
    if not objs:
        return
    if connection.vendor != "postgresql":
        for obj in objs:
            rows.update(obj, field_names)
        return
    meta = objs[0]._meta
    concrete = {f.name: f for f in meta.concrete_fields}
    pk, fields = concrete[meta.pk.name], [concrete[name] for name in field_names]
    columns = [
        [f.get_db_prep_save(getattr(o, f.attname), connection) for o in objs] for f in fields
    ]
    names = [rows.quote(f.column) for f in fields]
    arrays = ", ".join(f"%s::{f.db_type(connection)}[]" for f in [pk, *fields])
    sets = ", ".join(f"{name} = v.{name}" for name in names)
    table = rows.quote(meta.db_table)
    sql = (
        f"UPDATE {table} SET {sets} FROM unnest({arrays}) AS v(id, {', '.join(names)}) "
        f"WHERE {table}.{rows.quote(pk.column)} = v.id"
    )
    with connection.cursor() as cursor:
        cursor.execute(sql, [[o.pk for o in objs], *columns])


@transaction.atomic
def match_void(*, match: Match, reason: str) -> Match:
    """A platform fault: the match and its unfinished games end without a result."""
    match = Match.objects.select_for_update().get(pk=match.pk)
    if match.status in (Match.Status.FINISHED, Match.Status.VOIDED):
        return match
    dealer = platform_user()
    for mg in match.match_games.select_related("game"):
        if mg.game.status in (Game.Status.OPEN, Game.Status.ACTIVE):
            game_services.game_abort(game=mg.game, by=dealer, reason="platform_fault")
    match.status = Match.Status.VOIDED
    match.void_reason = reason[:200]
    match.finished_at = timezone.now()
    match.save(update_fields=["status", "void_reason", "finished_at"])
    return match


@transaction.atomic
def version_validated(*, version: BotVersion, passed: bool, log: list[str]) -> BotVersion:
    """Record a validation: a passing version is ranked, older ready ones retire."""
    version = BotVersion.objects.select_for_update().get(pk=version.pk)
    version.validation_log = log
    version.validated_at = timezone.now()
    version.status = BotVersion.Status.READY if passed else BotVersion.Status.FAILED
    version.save(update_fields=["validation_log", "validated_at", "status"])
    if passed:
        BotVersion.objects.filter(bot=version.bot, status=BotVersion.Status.READY).exclude(
            pk=version.pk
        ).update(status=BotVersion.Status.RETIRED)
    return version
