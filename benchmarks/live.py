"""People's moves while the platform is busy: bot turns behind a saturated ladder, and a crowd.

    python benchmarks/live.py [--tables 8] [--streams 1000] [--waits 200]

Needs PostgreSQL and Redis (``DATABASE_URL``'s server, default the local one, and
``REDIS_URL``). It recreates a database ``cya_live_bench``, migrates it, and starts the
documented production process set on 127.0.0.1 (README "Deployment"): gunicorn (WSGI),
uvicorn (ASGI, the waits), a worker on ``interactive``, a worker at idle CPU priority
(``chrt --idle 0``) on ``batch`` with one process fewer than the cores, a worker on
``outbound`` and beat, on queues of its own (``CELERY_QUEUE_PREFIX``). One run, four
sets of ``--tables`` people's tables (a seat played through the API by a person, each
from a process of their own, three built-in bots, the quick ending), each played to its
end, while a probe GETs ``/healthz`` on gunicorn every 50 ms:

1. idle: the ladder stopped, no crowd;
2. crowd: ``--streams`` anonymous spectator streams and ``--waits`` anonymous long-polls
   open on the live tables, from another process; the ladder stopped;
3. busy: entered bots (the search player ``ismcts`` among them) on a ladder of more
   tables than the batch worker has processes, keeping it busy the whole time;
4. both: the crowd of 2 and the busy ladder of 3 at once, beyond the issue's two phases
   (printed, not on the last line).

Every phase goes the same way (benchmarks/_live_clients.py, ``play_phase``): the tables
are opened, the crowd (if any) connects, two seconds to settle, and the people start a
quarter second apart, so phases differ only in the ladder and the crowd.

A bot turn's delay runs from when it was due (the move before it, plus
``BOT_MOVE_DELAY_MS``) to the bot's action, both read from the game's log. The person
learns of each turn through the long-poll on uvicorn and POSTs the action on gunicorn;
the action's latency is that POST's. Memory per open stream is uvicorn's resident set
growth over the crowd's connections (streams and long-polls alike). Each phase also
prints the share of a core each process used (the servers, the workers, PostgreSQL,
Redis and these clients): on a machine of two cores the clients' share is load a real
crowd would put on its own machines, so the crowd is plain asyncio HTTP, not httpx.

Targets (issue 25): bot_turn_p99_ms <= 1000 busy, busy/idle p99 ratio <= 1.5 (phases 3
and 1); with the crowd connected, healthz_p99_ms <= 100 and the people's action p99 <= 2x
the idle one (phases 2 and 1);
kb_per_stream <= 64. The last line is read by tools (one line, here in two):
``bot_turn_p99_ms=… bot_turn_busy_idle_ratio=… streams=… waits=… healthz_p99_ms=…``
`` action_p99_ratio=… kb_per_stream=…``
"""

from __future__ import annotations

import argparse
import contextlib
import itertools
import os
import resource
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import psycopg

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks._live_clients import Played, play_phase  # noqa: E402 - after sys.path
from benchmarks.api import (  # noqa: E402 - after sys.path
    free_port,
    percentile,
    production_env,
    wait_serving,
)
from cya_site import queues  # noqa: E402 - after sys.path

BENCH_DB = "cya_live_bench"
BOT_MOVE_DELAY_MS = 800
# entered bots: enough for three ladder matches at once (a version plays one at a time),
# more than the batch worker's two processes take
LADDER_BOTS = ("ismcts", "ismcts", "ismcts", "ismcts", "shark", "greedy", "random", "shark")


def database_url() -> str:
    base = os.environ.get("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/postgres")
    parts = urlsplit(base)
    if parts.scheme not in ("postgres", "postgresql"):
        sys.exit("benchmarks/live.py needs PostgreSQL: set DATABASE_URL to a postgres:// URL")
    return urlunsplit(parts._replace(path=f"/{BENCH_DB}"))


