"""Servers of a test's own, to stop, kill and restart: Redis and PostgreSQL.

Fault tests must never touch the machine's own servers (PostgreSQL on 5432, Redis on
6379), which the rest of the suite and other sessions share. Each server here is a
fresh process on a free port of 127.0.0.1, with its files in a temporary folder that
is removed afterwards, and it comes back on the same port when restarted, so clients
keep their URL::

    with running_redis() as redis_:             # or the ``redis_server`` fixture
        worker = start_something(redis_.url)
        redis_.restart(gap=1.5)                 # stopped, 1.5 s of nothing, started
        ...

    with running_postgres() as postgres:        # or the ``postgres_cluster`` fixture
        postgres.create_database("cya")
        postgres.restart()                       # pg_ctl restart -m fast
        postgres.restart(gap=1.0)                # pg_ctl stop -m fast, sleep, start

Both favour speed over durability. Redis runs without snapshots or an append-only file,
so a plain restart empties it (``restart(save=True)`` saves first, as a Redis that
persists would). PostgreSQL runs with fsync, synchronous_commit and full_page_writes
off, which loses nothing on a clean stop or a crash of the server, only on a crash of the
machine; each cluster is a copy of one that initdb made once per test process.

PostgreSQL refuses to run as root, and the suite runs as root here and on CI: then
every cluster command runs as the ``postgres`` OS user (``runuser``), in a folder
directly under the system temporary folder that is given to that user.
"""

from __future__ import annotations

import atexit
import functools
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import psycopg
import redis
from psycopg import sql

from tests.bots.bot_servers import free_port

HOST = "127.0.0.1"
REDIS_SERVER = Path("/usr/bin/redis-server")
POSTGRES_USER = "postgres"  # the OS user that runs clusters when the tests run as root
START_TIMEOUT = 30.0


def wait_until(ready: Callable[[], bool], timeout: float, what: str) -> None:
    """Poll ``ready`` every 50 ms until it holds; AssertionError naming ``what`` if not."""
    give_up = time.monotonic() + timeout
    while not ready():
        if time.monotonic() > give_up:
            raise AssertionError(f"{what}: not within {timeout} s")
        time.sleep(0.05)


def accepts_connections(port: int, host: str = HOST) -> bool:
    """Whether something accepts a TCP connection on ``host:port`` now."""
    try:
        socket.create_connection((host, port), timeout=0.5).close()
    except OSError:
        return False
    return True


def redis_answers(url: str) -> bool:
    """Whether the Redis at ``url`` answers PING now (not still loading its data)."""
    client = redis.Redis.from_url(url, socket_connect_timeout=0.5, socket_timeout=0.5)
    try:
        return bool(client.ping())
    except redis.RedisError:
        return False
    finally:
        client.close()


def postgres_answers(url: str) -> bool:
    """Whether the PostgreSQL at ``url`` runs a query now (not starting or shutting down)."""
    try:
        with psycopg.connect(url, connect_timeout=1) as connection:
            connection.execute("SELECT 1")
    except psycopg.Error:
        return False
    return True


# --- Redis ---------------------------------------------------------------------------------


