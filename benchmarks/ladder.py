"""Ladder speed: built-in matches through Celery workers, against the same matches in-process.

    python benchmarks/ladder.py [--matches 100] [--seats 4]

Needs PostgreSQL and Redis (``DATABASE_URL``'s server and ``REDIS_URL``; defaults are the
local ones). It recreates a database ``cya_ladder_bench``, migrates it, registers
``--seats`` built-in versions (shark, greedy, random, ...) and creates ``--matches``
ladder matches (duplicate deals: one game per seat rotation), then:

1. ladder: starts one Celery worker with 2 worker processes on its own queue and waits
   until it answers a ping (its start-up is not timed), sends one ``bots.play_match``
   task per match, and times until every match is finished and rated (games are written
   to the database, ratings applied);
2. in-process: plays the same matches (same seeds, same strategies, same rotations) in
   one process with the engine and strategies only, no database and no broker, once
   before the ladder and once after it; the rate is over the mean of the two CPU times
   (so a shared machine's drift during the run weighs on both sides alike).

``ratio`` compares per-core throughput: ladder games/s over twice the in-process rate.
Wall-clock figures on a shared machine move with everyone else's load, so it also prints
the CPU time the ladder cost per game (its worker processes, and the PostgreSQL backends
serving them) beside the in-process CPU time per game: ``cpu_ratio``, in-process over
ladder CPU per game, is what ``ratio`` tends to on two otherwise idle cores. And it plays
the games once more with the engine alone in two processes side by side (no Celery, no
database): ``pair_ratio``, that rate over twice the in-process one, is the ceiling this
machine puts on ``ratio`` at the moment (virtual cores that slow each other down, a busy
host), so a low ``ratio`` can be told from a machine that cannot do better.
``ceiling_ratio``, the ladder's games/s over the engine alone in two processes of the
same run, is the share of what this machine could do that the ladder does.
The last line is read by tools:
``ladder_games_per_s=<n> inprocess_games_per_s=<n> ratio=<ladder/(inprocess*2)>
ceiling_ratio=<ladder/engine pair>``
"""

from __future__ import annotations

import argparse
import os
import signal
import socket
import subprocess
import sys
import time
import uuid
from pathlib import Path
from random import Random
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import psycopg

ROOT = Path(__file__).resolve().parent.parent
BENCH_DB = "cya_ladder_bench"
STRATEGY_CYCLE = ("shark", "greedy", "random", "shark", "greedy", "random")


def database_url() -> str:
    base = os.environ.get("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/postgres")
    parts = urlsplit(base)
    if parts.scheme not in ("postgres", "postgresql"):
        sys.exit("benchmarks/ladder.py needs PostgreSQL: set DATABASE_URL to a postgres:// URL")
    return urlunsplit(parts._replace(path=f"/{BENCH_DB}"))


def recreate(url: str) -> None:
    admin = urlunsplit(urlsplit(url)._replace(path="/postgres"))
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f"DROP DATABASE IF EXISTS {BENCH_DB} WITH (FORCE)")
        conn.execute(f"CREATE DATABASE {BENCH_DB}")


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of a live process (0 once it is gone)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def wait_until_ready(app: Any, node: str, worker: subprocess.Popen[bytes]) -> None:
    """Wait for the worker to answer a ping (booted, its pool started, consuming), so its
    start-up, which takes longer on a busy machine or with more to import, is never
    timed as ladder work."""
    give_up = time.monotonic() + 120
    while not app.control.ping(destination=[node], timeout=0.5):
        if worker.poll() is not None:
            sys.exit(f"the Celery worker stopped (exit {worker.returncode}) before it was ready")
        if time.monotonic() > give_up:
            sys.exit("the Celery worker did not answer a ping within 120 s")
    time.sleep(0.5)  # its pool processes settle (forked when the pool started)


def family(pid: int) -> list[int]:
    """The process and its children (a Celery worker and its pool processes)."""
    children = Path(f"/proc/{pid}/task/{pid}/children")
    return [pid, *map(int, children.read_text().split())] if children.exists() else [pid]


