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
from typing import Any, NamedTuple, cast

from django.db import DatabaseError, IntegrityError, connection, transaction
from django.db.models import F
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
from cya_site import dispatch, metrics, outbound, rows
from cya_site.errors import DomainError
from games import services as game_services
from games.engine import RuleSet
from games.models import Game, Seat

PLATFORM_USERNAME = "platform"
MAX_STRIKES = 3
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
    from bots.tasks import validate_version

    dispatch.send_on_commit(validate_version, (version.pk,))
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
    _counted(match.kind, Match.Status.SCHEDULED)
    return match


def _counted(kind: str, status: str) -> None:
    """Count a match entering ``status`` once the change commits (at once outside a
    transaction): a rolled-back change is no transition."""
    transaction.on_commit(metrics.MATCH_TRANSITIONS.labels(kind, status).inc)


LEASE_MATCH = 0x626F7473  # "bots": the first key of a match's advisory lock
LEASE_VERSION = 0x76657273  # "vers": a version's validation
LEASE_LADDER = 0x6C616464  # "ladd": the ladder's scheduling (one key)
LEASE_BUILTIN = 0x6275696C  # "buil": creating the built-in bots (one key)
LEASE_TURN = 0x7475726E  # "turn": a bot seat's move at a people's table (by game)


@contextmanager
def lease(namespace: int, key: int) -> Iterator[bool]:
    """Hold (``namespace``, ``key``) while the block runs, unless someone else holds it:
    yields whether this run got it. A second delivery of a task finds its work held by
    the first and leaves it (the broker redelivers a task that outruns its visibility
    timeout, the sweep resends work it finds idle for a while).

    A PostgreSQL session advisory lock: a worker that dies, even by SIGKILL, drops it
    with its connection, and the work is free for the next run. Without PostgreSQL
    (SQLite for ``make run``, one worker that runs one task at a time) there is nothing
    to hold, and every run gets it.
    """
    if connection.vendor != "postgresql":
        yield True
        return
    keys = [namespace, key & 0x7FFFFFFF]
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_try_advisory_lock(%s::int4, %s::int4)", keys)
        (held,) = cursor.fetchone()
    if not held:
        yield False
        return
    try:
        yield True
    finally:
        _unlock(keys)


def _unlock(keys: list[int]) -> None:
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_unlock(%s::int4, %s::int4)", keys)
    except DatabaseError:  # the connection is gone, and the lock with it
        pass


def lease_free(namespace: int, key: int) -> bool:
    """Whether no one holds the lease just now (the sweep's test of idle work)."""
    with lease(namespace, key) as held:
        return held


def serialised(namespace: int) -> None:
    """Within a transaction: wait until no other transaction runs under ``namespace``,
    and keep others waiting until this one ends (get-or-create paths that race)."""
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_xact_lock(%s::int4, 0)", [namespace])


def single_flight(namespace: int) -> bool:
    """Within a transaction: whether this one is the only one running under
    ``namespace`` (a transaction-level advisory lock, let go at commit or rollback).
    Without PostgreSQL, SQLite's one writer at a time is the only guard."""
    if connection.vendor != "postgresql":
        return True
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_try_advisory_xact_lock(%s::int4, 0)", [namespace])
        (held,) = cursor.fetchone()
    return bool(held)


def match_claim(*, match_id: int, attempt: bool = True) -> Match | None:
    """Mark a match running (a rerun after a crash resumes it); None once it has ended.

    Each claim counts an attempt, except a retry after an outage (``attempt`` False):
    attempts count crashes of the match itself, which give up after a few.
    One conditional UPDATE ... RETURNING: the claim and the row it leaves, in one round trip.
    """
    found = rows.fetch_one(
        _claim_sql(),
        [Match.Status.RUNNING, int(attempt), timezone.now(), match_id, *ENDED],
        [rows.Columns(Match, rows.quote(Match._meta.db_table))],
    )
    if found is None:
        return None
    match: Match = found[0]
    _counted(match.kind, Match.Status.RUNNING)
    return match


ENDED = (Match.Status.FINISHED, Match.Status.VOIDED)


