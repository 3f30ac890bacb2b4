"""The whole platform on servers of the test's own, to break while it works.

A PostgreSQL cluster and a Redis of the module's own (tests.faults.servers), and on them the
deployment's processes, each started as in production: gunicorn serving the site, a
Celery worker, Celery beat. Each test gets a fresh database (a copy of one migrated once,
``CREATE DATABASE ... TEMPLATE``) and an emptied Redis; it seeds what it needs
(tests.faults.seed), starts the processes, breaks something, and then reads the rows
straight from PostgreSQL to check that everything ended exactly once::

    platform.seed("ladder", *bots)
    platform.start("worker"), platform.start("beat")
    platform.postgres.restart(gap=1.0)
    platform.quiesce()                        # the ladder stopped, every match ended
    assert_ladder_ended_once(platform)

The timings are the production ones shrunk: the ladder tops up every second, the sweep
runs every second and resends work idle for 4 s, Redis redelivers after 10 s.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import psycopg
import redis

from bots import leases
from tests.bots.bot_servers import BotServer, free_port
from tests.conftest import ROOT
from tests.faults.servers import PostgresCluster, RedisServer, wait_until

TEMPLATE = "platform_template"
SETTLE_TIMEOUT = 180.0  # seconds for the platform to finish what it has after a fault


@dataclass
class Platform:
    """The processes of one test, on the module's PostgreSQL and Redis."""

    postgres: PostgresCluster
    redis: RedisServer
    database: str
    directory: Path
    var_dir: Path  # shared by the module's platforms: the collected static files
    web_port: int = field(default_factory=free_port)
    processes: dict[str, subprocess.Popen[bytes]] = field(default_factory=dict)
    overrides: dict[str, str] = field(default_factory=dict)  # a test's own settings

    @property
    def database_url(self) -> str:
        return self.postgres.url(self.database)

    @property
    def env(self) -> dict[str, str]:
        """The environment every process of the platform runs with."""
        return {
            **os.environ,
            "DATABASE_URL": self.database_url,
            "REDIS_URL": self.redis.url,
            "DEBUG": "false",
            "VAR_DIR": str(self.var_dir),
            "SECRET_KEY": "fault-tests-only",
            "LOG_LEVEL": "INFO",
            "DB_CONN_MAX_AGE": "60",
            "LADDER_TABLES": "2",
            "LADDER_SEATS": "3",
            "LADDER_EVERY_SECONDS": "1",
            "LADDER_DECISION_MS": "2000",
            "LADDER_TIME_BANK_MS": "5000",
            "SWEEP_EVERY_SECONDS": "1",
            "SWEEP_AFTER_SECONDS": "4",
            "BROKER_VISIBILITY_TIMEOUT": "10",
            "WEBHOOK_ALLOWED_NETWORKS": "127.0.0.0/8",  # the test's bot servers
            **self.overrides,
        }

    # --- processes ---------------------------------------------------------------------

    def command(self, name: str) -> list[str]:
        python = [sys.executable, "-m"]
        if name.startswith("worker"):
            node = f"{name}-{uuid.uuid4().hex[:6]}@localhost"
            # one worker for every latency class (cya_site.queues), as a small deployment
            return [*python, "celery", "--app", "cya_site", "worker", "--hostname", node,
                    "--queues", "interactive,batch,outbound",
                    "--concurrency", "2", "--loglevel", "INFO"]  # fmt: skip
        if name == "beat":
            schedule = str(self.directory / "beat-schedule")
            return [*python, "celery", "--app", "cya_site", "beat", "--schedule", schedule,
                    "--loglevel", "INFO"]  # fmt: skip
        if name == "web":
            return [*python, "gunicorn", "cya_site.wsgi", "--bind", f"127.0.0.1:{self.web_port}",
                    "--workers", "2", "--threads", "4", "--timeout", "60"]  # fmt: skip
        raise ValueError(name)

    def start(self, name: str) -> None:
        """Start a process (``worker``, ``worker2``..., ``beat`` or ``web``) in a process
        group of its own, logging to the test's folder; ``web`` waits until it answers."""
        assert not self.alive(name), f"{name} is running"
        with (self.directory / f"{name}.log").open("a") as log:
            self.processes[name] = subprocess.Popen(
                self.command(name),
                cwd=ROOT,
                env=self.env,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        if name == "web":
            wait_until(self._web_answers, 60, "gunicorn")

    def kill(self, name: str) -> None:
        """SIGKILL a process and everything it started (a worker's pool): a crash."""
        process = self.processes[name]
        with suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
        process.wait()

    def stop(self, name: str) -> None:
        """SIGTERM (a worker finishes its tasks), then SIGKILL what is left after 30 s."""
        process = self.processes[name]
        if process.poll() is None:
            process.terminate()
            with suppress(subprocess.TimeoutExpired):
                process.wait(timeout=30)
        self.kill(name)

    def alive(self, name: str) -> bool:
        process = self.processes.get(name)
        return process is not None and process.poll() is None

    def log(self, name: str) -> str:
        path = self.directory / f"{name}.log"
        return path.read_text() if path.exists() else ""

    def _web_answers(self) -> bool:
        try:
            return httpx.get(self.url("/api/v1/ladder/"), timeout=5).status_code == 200
        except httpx.HTTPError:
            return False

    # --- data --------------------------------------------------------------------------

    def seed(self, kind: str, *args: str | BotServer) -> dict[str, Any]:
        """Seed the database (tests.faults.seed) with ``kind``; what it made, as JSON.
        A bot server among ``args`` is passed as its URL and secret."""
        values = [
            value
            for arg in args
            for value in ((arg.url, arg.secret) if isinstance(arg, BotServer) else (arg,))
        ]
        done = subprocess.run(
            [sys.executable, "-m", "tests.faults.seed", kind, *values],
            cwd=ROOT,
            env=self.env,
            capture_output=True,
            text=True,
            check=False,
            timeout=120,
        )
        assert done.returncode == 0, done.stdout + done.stderr
        made: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
        return made

    def manage(self, *args: str) -> subprocess.CompletedProcess[str]:
        """``manage.py`` with the platform's environment (its output, not checked)."""
        return subprocess.run(
            [sys.executable, "manage.py", *args],
            cwd=ROOT,
            env=self.env,
            capture_output=True,
            text=True,
            check=False,
            timeout=300,
        )

    def rows(self, query: str, *params: Any) -> list[tuple[Any, ...]]:
        """The rows of ``query``, read on a connection of its own."""
        with psycopg.connect(self.database_url, autocommit=True) as connection:
            return connection.execute(query, params).fetchall()

    def execute(self, statement: str, *params: Any) -> None:
        """Run a statement that returns no rows, on a connection of its own."""
        with psycopg.connect(self.database_url, autocommit=True) as connection:
            connection.execute(statement, params)

    def value(self, query: str, *params: Any) -> Any:
        return self.rows(query, *params)[0][0]

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.web_port}{path}"

    # --- waiting -----------------------------------------------------------------------

    def wait_for(self, query: str, at_least: int, what: str, timeout: float = 60) -> None:
        """Wait until ``query`` (one count) reaches ``at_least``; the logs if it never does."""
        try:
            wait_until(lambda: self.value(query) >= at_least, timeout, what)
        except AssertionError as error:
            raise AssertionError(f"{error}\n{self.logs()}") from None

    def quiesce(self) -> None:
        """Stop the ladder (every bot switched off) and wait until every match has ended.

        A scheduling run that read the bots before they were switched off may still be
        writing its matches: waiting for the ladder's scheduling lock (bots.ladder, taken
        before it reads them) lets it commit first, so its matches are seen and waited
        for, and every later run finds no bot to seat. (Without it, a run committing
        just after the wait made two scheduled matches show up among the checks.)"""
        self.execute("UPDATE bots_bot SET is_active = false")
        self.execute("SELECT pg_advisory_xact_lock(%s::int4, 0)", leases.LEASE_LADDER)
        busy = "SELECT count(*) FROM bots_match WHERE status IN ('scheduled', 'running')"
        try:
            wait_until(lambda: self.value(busy) == 0, SETTLE_TIMEOUT, "every match ended")
        except AssertionError as error:
            raise AssertionError(f"{error}\n{self.logs()}") from None

    def logs(self) -> str:
        """The end of every process's log, for a failing test's report."""
        return "\n".join(
            f"--- {name} ---\n{self.log(name)[-4000:]}" for name in sorted(self.processes)
        )

    def ping(self) -> str:
        """Send ``cya_site.ping`` through the platform's broker: "pong" from a worker."""
        from celery import Celery

        client = Celery("faults", broker=self.redis.url, backend=self.redis.url)
        try:
            # on the queue the settings route it to (cya_site.queues)
            sent = client.send_task("cya_site.ping", queue="interactive")
            return str(sent.get(timeout=60))
        finally:
            client.close()

    def close(self) -> None:
        for name in list(self.processes):
            self.stop(name)


