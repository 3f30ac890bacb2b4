"""The clients of benchmarks/live.py (run that, not this): people playing their tables
through the API, each from a process of their own, and the crowd, anonymous spectator
streams and long-polls from another, with a probe of /healthz while the people play."""

from __future__ import annotations

import asyncio
import multiprocessing
import os
import threading
import time
from collections.abc import Callable
from typing import Any, NamedTuple

import httpx
import orjson

Report = tuple[int, list[float], list[float], list[float], list[float]]


class Person:
    """One person at a table of three built-ins, through the API: the long-poll on
    uvicorn, the decision and the action on gunicorn."""

    def __init__(self, web: str, waits: str, token: str) -> None:
        headers = {"Authorization": f"Bearer {token}"}
        self.web = httpx.Client(base_url=web, headers=headers, timeout=60)
        self.waits = httpx.Client(base_url=waits, headers=headers, timeout=60)
        self.actions_ms: list[float] = []
        self.began: list[float] = []  # when each action was sent (time.monotonic)
        self.server_ms: list[float] = []  # of each, the application's time (Server-Timing)
        self.db_ms: list[float] = []  # and of that, its database queries' time
        self.game = 0

    def open(self) -> int:
        bots = [{"seat": n, "strategy": s} for n, s in ((1, "greedy"), (2, "shark"), (3, "random"))]
        table = {"preset": "2021", "seats": 4, "options": {"ending": "quick"}, "bots": bots}
        created = self.web.post("/api/v1/games/", json=table)
        created.raise_for_status()
        self.game = int(created.json()["id"])
        return self.game

    def play(self) -> None:
        version = 0  # at once: the table has moved past its deal, or it is my turn
        while True:
            answer = self.waits.get(
                f"/api/v1/games/{self.game}/wait/", params={"after": version, "timeout": 25}
            )
            answer.raise_for_status()
            waited = answer.json()
            if waited["status"] != "active":
                return
            version = waited["version"]
            if not waited["your_turn"]:
                continue
            decision = self.web.get(f"/api/v1/games/{self.game}/decision/").json()["decision"]
            action = {"action": decision["legal_actions"][0], "version": decision["version"]}
            self.began.append(time.monotonic())
            began = time.perf_counter()
            answer = self.web.post(f"/api/v1/games/{self.game}/actions/", json=action)
            self.actions_ms.append((time.perf_counter() - began) * 1000)
            answer.raise_for_status()
            timing = server_timing(answer.headers["Server-Timing"])
            self.server_ms.append(timing["app"])
            self.db_ms.append(timing["db"])

    def report(self) -> Report:
        """The table, and of each action: its time, the application's, the queries', and
        when it was sent."""
        return self.game, self.actions_ms, self.server_ms, self.db_ms, self.began


def person(
    web: str, waits: str, token: str, after: float, opened: Any, go: Any, reports: Any
) -> None:
    """In a process of its own, as people sit at machines of their own (threads of one
    process would time each other's work as theirs: the interpreter runs one at a time):
    open a table, say which, play it from ``after`` seconds past ``go``, and report (or
    say what went wrong, for the phase to stop at once rather than wait for a report)."""
    seated = Person(web, waits, token)
    opened.put(seated.open())
    go.wait()
    time.sleep(after)
    try:
        seated.play()
    except Exception as error:
        reports.put(repr(error))
        raise
    reports.put(seated.report())


def server_timing(header: str) -> dict[str, float]:
    """``Server-Timing``'s durations by name: ``app;dur=4.2, db;dur=1.3;desc="2 queries"``
    is ``{"app": 4.2, "db": 1.3}``."""
    found = {}
    for metric in header.split(","):
        name, *params = (part.strip() for part in metric.split(";"))
        for param in params:
            if param.startswith("dur="):
                found[name] = float(param[4:])
    return found


def print_slowest(reports: list[Report], began: float, count: int = 5) -> None:
    """The phase's slowest actions: how long (of it the server's application's, and of
    that its queries'), which of its table's moves, and when."""
    moves = [
        (ms, server, db, n, table, at - began)
        for table, (_, actions, servers, dbs, sent) in enumerate(reports)
        for n, (ms, server, db, at) in enumerate(zip(actions, servers, dbs, sent, strict=True), 1)
    ]
    slowest = sorted(moves, reverse=True)[:count]
    print("  slowest actions: " + ", ".join(
        f"{ms:.0f} ms ({server:.0f} in the app, {db:.0f} of it in queries;"
        f" table {table}'s move {n}, {at:.1f} s in)"
        for ms, server, db, n, table, at in slowest
    ), flush=True)  # fmt: skip


async def _get(
    reader: asyncio.StreamReader, writer: asyncio.StreamWriter, host: str, path: str
) -> tuple[int, bytes]:
    """Send a GET on a kept-alive connection and read the answer's head: its status and
    the head itself."""
    writer.write(f"GET {path} HTTP/1.1\r\nHost: {host}\r\n\r\n".encode())
    head = await reader.readuntil(b"\r\n\r\n")
    return int(head.split(b" ", 2)[1]), head


async def _body(reader: asyncio.StreamReader, head: bytes) -> bytes:
    """The body after ``head``: by Content-Length, else chunked."""
    for line in head.split(b"\r\n"):
        if line.lower().startswith(b"content-length:"):
            return await reader.readexactly(int(line.split(b":", 1)[1]))
    body = b""
    while size := int((await reader.readuntil(b"\r\n")).strip(), 16):
        body += await reader.readexactly(size + 2)
    await reader.readuntil(b"\r\n")
    return body