def backends(conn: psycopg.Connection[tuple[Any, ...]]) -> list[int]:
    """The PostgreSQL backends serving the benchmark's database, except this one."""
    rows = conn.execute(
        "SELECT pid FROM pg_stat_activity WHERE datname = %s AND pid <> pg_backend_pid()",
        [BENCH_DB],
    )
    return [int(row[0]) for row in rows]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    # 40 matches (160 games) took under 3 s of ladder time once a game was one statement:
    # each worker process's first task (its connection, cold caches), the last match
    # running alone and the 50 ms completion poll were a tenth of that.
    parser.add_argument("--matches", type=int, default=100)
    parser.add_argument("--seats", type=int, default=4)
    args = parser.parse_args()

    url = database_url()
    recreate(url)
    queue = f"ladder-bench-{uuid.uuid4().hex[:8]}"
    env = {
        **os.environ,
        "DATABASE_URL": url,
        "REDIS_URL": os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/0"),
        "DJANGO_SETTINGS_MODULE": "cya_site.settings",
        "DEBUG": "false",
        "SECRET_KEY": "benchmark-only-secret-key",
        "LADDER_TABLES": "0",  # no beat-scheduled matches: only the benchmark's
        # a match's later slices go to the benchmark's batch queue, which its worker takes
        "CELERY_QUEUE_PREFIX": f"{queue}.",
    }
    subprocess.run(
        [sys.executable, "manage.py", "migrate", "--noinput", "-v0"], cwd=ROOT, env=env, check=True
    )
    os.environ.update(env)
    sys.path.insert(0, str(ROOT))
    import django

    django.setup()
    from django.db import connection

    from accounts.models import User
    from bots import services
    from bots.models import Bot, BotVersion, Match
    from bots.strategies import decide, strategy
    from cya_site.celery import app
    from games.engine import RuleSet, apply, new_game

    app.conf.task_default_queue = queue
    versions = []
    for i in range(args.seats):
        owner = User.objects.create_user(f"bench-owner-{i}")
        name = STRATEGY_CYCLE[i % len(STRATEGY_CYCLE)]
        bot = services.bot_create(owner=services.platform_user(), name=f"bench-{i}", kind="builtin")
        Bot.objects.filter(pk=bot.pk).update(owner=owner)
        versions.append(BotVersion.objects.create(bot=bot, number=1, strategy=name, status="ready"))
    rules = RuleSet.preset("2021", seats=args.seats)
    matches = [
        services.match_create(versions=versions, rules=rules, seed=1000 + m)
        for m in range(args.matches)
    ]
    game_ids = {
        m.pk: list(m.match_games.order_by("rotation").values_list("game_id", flat=True))
        for m in matches
    }
    # Statistics for the planner, as autovacuum keeps them on a live database (it may be
    # off, as on the machines this runs on, and the tables were empty a moment ago). Only
    # the tables that hold rows: an empty table analyzed is planned as empty for good on
    # a machine without autovacuum, and the rounds table, empty until the games are
    # played, then had each round score's foreign-key check scan it as it grew (about a
    # fifth of PostgreSQL's time a game); autovacuum would have analyzed it as it grew.
    with connection.cursor() as cursor:
        for table in connection.introspection.table_names(cursor):
            cursor.execute(f'SELECT EXISTS (SELECT 1 FROM "{table}")')
            if cursor.fetchone()[0]:
                cursor.execute(f'ANALYZE "{table}"')
    games = sum(len(ids) for ids in game_ids.values())

    # in process: the same matches, engine and strategies only, no database, no broker
    names = [v.strategy for v in versions]
    n = args.seats

    def in_process(part: slice = slice(None)) -> float:
        """The CPU seconds one process takes to play every game of the matches (or of
        ``part`` of them)."""
        started_cpu = time.process_time()
        for match in matches[part]:
            for rotation, game_id in enumerate(game_ids[match.pk]):
                seats = [strategy(names[(s - rotation) % n]) for s in range(n)]
                state = new_game(rules, match.seed)
                while not state.over:  # seeded as bots.runner seeds them: the very same games
                    seat = state.to_act
                    rng = Random(f"{match.seed}:{game_id}:{state.version}")
                    state = apply(state, decide(seats[seat], state, seat, rng))[0]
        return time.process_time() - started_cpu

    def in_two_processes() -> float:
        """The wall seconds two processes take to play every game, half each, side by side
        on the two cores: what the ladder would take if the platform cost nothing."""
        started = time.monotonic()
        children = []
        for half in (slice(0, None, 2), slice(1, None, 2)):
            pid = os.fork()
            if pid == 0:  # the engine only: the parent's connections are left alone
                code = 1
                try:
                    in_process(half)
                    code = 0
                finally:
                    os._exit(code)
            children.append(pid)
        failed = [pid for pid in children if os.waitpid(pid, 0)[1] != 0]
        if failed:
            sys.exit(f"the engine failed in {len(failed)} of the two processes")
        return time.monotonic() - started

    # measured before and after the ladder, so a machine that speeds up or slows down
    # during the run moves both sides of the ratio alike
    before = in_process()

    # the ladder: one worker with 2 processes, one task per match
    node = f"{queue}@{socket.gethostname()}"
    worker = subprocess.Popen(
        [sys.executable, "-m", "celery", "--app", "cya_site", "worker",
         "--queues", f"{queue},{queue}.batch",
         "--hostname", node, "--concurrency", "2", "--without-gossip", "--without-mingle",
         "--loglevel", "WARNING"],
        cwd=ROOT, env=env, start_new_session=True,
    )  # fmt: skip
    watch = psycopg.connect(url, autocommit=True)
    try:
        wait_until_ready(app, node, worker)  # the clock starts once the worker answers
        workers = family(worker.pid)
        cpu_before = {pid: cpu_seconds(pid) for pid in workers + backends(watch)}
        started = time.monotonic()
        for match in matches:
            app.send_task("bots.play_match", args=[match.pk], queue=queue)
        # the parent shares the two cores: poll with one plain statement, not the ORM
        pending = (
            f"SELECT EXISTS (SELECT 1 FROM {Match._meta.db_table} WHERE id = ANY(%s) "
            "AND status NOT IN ('finished', 'voided'))"
        )
        ids = [m.pk for m in matches]
        while watch.execute(pending, [ids]).fetchone() != (False,):
            time.sleep(0.05)
        ladder_seconds = time.monotonic() - started
        served = backends(watch)  # the workers' connections, still open
        worker_cpu = sum(cpu_seconds(p) - cpu_before.get(p, 0.0) for p in family(worker.pid))
        database_cpu = sum(cpu_seconds(p) - cpu_before.get(p, 0.0) for p in served)
    finally:
        watch.close()
        os.killpg(worker.pid, signal.SIGTERM)
        worker.wait(timeout=60)
    voided = Match.objects.filter(pk__in=[m.pk for m in matches], status="voided").count()
    if voided:
        sys.exit(f"{voided} matches were voided: see the worker's log")
    ladder_rate = games / ladder_seconds

    inprocess_cpu = (before + in_process()) / 2
    inprocess_rate = games / inprocess_cpu
    engine_pair_rate = games / in_two_processes()

    print(f"{len(matches)} matches x {n} rotations = {games} games of {n} seats")
    print(f"ladder (Celery, 2 processes, PostgreSQL): {ladder_rate:.2f} games/s")
    print(f"in-process (one core, no database):       {inprocess_rate:.2f} games/s")
    ms = 1000 / games
    print(
        f"CPU per game: ladder workers {worker_cpu * ms:.1f} ms + PostgreSQL "
        f"{database_cpu * ms:.1f} ms; in-process {inprocess_cpu * ms:.1f} ms; "
        f"cpu_ratio={inprocess_cpu / (worker_cpu + database_cpu):.2f}"
    )
    print(
        f"engine alone, 2 processes side by side: {engine_pair_rate:.2f} games/s; "
        f"this machine's ceiling: pair_ratio={engine_pair_rate / (inprocess_rate * 2):.2f}"
    )
    ratio = ladder_rate / (inprocess_rate * 2)
    print(
        f"ladder_games_per_s={ladder_rate:.2f} inprocess_games_per_s={inprocess_rate:.2f} "
        f"ratio={ratio:.2f} ceiling_ratio={ladder_rate / engine_pair_rate:.2f}"
    )


if __name__ == "__main__":
    main()
