"""/readyz across real outages: a Redis and a PostgreSQL of the test's own, stopped and
started again under it, flip readiness to 503 naming them and back to 200."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from django.db import connections
from django.test import Client
from pytest_django import Settings

from cya_site import health
from tests.faults.servers import PostgresCluster, RedisServer, wait_until
from tests.faults.workers import Worker, running_worker

pytestmark = pytest.mark.faults

BACK_WITHIN = 60.0  # seconds for a worker to reconnect to a restarted Redis


def readyz() -> tuple[int, dict[str, Any]]:
    response = Client().get("/readyz")
    return response.status_code, response.json()


@pytest.fixture
def worker(transactional_db: None, redis_server: RedisServer, tmp_path: Path) -> Iterator[Worker]:
    with running_worker(redis_server.url, tmp_path / "worker.log") as worker:
        yield worker


@pytest.fixture
def database_on(postgres_cluster: PostgresCluster) -> Iterator[PostgresCluster]:
    """The default database is the cluster's (for every new connection, as readiness's
    own): put back afterwards."""
    settings_dict = connections.settings["default"]
    saved = {key: settings_dict[key] for key in ("HOST", "PORT", "NAME", "USER", "PASSWORD")}
    settings_dict.update(
        HOST="127.0.0.1", PORT=str(postgres_cluster.port), NAME="postgres", USER="postgres",
        PASSWORD="",
    )  # fmt: skip
    try:
        yield postgres_cluster
    finally:
        settings_dict.update(saved)


def test_readiness_follows_redis_down_and_back(
    worker: Worker, redis_server: RedisServer, settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings.REDIS_URL = redis_server.url
    monkeypatch.setattr(health, "celery_app", worker.client)
    code, body = readyz()
    assert code == 200, body
    assert worker.node in body["checks"]["workers"]["workers"]

    redis_server.stop()
    code, body = readyz()

    assert code == 503
    assert body["status"] == "down"
    down = {name for name, check in body["checks"].items() if not check["ok"]}
    assert down == {"redis", "broker", "workers"}
    assert body["checks"]["database"]["ok"] is True

    redis_server.start()
    wait_until(lambda: readyz()[0] == 200, BACK_WITHIN, "readiness after Redis came back")
    assert worker.alive()


@pytest.mark.usefixtures("transactional_db", "celery_worker")
def test_readiness_follows_postgres_down_and_back(database_on: PostgresCluster) -> None:
    code, body = readyz()
    assert code == 200, body

    database_on.stop()

    def only_the_database_down() -> bool:
        """Every answer says the database is down; the others are up once the workers'
        ping comes back in time (on a machine busy enough it may not, once)."""
        code, body = readyz()
        assert code == 503
        assert body["checks"]["database"]["ok"] is False
        assert "connection" in body["checks"]["database"]["error"].lower()
        return all(check["ok"] for name, check in body["checks"].items() if name != "database")

    wait_until(only_the_database_down, BACK_WITHIN, "the other checks up while PostgreSQL is down")

    database_on.start()
    code, body = readyz()
    assert code == 200, body