def recreate(url: str) -> None:
    admin = urlunsplit(urlsplit(url)._replace(path="/postgres"))
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f"DROP DATABASE IF EXISTS {BENCH_DB} WITH (FORCE)")
        conn.execute(f"CREATE DATABASE {BENCH_DB}")


# --- set-up (not timed) --------------------------------------------------------------------


def seed(env: dict[str, str], people: int) -> dict[str, Any]:
    """Migrate; the people and their tokens; the ladder's entered bots, switched off."""
    subprocess.run(
        [sys.executable, "manage.py", "migrate", "--noinput", "-v0"], cwd=ROOT, env=env, check=True
    )
    os.environ.update(env)
    import django

    django.setup()
    from accounts.models import User
    from accounts.services import token_create
    from bots import services
    from bots.models import Bot, BotVersion
    from bots.validation import SEATABLE_BUILTINS, builtin_versions

    builtin_versions(SEATABLE_BUILTINS)
    for i, strategy in enumerate(LADDER_BOTS):
        owner = User.objects.create_user(f"live-owner-{i}", is_staff=True)
        bot = services.bot_create(owner=owner, name=f"live-{strategy}-{i}", kind=Bot.Kind.BUILTIN)
        BotVersion.objects.create(
            bot=bot, number=1, strategy=strategy, status=BotVersion.Status.READY
        )
    Bot.objects.update(is_active=False)  # phase 1: the ladder stopped
    tokens = [token_create(user=User.objects.create_user(f"live-{n}"), name="live")[1]
              for n in range(people)]  # fmt: skip
    from django.db import connections

    connections.close_all()
    return {"tokens": tokens}


def ladder(url: str, on: bool) -> None:
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("UPDATE bots_bot SET is_active = %s WHERE name LIKE 'live-%%'", [on])


def start(env: dict[str, str], web: int, waits: int, prefix: str) -> list[subprocess.Popen[bytes]]:
    """The documented process set (README, "Deployment")."""
    celery = [sys.executable, "-m", "celery", "--app", "cya_site"]
    node = uuid.uuid4().hex[:6]
    commands = [
        [sys.executable, "-m", "gunicorn", "cya_site.wsgi", "--bind", f"127.0.0.1:{web}",
         "--workers", "4", "--threads", "2", "--log-level", "warning", "--keep-alive", "300"],
        [sys.executable, "-m", "uvicorn", "cya_site.asgi:application", "--host", "127.0.0.1",
         "--port", str(waits), "--log-level", "warning", "--no-access-log"],
        [*celery, "worker", "--queues", f"{prefix}interactive", "--concurrency", "2",
         "--hostname", f"interactive-{node}@%h", "--loglevel", "WARNING"],
        [*queues.batch_priority(), *celery, "worker", "--queues", f"{prefix}batch",
         "--concurrency", str(queues.batch_concurrency()), "--hostname", f"batch-{node}@%h",
         "--loglevel", "WARNING"],
        [*celery, "worker", "--queues", f"{prefix}outbound", "--concurrency", "1",
         "--hostname", f"outbound-{node}@%h", "--loglevel", "WARNING"],
        [*celery, "beat", "--schedule", f"/tmp/{BENCH_DB}-beat-{node}", "--loglevel", "WARNING"],
    ]  # fmt: skip
    processes = [subprocess.Popen(c, cwd=ROOT, env=env, start_new_session=True) for c in commands]
    wait_serving([web, waits], lambda: stop(processes))
    return processes


def stop(processes: list[subprocess.Popen[bytes]]) -> None:
    for process in processes:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGTERM)
    for process in processes:
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)


# --- the logs -------------------------------------------------------------------------------


def value(conn: psycopg.Connection[tuple[Any, ...]], query: str, *params: Any) -> Any:
    row = conn.execute(query, params).fetchone()
    assert row is not None, query
    return row[0]


