"""API speed: complete games through the HTTP action API, against a bare read/write endpoint.

    python benchmarks/api.py [--clients 8] [--seats 4] [--ending classic]
                             [--transport stream|poll] [--bare-seconds 10]

Needs PostgreSQL and Redis (``DATABASE_URL``'s server, default the local one, and
``REDIS_URL``). It recreates a database ``cya_bench`` on that server, migrates it, and
starts the production pair on 127.0.0.1 with ``BENCH_ENDPOINTS`` on: gunicorn (WSGI, the
REST API) and uvicorn (ASGI, the game streams). Then, with ``--clients`` concurrent
clients (processes with keep-alive connections):

1. bare: every client POSTs ``/api/v1/bench/rw/`` (authenticate, throttle, one read,
   one write) for ``--bare-seconds``, half before the games and half after them (a
   shared machine's load drifts: both sides of the ratio see it alike); its latencies
   are printed too, as the floor of what any request costs at this concurrency on
   this machine;
2. actions: every client drives one complete game (one token per seat) the way a bot
   does, and POSTs one of the legal actions of each decision with its version. With
   ``--transport stream`` (the default) each seat holds its game stream open and learns
   of its decisions from it (``GET /games/{id}/stream/``); with ``poll`` the client GETs
   the decision of the seat to act instead (unless the last action response carried it).
   The figures are actions per second over the whole run, and the latency of the action
   POSTs.

The last line is read by tools:
``actions_per_s=<n> p50_ms=<n> p99_ms=<n> bare_rw_per_s=<n> ratio=<actions/bare>
bare_p99_ms=<n> p99_ratio=<action p99/bare p99>`` (one line).
"""

from __future__ import annotations

import argparse
import contextlib
import multiprocessing
import os
import random
import signal
import socket
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import urlsplit, urlunsplit

import httpx
import orjson
import psycopg

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks import _cpu  # noqa: E402 - after sys.path

BENCH_DB = "cya_bench"
# httpx's 5 s default failed whole runs on a machine busy enough to delay a request that
# long; the latencies are measured, not bounded
TIMEOUT = 60.0
T = TypeVar("T")


def bench_database_url(name: str = BENCH_DB) -> str:
    """DATABASE_URL's server, with the benchmark's own database (``name``)."""
    base = os.environ.get("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/postgres")
    parts = urlsplit(base)
    if parts.scheme not in ("postgres", "postgresql"):
        sys.exit("benchmarks/api.py needs PostgreSQL: set DATABASE_URL to a postgres:// URL")
    return urlunsplit(parts._replace(path=f"/{name}"))


def production_env(url: str, **settings: str) -> dict[str, str]:
    """This environment, with the settings every benchmark's servers share (the database
    at ``url``, Redis, DEBUG off) and ``settings`` on top."""
    return {
        **os.environ,
        "DATABASE_URL": url,
        "REDIS_URL": os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/0"),
        "DJANGO_SETTINGS_MODULE": "cya_site.settings",
        "DEBUG": "false",
        "SECRET_KEY": "benchmark-only-secret-key",
        **settings,
    }


def recreate_database(url: str) -> None:
    """Drop and create the database at ``url``."""
    parts = urlsplit(url)
    name = parts.path.lstrip("/")
    admin = urlunsplit(parts._replace(path="/postgres"))
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
        conn.execute(f"CREATE DATABASE {name}")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def setup(env: dict[str, str], clients: int, seats: int, ending: str) -> list[dict[str, Any]]:
    """Migrate, then create each client's players, tokens and dealt game (not timed)."""
    subprocess.run(
        [sys.executable, "manage.py", "migrate", "--noinput", "-v0"], cwd=ROOT, env=env, check=True
    )
    os.environ.update(env)
    import django

    django.setup()
    from accounts.models import User
    from accounts.services import token_create
    from games import services
    from games.engine import RuleSet

    staff = User.objects.create_user("bench-staff", is_staff=True)
    tables = []
    for c in range(clients):
        players = [User.objects.create_user(f"bench-{c}-{s}") for s in range(seats)]
        rules = RuleSet.preset("2021", seats=seats, ending=ending)
        game = services.game_create(by=players[0], rules=rules)
        for player in players[1:]:
            services.game_join(game=game, user=player)
        game = services.game_start(game=game, by=staff, seed=1000 + c)
        tokens = [token_create(user=p, name="bench")[1] for p in players]
        tables.append({"game": game.pk, "tokens": tokens, "to_act": game.to_act})
    bare_users = [User.objects.create_user(f"bench-bare-{c}") for c in range(clients)]
    bare_tokens = [token_create(user=u, name="bare")[1] for u in bare_users]
    for table, token in zip(tables, bare_tokens, strict=True):
        table["bare_token"] = token
    from django.db import connections

    connections.close_all()  # the clients are forked from this process: share no socket
    return tables