@dataclass
class RedisServer:
    """A ``redis-server`` process of the test's own, on a fixed port of 127.0.0.1."""

    port: int
    directory: Path
    process: subprocess.Popen[bytes] | None = None
    starts: int = 0

    @property
    def url(self) -> str:
        """Its URL, database 0; the same across restarts."""
        return f"redis://{HOST}:{self.port}/0"

    @property
    def log_path(self) -> Path:
        """Where the server logs, every start appending."""
        return self.directory / "redis.log"

    def start(self) -> None:
        """Start the server and wait until it answers PING."""
        assert self.process is None, "the Redis server is already running"
        command = [
            str(REDIS_SERVER),
            "--port", str(self.port),
            "--bind", HOST,
            "--dir", str(self.directory),
            "--logfile", str(self.log_path),
            "--save", "",
            "--appendonly", "no",
            "--daemonize", "no",
        ]  # fmt: skip
        self.process = subprocess.Popen(command, stdin=subprocess.DEVNULL)
        self.starts += 1
        wait_until(lambda: self._alive() and redis_answers(self.url), START_TIMEOUT, self.what)

    def stop(self, *, kill: bool = False, save: bool = False) -> None:
        """Stop the server: cleanly (SIGTERM), or as if it crashed (``kill``: SIGKILL).

        ``save`` writes the data to disk first, so the next start loads it, as a Redis
        with persistence would after a restart. Returns once the port is free.
        """
        assert self.process is not None, "the Redis server is not running"
        if save:
            with redis.Redis.from_url(self.url) as client:
                client.save()
        self.process.send_signal(signal.SIGKILL if kill else signal.SIGTERM)
        self.process.wait(timeout=START_TIMEOUT)
        self.process = None
        wait_until(lambda: not accepts_connections(self.port), START_TIMEOUT, f"{self.what} down")

    def restart(self, *, gap: float = 0.0, kill: bool = False, save: bool = False) -> None:
        """Stop, wait ``gap`` seconds with nothing listening, start on the same port."""
        self.stop(kill=kill, save=save)
        time.sleep(gap)
        self.start()

    @property
    def what(self) -> str:
        return f"redis-server on port {self.port}"

    def _alive(self) -> bool:
        """True while the process runs; AssertionError with its log once it exited."""
        if self.process is not None and self.process.poll() is not None:
            raise AssertionError(f"{self.what} exited:\n{self.log_path.read_text()}")
        return True


@contextmanager
def running_redis() -> Iterator[RedisServer]:
    """A running Redis of the block's own; stopped and its folder removed afterwards."""
    server = RedisServer(port=free_port(), directory=Path(tempfile.mkdtemp(prefix="cya-redis-")))
    try:
        server.start()
        yield server
    finally:
        try:
            if server.process is not None:
                server.stop(kill=True)
        finally:
            shutil.rmtree(server.directory, ignore_errors=True)


# --- PostgreSQL ----------------------------------------------------------------------------


def postgres_binary(name: str) -> str:
    """The path of a PostgreSQL server program (initdb, pg_ctl): on PATH (as
    /usr/local/bin has them here), else the newest /usr/lib/postgresql/*/bin."""
    found = shutil.which(name)
    if found:
        return found
    versions = sorted(
        Path("/usr/lib/postgresql").glob(f"*/bin/{name}"),
        key=lambda path: int(path.parent.parent.name) if path.parent.parent.name.isdigit() else 0,
    )
    if not versions:
        raise AssertionError(f"PostgreSQL's {name} is neither on PATH nor in /usr/lib/postgresql")
    return str(versions[-1])


def as_cluster_owner(command: list[str]) -> list[str]:
    """``command`` as the user that owns clusters: the ``postgres`` OS user when running
    as root (initdb and postgres refuse root), else the current user."""
    if os.geteuid() == 0:
        return ["runuser", "-u", POSTGRES_USER, "--", *command]
    return command


# Every cluster's settings besides its port and socket folder: fast, loopback only.
FAST_SETTINGS = {
    "fsync": "off",
    "synchronous_commit": "off",
    "full_page_writes": "off",
    "listen_addresses": f"'{HOST}'",
    "max_connections": "50",
    "shared_buffers": "32MB",
}


