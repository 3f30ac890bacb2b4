"""Shared fixtures: the service check, the named cast, API clients, a real Celery worker.

The suite runs against real PostgreSQL and Redis (``make test`` points DATABASE_URL and
REDIS_URL at the local servers) and stops at once, loudly, when either is unreachable.
Webhooks may reach loopback, where the suite's bots and receivers listen, and no DNS
query leaves the machine: host names resolve only as a test's ``hosts`` says.
"""

import fcntl
import functools
import gc
import ipaddress
import os
import socket
import subprocess
import sys
import tempfile
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

import psycopg
import pytest
import redis
from django.conf import settings
from django.db import connection
from django.db import connections as databases
from django.test.utils import setup_databases
from hypothesis import HealthCheck
from hypothesis import settings as hypothesis_settings
from pytest_django import DjangoDbBlocker, Settings
from rest_framework.test import APIClient

from accounts.models import User
from cya_site import outbound
from cya_site.celery import app as celery_app
from games import notify
from tests.bots.bot_servers import free_port
from tests.browser import browser, open_page  # noqa: F401 - fixtures for browser tests
from tests.clients import authenticate
from tests.factories import UserFactory
from tools.mutants import slot_ready_marker

# Hypothesis profiles, loaded here, before any test module is imported: a property test
# takes the profile in force when its module is imported (an engine test module imported
# by another package's tests first would run under hypothesis's defaults, a 200 ms
# deadline among them). ``ci`` (the default) keeps the property tests to about a minute on
# a 2-core machine; ``thorough`` runs many more examples:
#
#     HYPOTHESIS_PROFILE=thorough .venv/bin/pytest tests/engine
#
# Neither has a deadline: a whole random playout is one example, and its length varies
# (speed is measured in benchmarks/, never by a timed test). Each example is far slower
# than hypothesis expects of a data draw, and the autouse cache fixture below is
# irrelevant to the engine.
_SUPPRESSED = [HealthCheck.too_slow, HealthCheck.function_scoped_fixture]
hypothesis_settings.register_profile(
    "ci", max_examples=60, deadline=None, print_blob=True, suppress_health_check=_SUPPRESSED
)
hypothesis_settings.register_profile(
    "thorough",
    max_examples=1_000,
    deadline=None,
    print_blob=True,
    suppress_health_check=_SUPPRESSED,
)
# ``mutants``: under mutmut (below), where every mutant reruns the properties that reach it,
# few examples and always the same ones, so a mutant is killed or not on every run.
hypothesis_settings.register_profile(
    "mutants",
    max_examples=8,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=_SUPPRESSED,
)
_DEFAULT_PROFILE = "mutants" if "MUTANT_UNDER_TEST" in os.environ else "ci"
hypothesis_settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", _DEFAULT_PROFILE))

ROOT = Path(__file__).resolve().parent.parent
SERVICE_CHECK_FAILED = 3
# One queue per test session, so parallel sessions (or xdist workers) sharing a Redis
# never run each other's tasks against the wrong test database.
TEST_QUEUE = f"test-{uuid.uuid4().hex[:12]}"
TEST_BOT_MOVE_DELAY_MS = 100  # the session worker's BOT_MOVE_DELAY_MS
# The networks webhooks may reach in the suite: loopback only (tests/bots/bot_servers.py).
WEBHOOK_NETWORKS = ["127.0.0.0/8", "::1/128"]


def _service_problems() -> list[str]:
    problems = []
    database = settings.DATABASES["default"]
    if database["ENGINE"] != "django.db.backends.postgresql":
        problems.append(
            f"DATABASE_URL must point at PostgreSQL, but the database engine is "
            f"{database['ENGINE']!r}. `make test` defaults it to "
            "postgres://postgres@127.0.0.1:5432/cya."
        )
    else:
        try:
            psycopg.connect(
                host=database["HOST"] or None,
                port=database["PORT"] or None,
                user=database["USER"] or None,
                password=database["PASSWORD"] or None,
                dbname="postgres",
                connect_timeout=3,
            ).close()
        except psycopg.Error as error:
            problems.append(f"PostgreSQL at {database['HOST']}:{database['PORT']}: {error}")
    if not settings.REDIS_URL:
        problems.append(
            "REDIS_URL is not set. `make test` defaults it to redis://127.0.0.1:6379/0."
        )
    else:
        try:
            redis.Redis.from_url(settings.REDIS_URL, socket_connect_timeout=3).ping()
        except redis.RedisError as error:
            problems.append(f"Redis at {settings.REDIS_URL}: {error}")
    return problems


