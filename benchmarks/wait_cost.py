"""What one request costs the ASGI server's core: ``/healthz``, and a long-poll, answered at
once and answered by a change.

    python benchmarks/wait_cost.py [--requests 2000] [--concurrency 20] [--changes 60]

Needs PostgreSQL and Redis (``DATABASE_URL``'s server and ``REDIS_URL``). It recreates
the database ``cya_wait_bench``, migrates it, starts a game of two people, and serves the ASGI
application as deployed (uvicorn, DEBUG off) on 127.0.0.1. Each path is sent
``--requests`` times over ``--concurrency`` kept-alive connections (plain asyncio HTTP,
anonymous), after a warm-up round of the same size: ``/healthz`` (the middleware chain
and a view), then ``GET /api/v1/games/{id}/wait/?after=0&timeout=0`` (the wait's whole
path: DRF's authentication, throttle and read, answered at once). Then the crowd's case
(benchmarks/live.py): ``--concurrency`` long-polls wait on the game, each asking again
after every answer, while this script plays ``--changes`` actions through the services,
the next once every wait has asked again (and a third as many before, to warm up; the
game's first legal actions end it in about a hundred): each answered wait costs its
request, its subscription and its answer from the push.

For each: requests per second, and uvicorn's CPU (user and system, from /proc) per
request. The last line is read by tools: ``healthz_cpu_ms=… wait_cpu_ms=… pushed_cpu_ms=…``
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import subprocess
import sys
import time
from pathlib import Path

import orjson

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.api import (  # noqa: E402 - after sys.path
    bench_database_url,
    free_port,
    production_env,
    recreate_database,
    wait_serving,
)
from benchmarks.live import cpu_seconds  # noqa: E402 - after sys.path

BENCH_DB = "cya_wait_bench"  # its own: benchmarks/api.py's is cya_bench


def started_game(env: dict[str, str]) -> int:
    """Migrate, and start a game of two people (long, the standard ending): its id."""
    subprocess.run(
        [sys.executable, "manage.py", "migrate", "--noinput", "-v0"], cwd=ROOT, env=env, check=True
    )
    os.environ.update(env)
    import django

    django.setup()
    from django.db import connections

    from accounts.models import User
    from games import services
    from games.engine import RuleSet

    alice, bob = (User.objects.create_user(name) for name in ("cost-alice", "cost-bob"))
    game = services.game_create(by=alice, rules=RuleSet.preset("2021", seats=2))
    services.game_join(game=game, user=bob)
    game.refresh_from_db()
    if game.status == game.Status.OPEN:
        services.game_start(game=game, by=alice)
    connections.close_all()
    return int(game.pk)


def act(game_id: int) -> int:
    """One action by the seat to act (its first legal one), through the services: the
    game's new version."""
    from games import selectors
    from games.models import Game
    from games.services import action_submit

    game = Game.objects.get(pk=game_id)
    if game.to_act is None:
        raise SystemExit("the game has ended: play fewer --changes")
    seat = game.seats.select_related("user").get(number=game.to_act)
    decision = selectors.decision(game, seat)
    assert decision is not None  # the seat to act has a decision
    assert seat.user is not None  # and is a person
    result = action_submit(
        game_id=game_id, user=seat.user, action=decision["legal_actions"][0],
        version=game.version,
    )  # fmt: skip
    return int(result.game.version)