def start_servers(
    env: dict[str, str], rest_port: int, stream_port: int, workers: int = 4, threads: int = 2
) -> list[Any]:
    """gunicorn for the REST API and uvicorn for the streams, as in production."""
    rest = [
        sys.executable, "-m", "gunicorn", "cya_site.wsgi:application",
        "--bind", f"127.0.0.1:{rest_port}", "--workers", str(workers), "--threads", str(threads),
        "--worker-class", "gthread", "--log-level", "warning",
        # the clients keep their connections; gunicorn's 2 s default would close a
        # seat's connection while it waits for its turn, and reset the next request
        "--keep-alive", "300",
    ]  # fmt: skip
    streams = [
        sys.executable, "-m", "uvicorn", "cya_site.asgi:application",
        "--host", "127.0.0.1", "--port", str(stream_port),
        "--log-level", "warning", "--no-access-log",
    ]  # fmt: skip
    servers = [subprocess.Popen(command, cwd=ROOT, env=env) for command in (rest, streams)]

    def kill() -> None:
        for server in servers:
            server.kill()

    wait_serving([rest_port, stream_port], kill)
    return servers


def wait_serving(ports: list[int], give_up: Callable[[], None], seconds: float = 60) -> None:
    """Wait until the server on each of ``ports`` answers ``/healthz``; if one has not
    within ``seconds``, ``give_up`` (stop what was started) and exit saying which."""
    for port in ports:
        deadline = time.monotonic() + seconds
        while True:
            try:
                httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=2)
                break
            except httpx.HTTPError:
                if time.monotonic() > deadline:
                    give_up()
                    sys.exit(f"the server on port {port} did not start")
                time.sleep(0.3)


def run_bare(base: str, tables: list[dict[str, Any]], seconds: float) -> tuple[float, list[float]]:
    """Requests per second of the bare read/write endpoint over all clients, and the
    latencies of its requests in ms."""
    stop = time.time() + seconds

    def client(i: int) -> list[float]:
        latencies = []
        headers = {"Authorization": f"Bearer {tables[i]['bare_token']}"}
        with httpx.Client(base_url=base, headers=headers, timeout=TIMEOUT) as http:
            while time.time() < stop:
                t0 = time.perf_counter()
                response = http.post("/api/v1/bench/rw/")
                latencies.append((time.perf_counter() - t0) * 1000)
                response.raise_for_status()
        return latencies

    started = time.monotonic()
    latencies = [x for per in _run_clients(client, len(tables)) for x in per]
    return len(latencies) / (time.monotonic() - started), latencies


def run_games(
    base: str, streams: str | None, tables: list[dict[str, Any]]
) -> tuple[int, float, list[float]]:
    """Play every table's game to the end; (actions, seconds, action latencies in ms).

    ``streams`` is the streams server's base URL; None polls the decision endpoint.
    """

    def client(i: int) -> list[float]:
        latencies: list[float] = []
        table = tables[i]
        rng = random.Random(i)
        headers = [{"Authorization": f"Bearer {t}"} for t in table["tokens"]]
        url = f"/api/v1/games/{table['game']}"
        with contextlib.ExitStack() as stack:
            https = [
                stack.enter_context(httpx.Client(base_url=base, headers=h, timeout=TIMEOUT))
                for h in headers
            ]
            lines = []
            if streams is not None:  # every seat's stream, open before the first action
                for http in https:
                    opened = stack.enter_context(http.stream("GET", f"{streams}{url}/stream/"))
                    lines.append(_lines(opened.raise_for_status().iter_bytes()))
            to_act, version, decision = table["to_act"], 0, None
            while to_act is not None:
                http = https[to_act]
                while decision is None or decision["version"] < version:
                    if streams is None:
                        reply = http.get(f"{url}/decision/").raise_for_status()
                        decision = orjson.loads(reply.content)["decision"]
                    else:
                        decision = _next_decision(lines[to_act])
                body = {
                    "action": rng.choice(decision["legal_actions"]),
                    "version": decision["version"],
                }
                t0 = time.perf_counter()
                response = http.post(f"{url}/actions/", json=body)
                latencies.append((time.perf_counter() - t0) * 1000)
                result = orjson.loads(response.raise_for_status().content)
                to_act, version = result["game"]["to_act"], result["game"]["version"]
                decision = result["decision"]
        return latencies

    started = time.monotonic()
    latencies = _run_clients(client, len(tables))
    elapsed = time.monotonic() - started
    flat = [x for per in latencies for x in per]
    return len(flat), elapsed, flat


def _lines(chunks: Iterator[bytes]) -> Iterator[bytes]:
    """A stream's NDJSON lines, as bytes (orjson parses bytes: no decoding to text)."""
    pending = b""
    for chunk in chunks:
        pending += chunk
        *complete, pending = pending.split(b"\n")
        yield from complete


def _next_decision(lines: Iterator[bytes]) -> dict[str, Any]:
    """Read a seat's stream up to its next decision (a seat's stream carries no updates)."""
    for line in lines:
        if line:  # an empty line is a keep-alive
            message = orjson.loads(line)
            if message["type"] == "decision":
                decision: dict[str, Any] = message["decision"]
                return decision
    raise RuntimeError("the stream closed before the seat's decision")