def bot_delays(url: str, games: list[int]) -> list[float]:
    """Each bot action's delay (ms) past its due time, from the games' logs."""
    delays = []
    with psycopg.connect(url) as conn:
        for game in games:
            bots = set(value(conn, "SELECT bot_seats FROM games_game WHERE id = %s", game))
            rows = conn.execute(
                "SELECT seq, seat, created_at FROM games_event WHERE game_id = %s ORDER BY seq",
                [game],
            ).fetchall()
            for (_, _, before), (seq, seat, at) in itertools.pairwise(rows):
                if seq > 0 and seat in bots:
                    due = (at - before).total_seconds() * 1000 - BOT_MOVE_DELAY_MS
                    delays.append(max(0.0, due))
    return delays


def ladder_busy(url: str, at_least: int, timeout: float = 180) -> None:
    """Wait until the batch worker is playing ladder matches."""
    deadline = time.monotonic() + timeout
    with psycopg.connect(url, autocommit=True) as conn:
        while value(conn, "SELECT count(*) FROM bots_match WHERE status = 'running'") < at_least:
            if time.monotonic() > deadline:
                sys.exit("the ladder never got busy")
            time.sleep(0.5)


def cpu_seconds(sessions: dict[str, int]) -> dict[str, float]:
    """CPU seconds (user + system) spent so far by every process of each named session
    (a process set member and its children: gunicorn's and the workers' pools), and by
    the PostgreSQL and Redis servers (by command: each PostgreSQL backend is a session of
    its own). A process that has exited no longer counts."""
    tick = os.sysconf("SC_CLK_TCK")
    spent = dict.fromkeys([*sessions, *SERVERS.values()], 0.0)
    names = {sid: name for name, sid in sessions.items()}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            command, rest = (entry / "stat").read_text().rsplit(")", 1)
        except OSError:
            continue
        fields = rest.split()
        command = command.split("(", 1)[1]
        name = names.get(int(fields[3])) or SERVERS.get(command)  # fields[3]: the session
        if name is not None:
            spent[name] += (int(fields[11]) + int(fields[12])) / tick
    return spent


SERVERS = {"postgres": "postgres", "redis-server": "redis"}


def cpu_report(label: str, before: dict[str, float], after: dict[str, float], s: float) -> None:
    """Each process's share of a core over a phase of ``s`` seconds."""
    shares = " ".join(f"{name}={(after[name] - before[name]) / s:.2f}" for name in after)
    print(f"  cores used ({label}): {shares}", flush=True)