async def _waiter(port: int, game_id: int, version: int, asked: list[int]) -> None:
    """A long-poll that asks again after each answer, until cancelled; ``asked[0]``
    counts the requests sent."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    try:
        while True:
            path = f"/api/v1/games/{game_id}/wait/?after={version}&timeout=25"
            writer.write(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".encode())
            asked[0] += 1
            head = await reader.readuntil(b"\r\n\r\n")
            if not head.startswith(b"HTTP/1.1 200"):
                raise SystemExit(f"the wait answered {head.splitlines()[0].decode()}")
            body = await reader.readexactly(_length(head))
            version = orjson.loads(body)["version"]
    finally:
        writer.close()


def pushed(pid: int, port: int, game_id: int, args: argparse.Namespace) -> float:
    """The crowd's case (see the module docstring): uvicorn's CPU ms per answered wait."""

    async def crowd(changes: int) -> None:
        asked = [0]
        version = await asyncio.to_thread(lambda: Game.objects.get(pk=game_id).version)
        waiters = [
            asyncio.create_task(_waiter(port, game_id, version, asked))
            for _ in range(args.concurrency)
        ]
        try:
            for n in range(changes + 1):
                deadline = time.monotonic() + 30  # past the waits' own timeout of 25 s
                while asked[0] < args.concurrency * (n + 1):  # every wait asked again
                    for failed in (w for w in waiters if w.done()):
                        failed.result()  # a refusal ends the run, with its status
                    if time.monotonic() > deadline:
                        raise SystemExit(f"a wait was not answered within 30 s (change {n})")
                    await asyncio.sleep(0.005)
                await asyncio.sleep(0.02)  # and is waiting
                if n < changes:
                    await asyncio.to_thread(act, game_id)
        finally:
            for waiter in waiters:
                waiter.cancel()
            await asyncio.gather(*waiters, return_exceptions=True)

    from games.models import Game

    asyncio.run(crowd(args.changes // 3))  # warm-up
    before, began = cpu_seconds({"uvicorn": pid})["uvicorn"], time.monotonic()
    asyncio.run(crowd(args.changes))
    took = time.monotonic() - began
    spent = cpu_seconds({"uvicorn": pid})["uvicorn"] - before
    answered = args.changes * args.concurrency
    per_request = float(spent * 1000 / answered)
    print(
        f"a wait answered by a change: {answered / took:.0f} answers/s,"
        f" {per_request:.2f} ms of CPU each"
    )
    return per_request


def _length(head: bytes) -> int:
    return next(
        int(line.split(b":", 1)[1])
        for line in head.split(b"\r\n")
        if line.lower().startswith(b"content-length:")
    )


async def _client(port: int, path: str, n: int) -> None:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    request = f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".encode()
    try:
        for _ in range(n):
            writer.write(request)
            head = await reader.readuntil(b"\r\n\r\n")
            if not head.startswith(b"HTTP/1.1 200"):
                raise SystemExit(f"{path} answered {head.splitlines()[0].decode()}")
            await reader.readexactly(_length(head))
    finally:
        writer.close()


def send(port: int, path: str, requests: int, concurrency: int) -> None:
    async def all_clients() -> None:
        share = requests // concurrency
        await asyncio.gather(*(_client(port, path, share) for _ in range(concurrency)))

    asyncio.run(all_clients())


def measure(pid: int, port: int, path: str, args: argparse.Namespace) -> float:
    """Send ``path`` (a warm-up round, then the measured one); uvicorn's CPU ms a request."""
    send(port, path, args.requests, args.concurrency)
    before, began = cpu_seconds({"uvicorn": pid})["uvicorn"], time.monotonic()
    send(port, path, args.requests, args.concurrency)
    took = time.monotonic() - began
    spent = cpu_seconds({"uvicorn": pid})["uvicorn"] - before
    per_request = float(spent * 1000 / args.requests)
    print(f"{path}: {args.requests / took:.0f} requests/s, {per_request:.2f} ms of CPU each")
    return per_request


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=2000)
    parser.add_argument("--concurrency", type=int, default=20)
    parser.add_argument("--changes", type=int, default=60)
    args = parser.parse_args()
    url = bench_database_url(BENCH_DB)
    recreate_database(url)
    env = production_env(
        url,
        ALLOWED_HOSTS="127.0.0.1,localhost",
        SECURE_COOKIES="false",
        SSL_REDIRECT="false",
        ACCESS_LOG="false",
        THROTTLE_ANON="1000000/min",
        THROTTLE_WAIT="1000000/min",
        WAITS_PER_ADDRESS="100000",
    )
    game = started_game(env)
    port = free_port()
    command = [
        sys.executable, "-m", "uvicorn", "cya_site.asgi:application", "--host", "127.0.0.1",
        "--port", str(port), "--log-level", "warning", "--no-access-log",
    ]  # fmt: skip
    server = subprocess.Popen(command, cwd=ROOT, env=env, start_new_session=True)
    try:
        wait_serving([port], lambda: None)  # stopped below
        healthz = measure(server.pid, port, "/healthz", args)
        wait = measure(server.pid, port, f"/api/v1/games/{game}/wait/?after=0&timeout=0", args)
        push = pushed(server.pid, port, game, args)
    finally:
        server.terminate()
        with contextlib.suppress(subprocess.TimeoutExpired):
            server.wait(timeout=20)
    print(f"healthz_cpu_ms={healthz:.2f} wait_cpu_ms={wait:.2f} pushed_cpu_ms={push:.2f}")


if __name__ == "__main__":
    main()