def pytest_sessionstart(session: pytest.Session) -> None:
    """Refuse to run without PostgreSQL and Redis: tests never fall back or skip."""
    if MUTATING:
        _clear_function_caches()
    problems = _service_problems()
    if problems:
        lines = "\n".join(f"  - {problem}" for problem in problems)
        pytest.exit(
            f"\n\nTEST SERVICES UNREACHABLE: the suite needs PostgreSQL and Redis.\n{lines}\n",
            returncode=SERVICE_CHECK_FAILED,
        )


# --- Under mutmut (`make mutants`, tools/mutants.py, docs/testing.md) -----------------------
# mutmut runs the tests of each mutant in a process forked from the one that first ran
# them all. That process set MUTANT_UNDER_TEST before any test ran.
MUTATING = "MUTANT_UNDER_TEST" in os.environ
_slot: tuple[int, int] | None = None  # (pid, slot) of this process, which holds its lock


def _clear_function_caches() -> None:
    """Empty every functools cache: a value cached before the fork was computed by the
    unmutated code (mutmut switches mutants in its trampolines, under any cache), and
    would hide the mutant from the tests."""
    for found in gc.get_objects():
        # type(), not isinstance(): isinstance would set up Django's lazy objects
        if type(found) is functools._lru_cache_wrapper:
            found.cache_clear()


def _mutant_slot(database: str) -> int:
    """A slot number no other live process of this database's mutation run holds: the
    forked processes of ``mutmut run --max-children N`` run side by side, each needs a test
    database of its own, and each keeps its slot's database for the next mutant."""
    global _slot
    if _slot is not None and _slot[0] == os.getpid():
        return _slot[1]
    for slot in range(8):
        lock = Path(tempfile.gettempdir()) / f"cya-mutants-{database}-{slot}.lock"
        descriptor = os.open(lock, os.O_WRONLY | os.O_CREAT)
        try:
            fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(descriptor)
            continue
        _slot = (os.getpid(), slot)  # the descriptor stays open, and locked, until the end
        return slot
    raise RuntimeError("more than 8 test processes under mutmut: lower --max-children")


# The names before any session: with --reuse-db, pytest-django leaves a session's test
# name in the settings, and mutmut runs several sessions in one process before it forks.
_DATABASE_NAMES = {alias: str(database["NAME"]) for alias, database in settings.DATABASES.items()}


@pytest.fixture(scope="session")
def django_db_modify_db_settings(django_db_modify_db_settings_parallel_suffix: None) -> None:
    """pytest-django's hook for the test database's name: under mutmut, one per slot."""
    if MUTATING:
        for alias, database in settings.DATABASES.items():
            name = database["NAME"] = _DATABASE_NAMES[alias]
            database.setdefault("TEST", {})["NAME"] = f"test_{name}_mutants{_mutant_slot(name)}"


if MUTATING:

    @pytest.fixture(scope="session")
    def django_db_setup(
        django_test_environment: None,
        django_db_blocker: DjangoDbBlocker,
        django_db_modify_db_settings: None,
    ) -> None:
        """Under mutmut, pytest-django's setup but migrated once per slot and run: the
        process that first holds a slot migrates its database, the next ones use it as
        it is (a migration check costs seconds, and there is one test session a mutant)."""
        default = settings.DATABASES["default"]
        ready = slot_ready_marker(default["TEST"]["NAME"])
        if ready.exists():
            for alias, database in settings.DATABASES.items():
                databases[alias].close()
                test_name = database["TEST"]["NAME"]
                database["NAME"] = databases[alias].settings_dict["NAME"] = test_name
        else:
            with django_db_blocker.unblock():
                setup_databases(verbosity=0, interactive=False, keepdb=True)
            ready.touch()


