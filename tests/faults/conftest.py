"""Fixtures of the fault tests: a Redis and a PostgreSQL of each test's own, and a
module's own pair with the migrated template database the platform copies."""

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.faults.platform import prepare
from tests.faults.servers import PostgresCluster, RedisServer, running_postgres, running_redis

Servers = tuple[PostgresCluster, RedisServer, Path]


@pytest.fixture(scope="module")
def platform_servers(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Servers]:
    """The module's PostgreSQL (with the migrated template database), Redis, and the
    folder of the collected static files (tests.faults.platform)."""
    var_dir = tmp_path_factory.mktemp("var")
    with running_postgres() as postgres, running_redis() as redis_server:
        prepare(postgres, var_dir)
        yield postgres, redis_server, var_dir


@pytest.fixture
def redis_server() -> Iterator[RedisServer]:
    """A fresh redis-server on a free port, to stop and restart at will."""
    with running_redis() as server:
        yield server


@pytest.fixture
def postgres_cluster() -> Iterator[PostgresCluster]:
    """A fresh PostgreSQL cluster on a free port, to stop and restart at will."""
    with running_postgres() as cluster:
        yield cluster