def _run_clients(target: Callable[[int], T], n: int) -> list[T]:
    """``target(i)`` for i < n, each in a process of its own (forked: it inherits
    ``target``), as real clients are: threads of one process would wait for each other's
    GIL and add that wait to the latencies measured. A failing client fails the run."""
    context = multiprocessing.get_context("fork")
    results: multiprocessing.Queue[tuple[int, T | None, str | None]] = context.Queue()

    def run(i: int) -> None:
        try:
            results.put((i, target(i), None))
        except BaseException as error:  # reported by the parent
            results.put((i, None, f"client {i}: {type(error).__name__}: {error}"))

    processes = [context.Process(target=run, args=(i,)) for i in range(n)]
    for process in processes:
        process.start()
    out: dict[int, T] = {}
    for _ in range(n):
        i, value, error = results.get()
        if error is not None:
            for process in processes:
                process.kill()
            raise RuntimeError(error)
        out[i] = value  # type: ignore[assignment]
    for process in processes:
        process.join()
    return [out[i] for i in range(n)]


def percentile(values: list[float], q: int) -> float:
    """The ``q``th percentile (1 to 99) of ``values``."""
    if not 1 <= q <= 99:  # a fraction (0.99) once read the 99th as every percentile
        raise ValueError(f"a percentile is 1 to 99, not {q}")
    return statistics.quantiles(values, n=100, method="inclusive")[q - 1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--seats", type=int, default=4)
    parser.add_argument("--ending", default="classic")
    parser.add_argument("--transport", choices=("stream", "poll"), default="stream")
    parser.add_argument("--bare-seconds", type=float, default=10.0)
    parser.add_argument("--database", default=BENCH_DB, help="the database to recreate")
    args = parser.parse_args()

    url = bench_database_url(args.database)
    recreate_database(url)
    env = production_env(
        url,
        BENCH_ENDPOINTS="true",
        THROTTLE_USER="1000000/min",
        THROTTLE_ACTIONS="1000000/min",
        # the servers' PostgreSQL backends live through the run, so that the CPU each
        # spent can be read (_cpu: an exited process's is gone); a run is over a minute
        DB_CONN_MAX_AGE="600",
    )
    tables = setup(env, args.clients, args.seats, args.ending)
    rest_port, stream_port = free_port(), free_port()
    servers = start_servers(env, rest_port, stream_port)
    base = f"http://127.0.0.1:{rest_port}"
    streams = f"http://127.0.0.1:{stream_port}" if args.transport == "stream" else None
    meter = _cpu.Meter(
        urlunsplit(urlsplit(url)._replace(path="/postgres")),
        args.database,
        env["REDIS_URL"],
        {"gunicorn": servers[0].pid, "uvicorn": servers[1].pid},
    )
    try:
        # the bare requests half before the games and half after, so a machine that speeds
        # up or slows down during the run weighs on both sides of the ratio alike
        halves, bare_spans = [], []

        def bare_half() -> None:
            before = meter.read()
            halves.append(run_bare(base, tables, args.bare_seconds / 2))
            bare_spans.append((before, meter.read()))

        bare_half()
        before = meter.read()
        actions, seconds, latencies = run_games(base, streams, tables)
        action_cpu = meter.per_request([(before, meter.read())], actions)
        bare_half()
        bare_latencies = [x for _, half in halves for x in half]
        bare = len(bare_latencies) / sum(len(half) / rate for rate, half in halves)
        bare_cpu = meter.per_request(bare_spans, len(bare_latencies))
        print(
            f"bare read/write: {bare:,.0f} requests/s with {args.clients} clients "
            f"({halves[0][0]:,.0f} before the games, {halves[1][0]:,.0f} after), "
            f"p50 {percentile(bare_latencies, 50):.1f} ms, "
            f"p99 {percentile(bare_latencies, 99):.1f} ms",
            flush=True,
        )
        rate = actions / seconds
        p50, p99 = percentile(latencies, 50), percentile(latencies, 99)
        print(
            f"games: {args.clients} x {args.seats} seats ({args.ending}, {args.transport}), "
            f"{actions} actions "
            f"in {seconds:.1f} s: {rate:,.0f} actions/s, p50 {p50:.1f} ms, p99 {p99:.1f} ms"
        )
        print(_cpu.line("bare", bare_cpu))
        print(_cpu.line("action", action_cpu))
        bare_p99 = percentile(bare_latencies, 99)
        print(
            f"actions_per_s={rate:.0f} p50_ms={p50:.1f} p99_ms={p99:.1f} "
            f"bare_rw_per_s={bare:.0f} ratio={rate / bare:.2f} "
            f"bare_p99_ms={bare_p99:.1f} p99_ratio={p99 / bare_p99:.2f} "
            f"bare_cpu_ms={bare_cpu['total']:.2f} action_cpu_ms={action_cpu['total']:.2f} "
            f"action_gunicorn_ms={action_cpu['gunicorn']:.2f} "
            f"cpu_ratio={bare_cpu['total'] / action_cpu['total']:.2f}"
        )
    finally:
        for server in servers:
            server.send_signal(signal.SIGTERM)
        for server in servers:
            server.wait(timeout=30)


if __name__ == "__main__":
    main()
