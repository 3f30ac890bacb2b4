"""``manage.py verify_games`` speed: how long the consistency check takes per finished game.

    python benchmarks/verify_games.py [--matches 750] [--seats 4] [--by-actions 50] [--reuse]

Needs PostgreSQL and Redis (``DATABASE_URL``'s server and ``REDIS_URL``; defaults are the
local ones). It recreates a database ``cya_verify_bench``, migrates it, and fills it with
finished games as a site gets them:

- ``--matches`` ladder matches of built-in versions (one game per seat rotation), played
  by bots.runner as the ladder's worker plays them: each game one ``Playout`` row;
- ``--by-actions`` games of three people, every action sent on its own through
  games.services.action_submit (one ``Event`` row per action, as people and webhook
  bots write them).

Then it runs ``manage.py verify_games`` over all of them, as an operator would (a process
of its own), and prints its wall and CPU time and the games per second, beside what
replaying the same logs costs the engine alone (codes read beforehand, a fresh process),
so the check's own overhead can be read off. CPU time is the figure to compare on a shared
machine. ``--reuse`` measures again on the games the last run made. It ends with
``verify_games_per_s=<n> verify_cpu_ms_per_game=<n> engine_cpu_ms_per_game=<n> exit=<n>``.
"""

from __future__ import annotations

import argparse
import os
import random
import resource
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import psycopg

ROOT = Path(__file__).resolve().parent.parent
BENCH_DB = "cya_verify_bench"
STRATEGY_CYCLE = ("shark", "greedy", "random", "shark", "greedy", "random")


def database_url() -> str:
    base = os.environ.get("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/postgres")
    parts = urlsplit(base)
    if parts.scheme not in ("postgres", "postgresql"):
        sys.exit("benchmarks/verify_games.py needs PostgreSQL: set DATABASE_URL to postgres://")
    return urlunsplit(parts._replace(path=f"/{BENCH_DB}"))


def recreate(url: str) -> None:
    admin = urlunsplit(urlsplit(url)._replace(path="/postgres"))
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f"DROP DATABASE IF EXISTS {BENCH_DB} WITH (FORCE)")
        conn.execute(f"CREATE DATABASE {BENCH_DB}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=750)
    parser.add_argument("--seats", type=int, default=4)
    parser.add_argument("--by-actions", type=int, default=50)
    parser.add_argument(
        "--reuse", action="store_true", help="measure again on the games the last run made"
    )
    parser.add_argument("--replay-only", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.replay_only:
        replay_only()
        return

    url = database_url()
    if not args.reuse:
        recreate(url)
    env = {
        "DATABASE_URL": url,
        "REDIS_URL": os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/0"),
        "DJANGO_SETTINGS_MODULE": "cya_site.settings",
        "DEBUG": "false",
        "SECRET_KEY": "benchmark-only-secret-key",
        "LADDER_TABLES": "0",
    }
    subprocess.run(
        [sys.executable, "manage.py", "migrate", "--noinput", "-v0"],
        cwd=ROOT,
        env={**os.environ, **env},
        check=True,
    )
    os.environ.update(env)
    sys.path.insert(0, str(ROOT))
    import django

    django.setup()
    from django.db import connection

    from games.models import Game, Playout

    started = time.monotonic()
    if not args.reuse:
        fill(args.matches, args.seats, args.by_actions)
        with connection.cursor() as cursor:
            cursor.execute("ANALYZE")
    finished = Game.objects.filter(status=Game.Status.FINISHED)
    games = finished.count()
    playouts = Playout.objects.values("game_id").distinct().count()
    actions = sum(finished.values_list("version", flat=True))
    print(
        f"{games} finished games ({playouts} written as playouts, {games - playouts} action "
        f"by action), {actions:,} actions"
        + ("" if args.reuse else f", made in {time.monotonic() - started:.0f} s")
    )

    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.monotonic()
    done = subprocess.run(
        [sys.executable, "manage.py", "verify_games"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    wall = time.monotonic() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    print(done.stdout.strip() or done.stderr)
    replayed = subprocess.run(
        [sys.executable, __file__, "--replay-only"], capture_output=True, text=True, check=True
    )
    engine = float(replayed.stdout)
    print(
        f"manage.py verify_games (a process of its own, Django's start-up included): "
        f"{wall:.1f} s wall, {cpu:.1f} s CPU; {games / wall:.0f} games/s, "
        f"{1000 * cpu / games:.1f} ms CPU a game"
    )
    print(
        f"the engine alone replaying the same logs (read beforehand, in a fresh process): "
        f"{engine:.1f} s CPU; {1000 * engine / games:.1f} ms a game"
    )
    print(
        f"verify_games_per_s={games / wall:.0f} verify_cpu_ms_per_game={1000 * cpu / games:.1f} "
        f"engine_cpu_ms_per_game={1000 * engine / games:.1f} exit={done.returncode}"
    )


def fill(matches: int, seats: int, by_actions: int) -> None:
    """Finished games as a site gets them: ladder matches of built-in versions, played by
    bots.runner (each game one playout), and games of three people sent action by action."""
    from accounts.models import User
    from bots import runner, services
    from bots.models import Bot, BotVersion
    from games import services as game_services
    from games import store
    from games.engine import RuleSet, action_to_json, legal_actions
    from games.models import Game

    versions = []
    for i in range(seats):
        owner = User.objects.create_user(f"bench-owner-{i}")
        name = STRATEGY_CYCLE[i % len(STRATEGY_CYCLE)]
        bot = services.bot_create(owner=services.platform_user(), name=f"bench-{i}", kind="builtin")
        Bot.objects.filter(pk=bot.pk).update(owner=owner)
        versions.append(BotVersion.objects.create(bot=bot, number=1, strategy=name, status="ready"))
    rules = RuleSet.preset("2021", seats=seats)
    for m in range(matches):
        runner.run_match(services.match_create(versions=versions, rules=rules, seed=1000 + m))

    people = [User.objects.create_user(f"bench-player-{i}") for i in range(3)]
    staff = User.objects.create_user("bench-staff", is_staff=True)
    for g in range(by_actions):
        game = game_services.game_create(by=people[0], rules=RuleSet.preset("2021", seats=3))
        for user in people[1:]:
            game_services.game_join(game=game, user=user)
        game = game_services.game_start(game=game, by=staff, seed=g)
        rng = random.Random(g)
        while game.status == Game.Status.ACTIVE:
            state = store.load_state(game)
            code = rng.choice(legal_actions(state))
            game = game_services.action_submit(
                game_id=game.pk,
                user=people[state.to_act],
                action=action_to_json(code, state.rules.edition),
                version=state.version,
            ).game


def replay_only() -> None:
    """Print the CPU seconds the engine takes to replay every finished game's log from its
    start."""
    sys.path.insert(0, str(ROOT))
    os.environ["DATABASE_URL"] = database_url()
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "cya_site.settings")
    import django

    django.setup()
    from games import store
    from games.models import Game

    # each game's start (a deal, or a fork's position: store.initial_state) is read
    # before the clock starts, with the log: only the replay of the actions is timed
    logs = [
        (store.initial_state(game), store.codes(game, 0, game.version))
        for game in Game.objects.filter(status=Game.Status.FINISHED).iterator()
    ]
    started = time.process_time()
    for start, codes in logs:
        state = start
        for code in codes:
            state = store.replay_step(state, code)[0]
    print(time.process_time() - started)


if __name__ == "__main__":
    main()
