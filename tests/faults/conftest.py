"""Fixtures of the fault tests: a Redis and a PostgreSQL of each test's own."""

from collections.abc import Iterator

import pytest

from tests.faults.servers import PostgresCluster, RedisServer, running_postgres, running_redis


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
