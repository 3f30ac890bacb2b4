"""Tournaments speed: seating a large field, and standings over a large league.

    python benchmarks/tournaments.py [--entrants 1000] [--rounds 6] [--competitors 400]
                                     [--games 100000] [--runs 5]

1. seating: ``tournaments.seating.schedule`` seats ``--entrants`` entrants over
   ``--rounds`` rounds at tables of 3-6 (4 preferred); pure Python, no database. The
   figure is the best of three runs (each run is the same: the schedule is seeded).
2. standings: needs PostgreSQL (``DATABASE_URL``'s server; default the local one). It
   recreates a database ``cya_tournaments_bench``, migrates it, and loads (not timed) a
   competition of ``--competitors`` competitors with ``--games`` finished recorded games
   at tables of 3-6 and their ``Result`` rows, plus one corrected (superseded) result set
   per fifty games, with COPY; then VACUUM ANALYZE, as autovacuum would after a load.
   The figure is ``tournaments.selectors.standings(competition)`` end to end (every
   query, the ranking and the tie-breaks), best of ``--runs`` runs.

The last line is read by tools:
``seating_1000_entrants_s=<n> standings_100k_games_ms=<n>``
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from random import Random
from urllib.parse import urlsplit, urlunsplit

import psycopg

ROOT = Path(__file__).resolve().parent.parent
BENCH_DB = "cya_tournaments_bench"
sys.path.insert(0, str(ROOT))


def bench_database_url() -> str:
    """DATABASE_URL's server, with the benchmark's own database."""
    base = os.environ.get("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/postgres")
    parts = urlsplit(base)
    if parts.scheme not in ("postgres", "postgresql"):
        sys.exit("benchmarks/tournaments.py needs PostgreSQL: set DATABASE_URL to postgres://")
    return urlunsplit(parts._replace(path=f"/{BENCH_DB}"))


def recreate_database(url: str) -> None:
    admin = urlunsplit(urlsplit(url)._replace(path="/postgres"))
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f"DROP DATABASE IF EXISTS {BENCH_DB} WITH (FORCE)")
        conn.execute(f"CREATE DATABASE {BENCH_DB}")


def time_seating(entrants: int, rounds: int) -> float:
    from tournaments import seating

    best = float("inf")
    for _ in range(3):
        started = time.perf_counter()
        plan = seating.schedule(entrants, rounds, allowed=(3, 4, 5, 6), preferred=4, seed=2026)
        best = min(best, time.perf_counter() - started)
    print(f"seating: {entrants} entrants, {rounds} rounds, {len(plan.rounds[0])} tables a round")
    print(f"  quality {plan.quality}")
    print(f"  best of 3: {best:.3f} s")
    return best


def table(rng: Random, competitors: int) -> tuple[list[int], list[int]]:
    """A random finished table: who sat there, and the dollars each took home."""
    size = rng.choice((3, 4, 4, 4, 5, 6))
    seated = rng.sample(range(competitors), size)
    dollars = [rng.randrange(0, 80) * 5_000 for _ in seated]
    return seated, dollars


def result_rows(
    competition: int, ids: list[int], game: int, seated: list[int], dollars: list[int],
    valid_from: datetime, valid_to: datetime | None,
) -> list[tuple[object, ...]]:  # fmt: skip
    """Result rows as tournaments.results.rows_for makes them (quick games: one round)."""
    n = len(seated)
    total = sum(dollars)
    best = max(dollars)
    out: list[tuple[object, ...]] = []
    for who, amount in zip(seated, dollars, strict=True):
        place = 1 + sum(other > amount for other in dollars)
        placement = (n - place) / (n - 1)
        dsi = amount * n / total if total else 1.0
        won = amount == best and dollars.count(best) == 1
        out.append(
            (competition, ids[who], game, n, place, placement, placement, amount, dsi,
             int(amount == best), won, valid_from, valid_to)
        )  # fmt: skip
    return out


def load(competitors: int, games: int) -> int:
    """The competition, its competitors, games and results (COPY); returns its id."""
    from django.db import connection

    from accounts.models import User
    from games.engine import RuleSet
    from games.models import Game
    from tournaments import running
    from tournaments.models import Competitor

    organiser = User.objects.create_user("bench-organiser")
    tournament = running.tournament_create(
        by=organiser, name="Benchmark League", format="swiss", entrants="humans",
        rules=RuleSet.preset("2021", ending="quick"), rounds=20, table_sizes=[3, 4, 5, 6],
        preferred_size=4, play="recorded",
    )  # fmt: skip
    competition = tournament.competition_id
    Competitor.objects.bulk_create(
        Competitor(competition_id=competition, name=f"Player {i:04}", number=i)
        for i in range(competitors)
    )
    ids = list(
        Competitor.objects.filter(competition_id=competition)
        .order_by("number")
        .values_list("pk", flat=True)
    )
    rng = Random(7)
    start = datetime(2026, 1, 1, tzinfo=UTC)
    rules = RuleSet.preset("2021", ending="quick").to_json()
    # every column of the game row, from the model: a column added later gets its default
    game_fields = Game._meta.concrete_fields
    game_columns = ", ".join(connection.ops.quote_name(f.column) for f in game_fields)
    result_columns = (
        "competition_id, competitor_id, game_id, table_size, place, points, placement, "
        "dollars, dsi, rounds_won, won, valid_from, valid_to"
    )
    with connection.cursor() as cursor:
        raw = cursor.cursor  # psycopg's own cursor: COPY
        tables = []
        with raw.copy(f"COPY games_game ({game_columns}) FROM STDIN") as copy:
            for g in range(1, games + 1):
                seated, dollars = table(rng, competitors)
                at = start + timedelta(seconds=30 * g)
                game = Game(
                    pk=g, created_by=organiser, created_at=at, started_at=at, finished_at=at,
                    status="finished", mode="recorded", rules=rules, seat_count=len(seated),
                    version=1, decision_kind="", round_number=1,
                    winners=[dollars.index(max(dollars))], end_reason="finished",
                )  # fmt: skip
                copy.write_row([f.get_db_prep_save(getattr(game, f.attname), connection)
                                for f in game_fields])  # fmt: skip
                tables.append((seated, dollars, at))
        with raw.copy(f"COPY tournaments_result ({result_columns}) FROM STDIN") as copy:
            for g, (seated, dollars, at) in enumerate(tables, start=1):
                if g % 50 == 0:  # entered wrongly first, corrected an hour later
                    wrong = list(reversed(dollars))
                    later = at + timedelta(hours=1)
                    for row in result_rows(competition, ids, g, seated, wrong, at, later):
                        copy.write_row(row)
                    at = later
                for row in result_rows(competition, ids, g, seated, dollars, at, None):
                    copy.write_row(row)
        cursor.execute("SELECT setval('games_game_id_seq', %s)", [games])
    return competition


def time_standings(competition_id: int, runs: int) -> float:
    from django.db import connection

    from tournaments import selectors
    from tournaments.models import Competition, Result

    with connection.cursor() as cursor:
        cursor.execute("VACUUM ANALYZE")
    rows = Result.objects.filter(competition_id=competition_id).count()
    best = float("inf")
    for _ in range(runs):
        competition = Competition.objects.get(pk=competition_id)
        started = time.perf_counter()
        table = selectors.standings(competition)
        best = min(best, time.perf_counter() - started)
    ties = sum(1 for row in table if "lot" in row["decided_by"])
    print(f"standings: {len(table)} competitors, {rows} result rows")
    print(f"  leader {table[0]['name']}: {table[0]['games']} games, {table[0]['points']} points")
    print(f"  decided by the lot: {ties}")
    print(f"  best of {runs}: {best * 1000:.1f} ms")
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--entrants", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=6)
    parser.add_argument("--competitors", type=int, default=400)
    parser.add_argument("--games", type=int, default=100_000)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()

    url = bench_database_url()
    recreate_database(url)
    env = {
        **os.environ,
        "DATABASE_URL": url,
        "DJANGO_SETTINGS_MODULE": "cya_site.settings",
        "DEBUG": "false",
        "SECRET_KEY": "benchmark-only-secret-key",
    }
    subprocess.run(
        [sys.executable, "manage.py", "migrate", "--noinput", "-v0"], cwd=ROOT, env=env, check=True
    )
    os.environ.update(env)
    import django

    django.setup()

    seating_s = time_seating(args.entrants, args.rounds)
    started = time.perf_counter()
    competition = load(args.competitors, args.games)
    print(f"loaded {args.games} games in {time.perf_counter() - started:.1f} s (not timed)")
    standings_s = time_standings(competition, args.runs)
    print(
        f"seating_{args.entrants}_entrants_s={seating_s:.3f} "
        f"standings_{args.games // 1000}k_games_ms={standings_s * 1000:.1f}"
    )


if __name__ == "__main__":
    main()