@pytest.hookimpl(tryfirst=True, hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Iterator[None]:
    """Keep each phase's report on the test item: browser fixtures screenshot failures."""
    outcome = yield
    report = outcome.get_result()  # type: ignore[attr-defined]  # pluggy's result object
    setattr(item, f"report_{report.when}", report)


def pytest_configure(config: pytest.Config) -> None:
    # Fast hashing: PBKDF2 with Django's default iterations costs ~0.3 s per user.
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    # Set before any task is sent, so Celery builds its queues with it.
    celery_app.conf.task_default_queue = TEST_QUEUE
    celery_app.conf.task_routes = {}  # every latency class too (tests/celery_app.py)
    # The live server of the browser tests is a WSGI server: let it serve the game page's
    # stream and waits, as production's never does (tests/games/test_waits.py)
    settings.WAITS_ON_WSGI = True
    # Here, and for the workers and servers tests start (they read the environment).
    settings.WEBHOOK_ALLOWED_NETWORKS = WEBHOOK_NETWORKS
    os.environ["WEBHOOK_ALLOWED_NETWORKS"] = ",".join(WEBHOOK_NETWORKS)


@pytest.fixture(autouse=True)
def _fresh_cache(settings: Settings) -> None:
    """Each test gets its own cache key space, so throttle counters never leak between tests."""
    settings.CACHES = {
        name: {**config, "KEY_PREFIX": f"test-{uuid.uuid4().hex}"}
        for name, config in settings.CACHES.items()
    }


@pytest.fixture(autouse=True)
def hosts(monkeypatch: pytest.MonkeyPatch) -> dict[str, list[str]]:
    """The suite's DNS, for webhook hosts (``cya_site.outbound.resolve``): a name resolves
    to the addresses a test puts here (``hosts["bot.example.test"] = ["10.0.0.7"]``), and
    to none otherwise; a literal address resolves to itself, as it does without DNS.
    Workers started by tests resolve for real, so they are only given literal addresses.
    """
    table: dict[str, list[str]] = {"localhost": ["127.0.0.1", "::1"]}

    def resolve(host: str, port: int) -> list[outbound.IPAddress]:
        try:
            found = socket.getaddrinfo(host, port, flags=socket.AI_NUMERICHOST)
        except socket.gaierror:
            return [ipaddress.ip_address(a) for a in table.get(host.lower().rstrip("."), [])]
        return list(dict.fromkeys(ipaddress.ip_address(info[4][0]) for info in found))

    monkeypatch.setattr(outbound, "resolve", resolve)
    return table


@pytest.fixture
def connections(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The address of every connection a socket made, in order. A connection anywhere but
    loopback is refused before it leaves (and still recorded, to fail the test), and
    ``getaddrinfo`` reads only literal addresses: a name fails instead of asking DNS."""
    made: list[str] = []
    connect = socket.socket.connect
    lookup = socket.getaddrinfo

    def numeric_only(
        host: Any, port: Any, family: int = 0, type: int = 0, proto: int = 0, flags: int = 0
    ) -> Any:
        return lookup(host, port, family, type, proto, flags | socket.AI_NUMERICHOST)

    def guarded(sock: socket.socket, address: Any) -> None:
        host = str(address[0])
        made.append(host)
        if not ipaddress.ip_address(host).is_loopback:
            raise OSError(f"the test guard refused a connection to {host}")
        connect(sock, address)

    monkeypatch.setattr(socket.socket, "connect", guarded)
    monkeypatch.setattr(socket, "getaddrinfo", numeric_only)
    return made


# --- The cast ----------------------------------------------------------------------------


@pytest.fixture
def alice(db: None) -> User:
    """A player: the usual owner of whatever a test is about."""
    return UserFactory.create(username="alice")


@pytest.fixture
def bob(db: None) -> User:
    """Another player, who must not see or change alice's things."""
    return UserFactory.create(username="bob")


@pytest.fixture
def carol(db: None) -> User:
    """A third player, for tables and games of three or more."""
    return UserFactory.create(username="carol")


@pytest.fixture
def staff(db: None) -> User:
    """An admin: staff and superuser, with the Django admin open to them."""
    return UserFactory.create(username="staff", is_staff=True, is_superuser=True)


# --- API clients -------------------------------------------------------------------------


@pytest.fixture
def api() -> APIClient:
    """An anonymous API client."""
    return APIClient()


@pytest.fixture
def api_as(db: None) -> Callable[[User], APIClient]:
    """Build an API client authenticated as a user with a fresh token."""

    def build(user: User) -> APIClient:
        client = APIClient()
        authenticate(client, user)
        return client

    return build


# --- A real Celery worker ----------------------------------------------------------------


def _test_database_url() -> str:
    db = connection.settings_dict
    credentials = quote(db["USER"] or "", safe="")
    if db["PASSWORD"]:
        credentials += ":" + quote(db["PASSWORD"], safe="")
    host = f"{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}"
    return f"postgres://{credentials}@{host}/{db['NAME']}"


RUNNING_WORKERS: list[str] = []  # the session worker's node name, while it runs


@pytest.fixture
def worker_paused() -> Iterator[None]:
    """The session's worker, if one runs, takes none of the tasks this test sends, and
    they are dropped after it: a test of what the sweeps would resend must not race a
    worker doing that very work (validating the versions it creates, holding the leases
    it checks). Celery's own remote control: the worker stops consuming the queue."""
    if RUNNING_WORKERS:
        celery_app.control.cancel_consumer(
            TEST_QUEUE, destination=RUNNING_WORKERS, reply=True, timeout=10
        )
    try:
        yield
    finally:
        redis.Redis.from_url(settings.REDIS_URL).delete(TEST_QUEUE)
        if RUNNING_WORKERS:
            celery_app.control.add_consumer(
                TEST_QUEUE, destination=RUNNING_WORKERS, reply=True, timeout=10
            )


@pytest.fixture(scope="session")
def celery_worker(django_db_setup: None, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A real Celery worker process on Redis, consuming this session's queue.

    It connects to the test database, so tasks see rows that a ``transactional_db`` test
    committed. Yields the worker's node name (the hostname its results report).
    """
    from cya_site.tasks import ping

    node = f"{TEST_QUEUE}@localhost"
    env = {
        **os.environ,
        "DATABASE_URL": _test_database_url(),
        "REDIS_URL": settings.REDIS_URL,
        "CYA_TEST_QUEUE": TEST_QUEUE,  # tasks the worker's tasks send stay on this queue
        # bots at people's tables still move one at a time, but quickly enough for tests
        "BOT_MOVE_DELAY_MS": str(TEST_BOT_MOVE_DELAY_MS),
        # a match sent to it plays to its end in one task (slices: test_match_slices.py)
        "MATCH_SLICE_SECONDS": "3600",
    }
    command = [
        sys.executable,
        "-m",
        "celery",
        "--app",
        "tests.celery_app",
        "worker",
        "--queues",
        TEST_QUEUE,
        "--hostname",
        node,
        "--concurrency",
        "2",
        "--without-gossip",
        "--without-mingle",
        "--without-heartbeat",
        "--loglevel",
        "WARNING",
    ]
    log = (tmp_path_factory.mktemp("celery") / "worker.log").open("w+")
    worker = subprocess.Popen(command, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
    try:
        try:
            ping.delay().get(timeout=60)
        except Exception as error:
            log.seek(0)
            pytest.fail(f"The Celery worker did not answer a ping ({error!r}):\n{log.read()}")
        RUNNING_WORKERS.append(node)
        yield node
    finally:
        RUNNING_WORKERS.clear()
        worker.terminate()
        try:
            worker.wait(timeout=20)
        except subprocess.TimeoutExpired:
            worker.kill()
            worker.wait()
        redis.Redis.from_url(settings.REDIS_URL).delete(TEST_QUEUE)
        log.close()


# --- Outages ------------------------------------------------------------------------------


@pytest.fixture
def redis_away(settings: Settings) -> Iterator[str]:
    """Redis out of reach for the cache (the throttle's counters) and the announcements."""
    url = f"redis://127.0.0.1:{free_port()}/0"
    settings.CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": url,
            "OPTIONS": {"socket_connect_timeout": 1, "socket_timeout": 1},
        }
    }
    settings.REDIS_URL = url
    notify._client.cache_clear()
    yield url
    notify._client.cache_clear()
