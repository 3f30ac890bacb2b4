"""A match's rows: claimed, read locked with its results, written finished and rated."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from functools import cache
from typing import Any, NamedTuple, cast

from django.db import connection
from django.db.models import DateTimeField, F, Value
from django.db.models.functions import Coalesce

from bots import persistence, ratings
from bots.models import BotVersion, Match, MatchEntry, MatchGame, RatingChange, SeatControl
from cya_site import rows
from games.models import Seat

MATCH_RESULT_FIELDS = ("status", "finished_at", "result", "rated_at")


def match_claim(match_id: int, *, attempt: bool, now: datetime) -> Match | None:
    """Mark a match running, counting an attempt if ``attempt``, and return its row; None
    once it has ended. On PostgreSQL one conditional UPDATE ... RETURNING."""
    if not persistence.sql_path():
        return _match_claim_orm(match_id, attempt=attempt, now=now)
    params = [Match.Status.RUNNING, int(attempt), now, match_id, *persistence.ENDED]
    found = rows.fetch_one(_claim_sql(), params, [_match_returned()])
    return None if found is None else cast(Match, found[0])


def _match_claim_orm(match_id: int, *, attempt: bool, now: datetime) -> Match | None:
    claimed = (
        Match.objects.filter(pk=match_id)
        .exclude(status__in=persistence.ENDED)
        .update(
            status=Match.Status.RUNNING,
            attempts=F("attempts") + int(attempt),
            started_at=Coalesce(F("started_at"), Value(now, output_field=DateTimeField())),
        )
    )
    return Match.objects.get(pk=match_id) if claimed else None


@cache
def _match_returned() -> rows.Columns:
    return rows.Columns(Match, rows.table(Match))


@cache
def _claim_sql() -> str:
    def col(name: str) -> str:
        return rows.column(Match, name)

    status, attempts, started_at = col("status"), col("attempts"), col("started_at")
    return (
        f"UPDATE {rows.table(Match)} SET {status} = %s, {attempts} = {attempts} + %s,"
        f" {started_at} = COALESCE({started_at}, %s)"
        f" WHERE {col('id')} = %s AND {status} NOT IN (%s, %s)"
        f" RETURNING {_match_returned().sql}"
    )


# --- a match's results, read locked --------------------------------------------------------


class EntryResult(NamedTuple):
    """A match entry's aggregate over the games (keyed by version), and its version's
    rating: current, and locked, if the match is rated; ``paused``: its version is paused
    (bots.health), so the match leaves its rating as it is."""

    entry_id: int
    standing: ratings.Standing
    rating: tuple[float, float]  # (mu, sigma)
    paused: bool = False


class Results(NamedTuple):
    """Every entry's result (in entry order), and how many games the match had."""

    entries: list[EntryResult]
    games: int


# One row per entry and game it played (one with no game if it played none):
# (position, entry id, version id, mu, sigma, version status, game id, place, tally, forfeited)
_ResultRow = tuple[
    int, int, int, float, float, str, int | None, int | None, int | None, bool | None
]


def match_locked_with_results(match_id: int, *, lock_versions: bool) -> tuple[Match, Results]:
    """Within a transaction: the match, locked, and its results; its entries' versions
    locked too if ``lock_versions`` (in id order, so matches sharing versions cannot
    deadlock). On PostgreSQL the two statements go in one round trip (rows.pipeline): the
    versions are locked before the match is seen, which a finished match's rerun does
    for nothing, harmlessly. Raises Match.DoesNotExist for an unknown match."""
    if not persistence.sql_path():
        locked = Match.objects.select_for_update().get(pk=match_id)
        return locked, _aggregate(_result_rows_orm(match_id, lock_versions=lock_versions))
    match_columns = _match_locked_columns()
    with rows.cursor() as head, rows.cursor() as results:
        with rows.pipeline():
            head.execute(_match_locked_sql(), [match_id])
            results.execute(_results_sql(lock_versions), [match_id, match_id])
        row = head.fetchone()
        if row is None:
            raise Match.DoesNotExist(f"No match {match_id}.")
        return cast(Match, match_columns.load(row)), _aggregate(results.fetchall())


def _aggregate(found: Sequence[Sequence[Any]]) -> Results:
    heads: dict[int, tuple[int, int, tuple[float, float], bool]] = {}
    totals: dict[int, dict[str, Any]] = {}
    games = set()
    for row in found:
        position, entry_id, version_id, mu, sigma, status, game_id, place, tally, forfeited = row
        heads[version_id] = (position, entry_id, (mu, sigma), status == BotVersion.Status.PAUSED)
        total = totals.setdefault(version_id, {"places": 0, "dollars": 0, "forfeited": False})
        if game_id is not None:
            games.add(game_id)
            total["places"] += place or 0
            total["dollars"] += tally or 0
            total["forfeited"] |= bool(forfeited)
    entries = [
        EntryResult(entry_id, ratings.Standing(key=key, **totals[key]), rating, paused)
        for key, (_, entry_id, rating, paused) in sorted(heads.items(), key=lambda kv: kv[1][0])
    ]
    return Results(entries, len(games))