@cache
def _claim_sql() -> str:
    table = rows.quote(Match._meta.db_table)
    returning = rows.Columns(Match, table).sql
    return (
        f"UPDATE {table} SET status = %s, attempts = attempts + %s, "
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
    transaction.on_commit(metrics.STRIKES.labels(reason).inc)
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

    Locks the match row, so a concurrent or repeated finish waits and then finds it ended;
    a rated match also locks its versions' rows (in id order, so matches sharing versions
    cannot deadlock), so concurrent matches cannot lose each other's rating updates. On
    PostgreSQL that is three statements, each prepared once per connection (cya_site.rows):
    the match and its entries' results with their versions' ratings, sent together (one
    round trip with the transaction's start), then one write of the rest.
    """
    ladder = match.kind == Match.Kind.LADDER  # a kind never changes: known before the lock
    match, (entries, games) = _locked_with_results(match.pk, lock_versions=ladder)
    if match.status in ENDED:  # a void is never rated
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
    if rate:
        changes = ratings.rate(standings, {e.standing.key: e.rating for e in entries})
        match.rated_at = match.finished_at
    _finish_write(match, entries, places, changes, games)
    _counted(match.kind, Match.Status.FINISHED)
    return match


MATCH_RESULT_FIELDS = ("status", "finished_at", "result", "rated_at")


class _EntryResult(NamedTuple):
    """A match entry's aggregate over the games (keyed by version), and its version's
    rating: current, and locked, if the match is rated."""

    entry_id: int
    standing: ratings.Standing
    rating: tuple[float, float]  # (mu, sigma)


_MATCH = rows.Columns(Match, "m")


@cache
def _match_locked_sql() -> str:
    return f"SELECT {_MATCH.sql} FROM {_MATCH.table} WHERE m.id = %s FOR UPDATE"


def _locked_with_results(
    match_id: int, *, lock_versions: bool
) -> tuple[Match, tuple[list[_EntryResult], int]]:
    """The match, locked, and its results (``_results``); on PostgreSQL the two statements
    go in one round trip (rows.pipeline): the versions are locked (if asked) before the
    match is seen, which a finished match's rerun does for nothing, harmlessly."""
    if connection.vendor != "postgresql":
        locked = Match.objects.select_for_update().get(pk=match_id)
        return locked, _results(match_id, lock_versions=lock_versions)
    with rows.cursor() as head, rows.cursor() as results:
        with rows.pipeline():
            head.execute(_match_locked_sql(), [match_id])
            results.execute(_results_sql(lock_versions), [match_id, match_id])
        row = head.fetchone()
        if row is None:
            raise Match.DoesNotExist(f"No match {match_id}.")
        return cast(Match, _MATCH.load(row)), _aggregate(results.fetchall())


def _results(match_id: int, *, lock_versions: bool) -> tuple[list[_EntryResult], int]:
    """Each entry's aggregate over the match's games (in entry order), and how many games
    there were. One statement, a row per entry and game it played (one if it played none)."""
    with rows.cursor() as cursor:
        cursor.execute(_results_sql(lock_versions), [match_id, match_id])
        return _aggregate(cursor.fetchall())


def _aggregate(found: Sequence[Sequence[Any]]) -> tuple[list[_EntryResult], int]:
    heads: dict[int, tuple[int, int, tuple[float, float]]] = {}
    totals: dict[int, dict[str, Any]] = {}
    games = set()
    for position, entry_id, version_id, mu, sigma, game_id, place, tally, forfeited in found:
        heads[version_id] = (position, entry_id, (mu, sigma))
        total = totals.setdefault(version_id, {"places": 0, "dollars": 0, "forfeited": False})
        if game_id is not None:
            games.add(game_id)
            total["places"] += place or 0
            total["dollars"] += tally or 0
            total["forfeited"] |= bool(forfeited)
    entries = [
        _EntryResult(entry_id, ratings.Standing(key=key, **totals[key]), rating)
        for key, (_, entry_id, rating) in sorted(heads.items(), key=lambda kv: kv[1][0])
    ]
    return entries, len(games)


@cache
def _results_sql(lock_versions: bool) -> str:
    # The games' rows are found from the match (match_game -> seats -> controls), never
    # from the versions' controls, which grow with every game a version plays.
    sql = (
        "SELECT e.position, e.id, e.version_id, v.mu, v.sigma, played.game_id, played.place,"
        " played.tally, played.forfeited"
        " FROM bots_matchentry e JOIN bots_botversion v ON v.id = e.version_id"
        " LEFT JOIN (SELECT c.version_id, s.game_id, s.place, s.tally,"
        " c.autopilot_since IS NOT NULL AS forfeited"
        " FROM bots_matchgame mg JOIN games_seat s ON s.game_id = mg.game_id"
        " JOIN bots_seatcontrol c ON c.seat_id = s.id WHERE mg.match_id = %s) AS played"
        " ON played.version_id = e.version_id"
        " WHERE e.match_id = %s ORDER BY v.id"
    )
    if lock_versions and connection.features.has_select_for_update_of:
        sql += " FOR UPDATE OF v"
    return sql


def _finish_write(
    match: Match,
    entries: Sequence[_EntryResult],
    places: dict[int, int],
    changes: Sequence[ratings.Change],
    games: int,
) -> None:
    """Write a finished match: its entries' places, its versions' new ratings and their
    explanations (if rated), the match row. On PostgreSQL one statement."""
    entry_columns: list[list[Any]] = [
        [e.entry_id for e in entries],
        [places[e.standing.key] for e in entries],
        [e.standing.dollars for e in entries],
        [e.standing.forfeited for e in entries],
    ]
    if connection.vendor != "postgresql":
        _finish_write_orm(match, entry_columns, changes, games)
        return
    params: list[Any] = [*entry_columns]
    if changes:
        params += [
            [c.key for c in changes],
            [c.mu_before for c in changes],
            [c.sigma_before for c in changes],
            [c.mu_after for c in changes],
            [c.sigma_after for c in changes],
            [c.expected_place for c in changes],
            [c.place for c in changes],
            games,
            match.pk,
            match.finished_at,
        ]
    params += [*rows.prepared(match, MATCH_RESULT_FIELDS), match.pk]
    with rows.cursor() as cursor:
        cursor.execute(_finish_sql(bool(changes)), params)


@cache
def _finish_sql(rated: bool) -> str:
    parts = [
        "entry AS (UPDATE bots_matchentry e"
        " SET place = v.place, dollars = v.dollars, forfeited = v.forfeited"
        " FROM unnest(%s::bigint[], %s::smallint[], %s::bigint[], %s::boolean[])"
        " AS v(id, place, dollars, forfeited) WHERE e.id = v.id)"
    ]
    if rated:
        parts += [
            "rated AS (SELECT * FROM unnest(%s::bigint[], %s::float8[], %s::float8[],"
            " %s::float8[], %s::float8[], %s::float8[], %s::smallint[])"
            " AS r(version_id, mu_before, sigma_before, mu_after, sigma_after,"
            " expected_place, actual_place))",
            "version AS (UPDATE bots_botversion b SET mu = r.mu_after, sigma = r.sigma_after,"
            " games_played = b.games_played + %s::integer, matches_played = b.matches_played + 1"
            " FROM rated r WHERE b.id = r.version_id)",
            "change AS (INSERT INTO bots_ratingchange (match_id, version_id, mu_before,"
            " sigma_before, mu_after, sigma_after, expected_place, actual_place, created_at)"
            " SELECT %s::bigint, r.*, %s::timestamptz FROM rated r)",
        ]
    return (
        f"WITH {', '.join(parts)} UPDATE bots_match SET "
        f"{rows.assignments(Match, MATCH_RESULT_FIELDS)} WHERE id = %s"
    )


def _finish_write_orm(
    match: Match,
    entry_columns: Sequence[Sequence[Any]],
    changes: Sequence[ratings.Change],
    games: int,
) -> None:
    """``_finish_write`` through the ORM, for databases other than PostgreSQL."""
    for entry_id, place, dollars, forfeited in zip(*entry_columns, strict=True):
        MatchEntry.objects.filter(pk=entry_id).update(
            place=place, dollars=dollars, forfeited=forfeited
        )
    for change in changes:
        BotVersion.objects.filter(pk=change.key).update(
            mu=change.mu_after,
            sigma=change.sigma_after,
            games_played=F("games_played") + games,
            matches_played=F("matches_played") + 1,
        )
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
    rows.update(match, MATCH_RESULT_FIELDS)


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
    _counted(match.kind, Match.Status.VOIDED)
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