def timed(label: str, work: Callable[[], Any]) -> Any:
    began = time.monotonic()
    result = work()
    print(f"  {label}: {time.monotonic() - began:.0f} s", flush=True)
    return result


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--tables", type=int, default=8)
    parser.add_argument("--streams", type=int, default=1000)
    parser.add_argument("--waits", type=int, default=200)
    args = parser.parse_args()
    _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, 65536), hard))

    url = database_url()
    recreate(url)
    prefix = f"live-{uuid.uuid4().hex[:6]}."
    env = production_env(
        url,
        ALLOWED_HOSTS="127.0.0.1,localhost",
        SECURE_COOKIES="false",
        SSL_REDIRECT="false",
        CELERY_QUEUE_PREFIX=prefix,
        BOT_MOVE_DELAY_MS=str(BOT_MOVE_DELAY_MS),
        LADDER_TABLES="6",
        LADDER_SEATS="4",
        LADDER_EVERY_SECONDS="1",
        ACCESS_LOG="false",
        THROTTLE_ANON="1000000/min",
        THROTTLE_USER="1000000/min",
        THROTTLE_WAIT="1000000/min",
        THROTTLE_ACTIONS="1000000/min",
        # the crowd comes from one address, as through one proxy without NUM_PROXIES
        WAITS_PER_ADDRESS="100000",
        STREAMS_PER_USER="100000",
    )
    made = seed(env, 4 * args.tables)
    tokens = made["tokens"]
    sets = [tokens[n * args.tables : (n + 1) * args.tables] for n in range(4)]
    web_port, waits_port = free_port(), free_port()
    web, waits = f"http://127.0.0.1:{web_port}", f"http://127.0.0.1:{waits_port}"
    processes = start(env, web_port, waits_port, prefix)
    names = ("web", "waits", "interactive", "batch", "outbound", "beat")
    sessions = {name: process.pid for name, process in zip(names, processes, strict=True)}
    sessions["clients"] = os.getsid(0)  # this script, its people and the crowd's process

    def phase(label: str, work: Callable[[], Any]) -> Any:
        before, began = cpu_seconds(sessions), time.monotonic()
        result = timed(label, work)
        cpu_report(label, before, cpu_seconds(sessions), time.monotonic() - began)
        return result

    def played(label: str, people: list[str], crowded: bool) -> Played:
        crowd = (args.streams, args.waits) if crowded else (0, 0)
        return play_phase(
            web, waits, people, crowd, processes[1].pid, lambda play: phase(label, play)
        )

    try:
        print("1. idle ladder", flush=True)
        quiet = played("idle", sets[0], crowded=False)
        idle = bot_delays(url, quiet.games)
        print("2. crowd, the ladder idle", flush=True)
        crowd = played("crowd", sets[1], crowded=True)
        print("3. busy ladder", flush=True)
        ladder(url, True)
        ladder_busy(url, at_least=2)
        loaded = played("busy", sets[2], crowded=False)
        busy = bot_delays(url, loaded.games)
        with psycopg.connect(url, autocommit=True) as conn:
            running = value(
                conn, "SELECT count(*) FROM bots_match WHERE status IN ('running', 'scheduled')"
            )
        print(f"  ladder matches running or waiting at the end: {running}", flush=True)
        print("4. crowd and busy ladder together (beyond the issue's phases)", flush=True)
        both = played("crowd+busy", sets[3], crowded=True)
    finally:
        ladder(url, False)
        stop(processes)

    idle_p99, busy_p99 = percentile(idle, 99), percentile(busy, 99)
    for name, found in (("idle", idle), ("busy", busy)):
        print(f"bot turns {name}: n={len(found)} p50={percentile(found, 50):.0f} ms"
              f" p99={percentile(found, 99):.0f} ms")  # fmt: skip
    idle_action_p99 = percentile(quiet.actions, 99)
    for label, seen in (("idle", quiet), ("busy", loaded)):
        print(f"actions {label}: p50={percentile(seen.actions, 50):.0f} ms"
              f" p99={percentile(seen.actions, 99):.0f} ms;"
              f" healthz p99={percentile(seen.healthz, 99):.1f} ms")  # fmt: skip
    for label, seen in (("with the crowd", crowd), ("with the crowd and the busy ladder", both)):
        p99 = percentile(seen.actions, 99)
        print(f"actions {label}: p50={percentile(seen.actions, 50):.0f} ms p99={p99:.0f} ms"
              f" ({p99 / max(idle_action_p99, 1):.2f}x idle)")  # fmt: skip
        print(f"healthz {label}: n={len(seen.healthz)}"
              f" p50={percentile(seen.healthz, 50):.1f} ms"
              f" p99={percentile(seen.healthz, 99):.1f} ms")  # fmt: skip
        print(f"crowd {label}: {seen.opened} connected, {seen.refused} refused;"
              f" {seen.kb:.1f} KB per open stream")  # fmt: skip
    action_p99 = percentile(crowd.actions, 99)
    print(
        f"bot_turn_p99_ms={busy_p99:.0f} bot_turn_busy_idle_ratio={busy_p99 / max(idle_p99, 1):.2f}"
        f" streams={args.streams} waits={args.waits}"
        f" healthz_p99_ms={percentile(crowd.healthz, 99):.1f}"
        f" action_p99_ratio={action_p99 / max(idle_action_p99, 1):.2f}"
        f" kb_per_stream={crowd.kb:.1f}"
    )


if __name__ == "__main__":
    main()