def _result_rows_orm(match_id: int, *, lock_versions: bool) -> list[_ResultRow]:
    """``_results_sql``'s rows through the ORM."""
    versions = BotVersion.objects.filter(entries__match_id=match_id).order_by("pk")
    if lock_versions:
        of = ("self",) if connection.features.has_select_for_update_of else ()
        versions = versions.select_for_update(of=of)
    rating = {v.pk: (v.mu, v.sigma, v.status) for v in versions}
    played: dict[int, list[tuple[int, int | None, int | None, bool]]] = {}
    for version_id, game_id, place, tally, autopilot in SeatControl.objects.filter(
        seat__game__match_game__match_id=match_id
    ).values_list("version_id", "seat__game_id", "seat__place", "seat__tally", "autopilot_since"):
        played.setdefault(version_id, []).append((game_id, place, tally, autopilot is not None))
    entries = MatchEntry.objects.filter(match_id=match_id).order_by("version_id")
    return [
        (position, entry_id, version_id, *rating[version_id], *game)
        for position, entry_id, version_id in entries.values_list("position", "pk", "version_id")
        for game in played.get(version_id, [(None, None, None, None)])
    ]


@cache
def _match_locked_columns() -> rows.Columns:
    return rows.Columns(Match, "m")


@cache
def _match_locked_sql() -> str:
    m, columns = rows.Table(Match, "m"), _match_locked_columns()
    return f"SELECT {columns.sql} FROM {m} WHERE {m.id} = %s FOR UPDATE"


@cache
def _results_sql(lock_versions: bool) -> str:
    """One row per entry and game it played (``_ResultRow``), by version id. The games'
    rows are found from the match (match game -> seats -> controls), never from the
    versions' controls, which grow with every game a version plays."""
    e, v = rows.Table(MatchEntry, "e"), rows.Table(BotVersion, "v")
    mg, s, c = rows.Table(MatchGame, "mg"), rows.Table(Seat, "s"), rows.Table(SeatControl, "c")
    sql = (
        f"SELECT {e.position}, {e.id}, {e.version}, {v.mu}, {v.sigma}, {v.status},"
        " played.game_id, played.place, played.tally, played.forfeited"
        f" FROM {e} JOIN {v} ON {v.id} = {e.version}"
        f" LEFT JOIN (SELECT {c.version} AS version_id, {s.game} AS game_id,"
        f" {s.place} AS place, {s.tally} AS tally, {c.autopilot_since} IS NOT NULL AS forfeited"
        f" FROM {mg} JOIN {s} ON {s.game} = {mg.game} JOIN {c} ON {c.seat} = {s.id}"
        f" WHERE {mg.match} = %s) AS played ON played.version_id = {e.version}"
        f" WHERE {e.match} = %s ORDER BY {v.id}"
    )
    return sql + " FOR UPDATE OF v" if lock_versions else sql


# --- writing a finished match ---------------------------------------------------------------


def match_finish_write(
    match: Match,
    entries: Sequence[EntryResult],
    places: Mapping[int, int],
    changes: Sequence[ratings.Change],
    games: int,
) -> None:
    """Write a finished match: its entries' places (``places`` by version), its versions'
    new ratings, games and matches played, and the changes' explanations (if rated), and
    the match's ``MATCH_RESULT_FIELDS``. On PostgreSQL one statement."""
    entry_columns: list[list[Any]] = [
        [e.entry_id for e in entries],
        [places[e.standing.key] for e in entries],
        [e.standing.dollars for e in entries],
        [e.standing.forfeited for e in entries],
    ]
    if not persistence.sql_path():
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
    e, b = rows.Table(MatchEntry, "e"), rows.Table(BotVersion, "b")

    def entry(name: str) -> str:
        return rows.column(MatchEntry, name)

    def version(name: str) -> str:
        return rows.column(BotVersion, name)

    parts = [
        f"entry AS (UPDATE {e} SET {entry('place')} = v.place, {entry('dollars')} = v.dollars,"
        f" {entry('forfeited')} = v.forfeited"
        " FROM unnest(%s::bigint[], %s::smallint[], %s::bigint[], %s::boolean[])"
        f" AS v(id, place, dollars, forfeited) WHERE {e.id} = v.id)"
    ]
    if rated:
        change_columns = ", ".join(
            rows.column(RatingChange, name)
            for name in (
                "match", "version", "mu_before", "sigma_before", "mu_after", "sigma_after",
                "expected_place", "actual_place", "created_at",
            )
        )  # fmt: skip
        parts += [
            "rated AS (SELECT * FROM unnest(%s::bigint[], %s::float8[], %s::float8[],"
            " %s::float8[], %s::float8[], %s::float8[], %s::smallint[])"
            " AS r(version_id, mu_before, sigma_before, mu_after, sigma_after,"
            " expected_place, actual_place))",
            f"version AS (UPDATE {b} SET {version('mu')} = r.mu_after,"
            f" {version('sigma')} = r.sigma_after,"
            f" {version('games_played')} = {b.games_played} + %s::integer,"
            f" {version('matches_played')} = {b.matches_played} + 1"
            f" FROM rated r WHERE {b.id} = r.version_id)",
            f"change AS (INSERT INTO {rows.table(RatingChange)} ({change_columns})"
            " SELECT %s::bigint, r.version_id, r.mu_before, r.sigma_before, r.mu_after,"
            " r.sigma_after, r.expected_place, r.actual_place, %s::timestamptz FROM rated r)",
        ]
    return (
        f"WITH {', '.join(parts)} UPDATE {rows.table(Match)}"
        f" SET {rows.assignments(Match, MATCH_RESULT_FIELDS)}"
        f" WHERE {rows.column(Match, 'id')} = %s"
    )


def _finish_write_orm(
    match: Match,
    entry_columns: Sequence[Sequence[Any]],
    changes: Sequence[ratings.Change],
    games: int,
) -> None:
    """``match_finish_write`` through the ORM."""
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
            created_at=cast(datetime, match.finished_at),
        )
        for change in changes
    )
    Match.objects.filter(pk=match.pk).update(
        **{name: getattr(match, name) for name in MATCH_RESULT_FIELDS}
    )