@dataclass
class PostgresCluster:
    """A PostgreSQL cluster of the test's own, on a fixed port of 127.0.0.1.

    Superuser ``postgres`` with trust authentication; ``url(dbname)`` gives a
    dj-database-url/psycopg URL.
    """

    port: int
    directory: Path
    pg_ctl: str = field(default_factory=lambda: postgres_binary("pg_ctl"))

    @property
    def data_directory(self) -> Path:
        return self.directory / "data"

    @property
    def log_path(self) -> Path:
        """The server's log, every start appending."""
        return self.directory / "postgres.log"

    def url(self, dbname: str = "postgres") -> str:
        """The URL of database ``dbname`` as the superuser; the same across restarts."""
        return f"postgres://postgres@{HOST}:{self.port}/{dbname}"

    def initdb(self) -> None:
        """Create the cluster's files (once, before the first start): a copy of a cluster
        initdb made once per test process (initdb alone takes seconds)."""
        give_to_cluster_owner(self.directory)
        self._run(["cp", "-a", str(template_data_directory()), str(self.data_directory)])
        settings = [f"port = {self.port}", f"unix_socket_directories = '{self.directory}'"]
        with (self.data_directory / "postgresql.conf").open("a") as config:
            config.write("\n".join(settings) + "\n")

    def start(self) -> None:
        """Start the server and wait until it runs queries."""
        self._ctl("start", "--wait", "--log", str(self.log_path))
        wait_until(lambda: postgres_answers(self.url()), START_TIMEOUT, self.what)

    def stop(self, mode: str = "fast") -> None:
        """Stop the server (``pg_ctl stop -m``: ``smart``, ``fast`` or ``immediate``,
        the last as if it crashed, recovering at the next start)."""
        self._ctl("stop", "--wait", "--mode", mode)
        wait_until(lambda: not accepts_connections(self.port), START_TIMEOUT, f"{self.what} down")

    def restart(self, *, gap: float | None = None, mode: str = "fast") -> None:
        """``pg_ctl restart -m fast``; with ``gap``, stop, wait that long, start."""
        if gap is None:
            self._ctl("restart", "--wait", "--mode", mode, "--log", str(self.log_path))
        else:
            self.stop(mode)
            time.sleep(gap)
            self._ctl("start", "--wait", "--log", str(self.log_path))
        wait_until(lambda: postgres_answers(self.url()), START_TIMEOUT, self.what)

    def create_database(self, name: str) -> str:
        """Create an empty database; return its URL."""
        with psycopg.connect(self.url(), autocommit=True) as connection:
            connection.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
        return self.url(name)

    def running(self) -> bool:
        """Whether ``pg_ctl status`` finds the server running."""
        status = subprocess.run(
            as_cluster_owner([self.pg_ctl, "status", "--pgdata", str(self.data_directory)]),
            capture_output=True,
            check=False,
        )
        return status.returncode == 0

    @property
    def what(self) -> str:
        return f"PostgreSQL on port {self.port}"

    def _ctl(self, action: str, *options: str) -> None:
        self._run([self.pg_ctl, action, "--pgdata", str(self.data_directory), *options])

    def _run(self, command: list[str]) -> None:
        log = self.log_path.read_text() if self.log_path.exists() else "(no server log)"
        run_as_cluster_owner(command, f"--- server log ---\n{log}")


def run_as_cluster_owner(command: list[str], context: str = "") -> None:
    """Run a cluster command as the cluster owner; AssertionError with its output (and
    ``context``) if it fails."""
    done = subprocess.run(
        as_cluster_owner(command), capture_output=True, text=True, check=False, timeout=120
    )
    if done.returncode != 0:
        raise AssertionError(
            f"{' '.join(command)} failed ({done.returncode}):\n{done.stdout}{done.stderr}\n"
            f"{context}"
        )


def give_to_cluster_owner(directory: Path) -> None:
    """Make ``directory`` the cluster owner's (when running as root)."""
    if os.geteuid() == 0:
        shutil.chown(directory, user=POSTGRES_USER, group=POSTGRES_USER)


@functools.cache
def template_data_directory() -> Path:
    """The data folder of a fresh cluster with FAST_SETTINGS, made by initdb once per
    test process and removed at its exit; clusters start as copies of it."""
    directory = Path(tempfile.mkdtemp(prefix="cya-postgres-template-"))
    atexit.register(shutil.rmtree, directory, ignore_errors=True)
    give_to_cluster_owner(directory)
    data = directory / "data"
    run_as_cluster_owner([
        postgres_binary("initdb"),
        "--pgdata", str(data),
        "--username", "postgres",
        "--auth", "trust",
        "--encoding", "UTF8",
        "--locale", "C",
        "--no-sync",
    ])  # fmt: skip
    with (data / "postgresql.conf").open("a") as config:
        config.write("".join(f"{name} = {value}\n" for name, value in FAST_SETTINGS.items()))
    return data


@contextmanager
def running_postgres() -> Iterator[PostgresCluster]:
    """A running PostgreSQL cluster of the block's own; stopped and removed afterwards.

    Its folder sits directly in the system temporary folder: pytest's own temporary
    folders are private to root, where the ``postgres`` user could not reach them.
    """
    cluster = PostgresCluster(
        port=free_port(), directory=Path(tempfile.mkdtemp(prefix="cya-postgres-"))
    )
    try:
        cluster.initdb()
        cluster.start()
        yield cluster
    finally:
        try:
            if cluster.running():
                cluster.stop("immediate")
        finally:
            shutil.rmtree(cluster.directory, ignore_errors=True)