def crowd(waits: str, games: list[int], streams: int, polls: int, ready: Any, done: Any) -> None:
    """In a process of its own: ``streams`` spectator streams and ``polls`` long-polls,
    anonymous, spread over ``games``, until ``done``; ``ready`` once all are connected.

    Plain HTTP/1.1 over asyncio's streams, not httpx: this process shares the machine's
    cores with the servers it measures (people watching are on their own machines), so it
    spends as little of them as it can, and it runs in the idle scheduling class: it takes
    a core only when the servers leave it one, as a crowd on machines of its own would
    not take the servers' at all. (It answers every change all the same, a little later:
    each long-poll asks again once per change, as before.) A stream's lines are read and
    dropped; a long-poll reads the version it answers and asks again after it."""
    os.sched_setscheduler(0, os.SCHED_IDLE, os.sched_param(0))
    host, port = waits.removeprefix("http://").split(":")

    async def stream(game: int, opened: list[int]) -> None:
        reader, writer = await asyncio.open_connection(host, int(port))
        try:
            status, _ = await _get(reader, writer, host, f"/api/v1/games/{game}/stream/")
            if status == 200:  # connected once its first line (the game, read) has come
                await reader.readuntil(b"\r\n")  # the first chunk's size
            opened.append(status)
            while await reader.read(65536):
                pass
        finally:
            writer.close()

    async def poll(game: int, opened: list[int]) -> None:
        reader, writer = await asyncio.open_connection(host, int(port))
        version, first = 0, True
        try:
            while not done.is_set():
                path = f"/api/v1/games/{game}/wait/?after={version}&timeout=25"
                status, head = await _get(reader, writer, host, path)
                if first:
                    opened.append(status)
                    first = False
                body = orjson.loads(await _body(reader, head))
                version = body.get("version", version)
                if body.get("status") != "active":
                    await asyncio.sleep(25)
        finally:
            writer.close()

    async def main() -> None:
        opened: list[int] = []
        tasks = [asyncio.create_task(stream(games[i % len(games)], opened))
                 for i in range(streams)]  # fmt: skip
        tasks += [asyncio.create_task(poll(games[i % len(games)], opened))
                  for i in range(polls)]  # fmt: skip
        while len(opened) < streams + polls and not done.is_set():
            await asyncio.sleep(0.2)
        refused = [status for status in opened if status != 200]
        ready.put((len(opened), len(refused)))
        while not done.is_set():
            await asyncio.sleep(0.2)
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    asyncio.run(main())


def probe(url: str, stopped: threading.Event, seen: list[float]) -> None:
    with httpx.Client(timeout=10) as client:
        while not stopped.is_set():
            began = time.perf_counter()
            client.get(url).raise_for_status()
            seen.append((time.perf_counter() - began) * 1000)
            time.sleep(0.05)


def rss_kb(pid: int) -> int:
    with open(f"/proc/{pid}/status") as f:
        return next(int(line.split()[1]) for line in f if line.startswith("VmRSS:"))


# People start their tables this far apart (seconds), as people do, rather than within
# the same millisecond: eight first moves at one instant measure eight-way contention
# for two cores, the same with a crowd or without (measured: the first moves were a
# phase's slowest, 60-100 ms, in every phase alike), and hide what a crowd costs.
ARRIVALS = 0.25


class Played(NamedTuple):
    """What a phase measured: its games, the people's actions and /healthz (ms), the
    crowd's connections opened and refused, and the ASGI server's memory per connection
    (KB)."""

    games: list[int]
    actions: list[float]
    healthz: list[float]
    opened: int
    refused: int
    kb: float


def play_phase(
    web: str,
    waits: str,
    tokens: list[str],
    crowded: tuple[int, int],
    uvicorn: int,
    measured: Callable[[Callable[[], list[Report]]], list[Report]],
) -> Played:
    """A set of tables, each played by its person from a process of their own, with the
    probe on /healthz and, where ``crowded`` (streams, long-polls) asks for one, the crowd
    on the tables. Every phase goes the same way, so that phases differ only in what
    they are about: the tables are opened, the crowd (if any) connects, two seconds to
    settle, and the people start, ``ARRIVALS`` seconds apart; the play runs inside
    ``measured``."""
    context = multiprocessing.get_context("spawn")
    opened, go, reports = context.Queue(), context.Event(), context.Queue()
    people = [
        context.Process(target=person, args=(web, waits, token, n * ARRIVALS, opened, go, reports))
        for n, token in enumerate(tokens)
    ]
    for process in people:
        process.start()
    games = [opened.get(timeout=300) for _ in people]
    streams, polls = crowded
    before = rss_kb(uvicorn)
    ready, done = context.Queue(), context.Event()
    spectators = context.Process(target=crowd, args=(waits, games, streams, polls, ready, done))
    spectators.start()
    connected, refused = ready.get(timeout=300)
    time.sleep(2)  # settled
    kb = (rss_kb(uvicorn) - before) / max(connected, 1)
    stopped, healthz = threading.Event(), []  # type: ignore[var-annotated]
    prober = threading.Thread(target=probe, args=(f"{web}/healthz", stopped, healthz))
    prober.start()

    def play() -> list[Report]:
        began = time.monotonic()
        go.set()
        played = [reports.get(timeout=1800) for _ in people]
        failed = [report for report in played if isinstance(report, str)]
        if failed:
            raise RuntimeError(f"a person could not play: {failed[0]}")
        print_slowest(played, began)
        return played

    played = measured(play)
    stopped.set()
    prober.join()
    done.set()
    for process in [*people, spectators]:
        process.join(timeout=60)
    actions = [ms for report in played for ms in report[1]]
    return Played(games, actions, healthz, connected, refused, kb)
