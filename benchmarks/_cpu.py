"""CPU spent per request by each process of benchmarks/api.py's run, read from ``/proc``.

On a shared machine a neighbour's load moves requests per second by more than a change
of the request path does; the CPU each process spends per request moves much less, and
says where a request's cost goes. The processes: gunicorn (the master and its workers),
uvicorn, the clients (this script's children, counted as they are reaped: a phase's
clients are joined before it ends), the PostgreSQL backends serving the benchmark's
database, and the Redis server (shared with the machine's other users: its figure is an
upper bound).
"""

from __future__ import annotations

import os
from pathlib import Path

import psycopg
import redis

TICK = os.sysconf("SC_CLK_TCK")
GROUPS = ("gunicorn", "clients", "postgres", "uvicorn", "redis")


def _stat(pid: int) -> tuple[int, float] | None:
    """A process's parent and its CPU seconds so far (user + system); None once it is gone."""
    try:
        rest = (Path("/proc") / str(pid) / "stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None
    return int(rest[1]), (int(rest[11]) + int(rest[12])) / TICK


def _children(parent: int) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            stat = _stat(int(entry.name))
            if stat is not None and stat[0] == parent:
                found.append(int(entry.name))
    return found


class Meter:
    """Reads each group's CPU seconds so far (``read``); ``per_request`` turns pairs of
    readings into ms per request."""

    def __init__(self, admin_url: str, database: str, redis_url: str, servers: dict[str, int]):
        self.admin_url, self.database, self.servers = admin_url, database, servers
        self.redis_pid = int(redis.Redis.from_url(redis_url).info("server")["process_id"])

    def _backends(self) -> list[int]:
        with psycopg.connect(self.admin_url, autocommit=True) as conn:
            found = conn.execute(
                "SELECT pid FROM pg_stat_activity WHERE datname = %s", [self.database]
            ).fetchall()
        return [pid for (pid,) in found]

    def read(self) -> dict[str, dict[int, float]]:
        """Each group's processes and their CPU seconds so far (the clients as one, -1)."""
        times = os.times()
        pids = {
            "gunicorn": [self.servers["gunicorn"], *_children(self.servers["gunicorn"])],
            "uvicorn": [self.servers["uvicorn"]],
            "postgres": self._backends(),
            "redis": [self.redis_pid],
        }
        reading: dict[str, dict[int, float]] = {"clients": {-1: times[2] + times[3]}}
        for group, members in pids.items():
            stats = {pid: _stat(pid) for pid in members}
            reading[group] = {pid: stat[1] for pid, stat in stats.items() if stat is not None}
        return reading

    @staticmethod
    def per_request(
        spans: list[tuple[dict[str, dict[int, float]], dict[str, dict[int, float]]]],
        requests: int,
    ) -> dict[str, float]:
        """ms of CPU per request of each group over ``spans`` (pairs of readings, before
        and after; a process that appeared between two counts from zero), and their
        ``total``."""
        spent = {
            group: sum(
                cpu - before[group].get(pid, 0.0)
                for before, after in spans
                for pid, cpu in after[group].items()
            )
            for group in GROUPS
        }
        out = {group: 1000 * spent[group] / requests for group in GROUPS}
        out["total"] = sum(out.values())
        return out


def line(label: str, ms: dict[str, float]) -> str:
    """One phase's figures, to print."""
    parts = " ".join(f"{group} {ms[group]:.2f}" for group in GROUPS)
    return f"CPU per request, {label} (ms): {parts}, total {ms['total']:.2f}"