@contextmanager
def platform_on(
    postgres: PostgresCluster, redis_server: RedisServer, var_dir: Path, directory: Path
) -> Iterator[Platform]:
    """A fresh database (from the migrated template) and an empty Redis for one test."""
    database = f"platform_{uuid.uuid4().hex[:8]}"
    with psycopg.connect(postgres.url(), autocommit=True) as connection:
        connection.execute(f'CREATE DATABASE "{database}" TEMPLATE "{TEMPLATE}"')
    with redis.Redis.from_url(redis_server.url) as client:
        client.flushall()
    platform = Platform(postgres, redis_server, database, directory, var_dir)
    try:
        yield platform
    finally:
        platform.close()


def prepare(postgres: PostgresCluster, var_dir: Path) -> None:
    """What a release does once: migrate (the template every test's database is copied
    from) and collect the static files (served by whitenoise with DEBUG off)."""
    postgres.create_database(TEMPLATE)
    env = {
        **os.environ,
        "DATABASE_URL": postgres.url(TEMPLATE),
        "REDIS_URL": "",
        "VAR_DIR": str(var_dir),
        "DEBUG": "false",  # the manifest of hashed names, as production collects
        "SECRET_KEY": "fault-tests-only",
    }
    for command in (["migrate", "--noinput"], ["collectstatic", "--noinput"]):
        done = subprocess.run(
            [sys.executable, "manage.py", *command],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            check=False,
            timeout=300,
        )
        assert done.returncode == 0, done.stdout + done.stderr


class Traffic:
    """Requests sent over and over in a thread while a fault happens: their statuses."""

    def __init__(self, platform: Platform, paths: list[str]) -> None:
        self.platform = platform
        self.paths = paths
        self.statuses: list[tuple[str, int]] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        with httpx.Client(timeout=30) as client:
            while not self._stop.is_set():
                for path in self.paths:
                    try:
                        status = client.get(self.platform.url(path)).status_code
                    except httpx.HTTPError:
                        status = 0  # no answer at all (counted apart from 500s)
                    self.statuses.append((path, status))
                time.sleep(0.05)

    def __enter__(self) -> Traffic:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join(timeout=60)

    def server_errors(self) -> list[tuple[str, int]]:
        """Answers that were neither a success nor a clean 503."""
        return [(path, status) for path, status in self.statuses if status not in (200, 503)]
