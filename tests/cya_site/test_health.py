"""/healthz and /readyz: liveness without the database, readiness naming what is down.

Outages here are real: a port where nothing listens, a socket that accepts and never
answers, a Redis no worker consumes. tests/faults/test_readiness.py stops and starts
servers of its own under /readyz.
"""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from celery import Celery
from django.test import Client
from pytest_django import Settings

from cya_site import health
from cya_site.celery import app
from tests.bots.bot_servers import free_port
from tests.faults.servers import running_redis


@pytest.fixture
def silent_port() -> Iterator[int]:
    """A port that accepts connections (the kernel completes the handshake) and never
    answers: a hung server."""
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(16)
        yield listener.getsockname()[1]


@contextmanager
def lonely_app() -> Iterator[Celery]:
    """A Celery app on a Redis of its own: the broker is up, and no worker consumes it."""
    with running_redis() as server:
        client = Celery("lonely", broker=server.url, set_as_current=False)
        try:
            yield client
        finally:
            client.close()


@pytest.fixture
def lonely_broker(monkeypatch: pytest.MonkeyPatch) -> Iterator[Celery]:
    """Readiness checks the broker and workers of a lonely app (above)."""
    with lonely_app() as client:
        monkeypatch.setattr(health, "celery_app", client)
        yield client


# --- liveness ----------------------------------------------------------------------------


def test_healthz_answers_200_without_touching_the_database() -> None:
    # no database fixture: pytest-django refuses any database access here
    response = Client().get("/healthz")

    assert response.status_code == 200
    assert response.json() == {"status": "ok"}
    assert "no-cache" in response.headers["Cache-Control"]


def test_healthz_takes_only_safe_methods() -> None:
    assert Client().post("/healthz").status_code == 405


# --- readiness ---------------------------------------------------------------------------


@pytest.mark.usefixtures("db")
def test_readyz_answers_200_naming_every_check_and_the_session_worker(celery_worker: str) -> None:
    response = Client().get("/readyz")

    assert response.status_code == 200
    body = response.json()
    assert body["status"] == "ok"
    assert set(body["checks"]) == {"database", "redis", "broker", "workers", "queues"}
    assert all(check["ok"] and check["ms"] >= 0 for check in body["checks"].values())
    workers = body["checks"]["workers"]
    assert workers["answered"] >= 1
    assert workers["workers"][celery_worker] == 0
    assert set(body["checks"]["queues"]["queues"]) == {"interactive", "batch", "outbound"}


@pytest.mark.usefixtures("db", "celery_worker")
def test_readyz_answers_503_naming_redis_when_it_is_out_of_reach(redis_away: str) -> None:
    response = Client().get("/readyz")

    assert response.status_code == 503
    body = response.json()
    assert body["status"] == "down"
    assert body["checks"]["redis"]["ok"] is False
    assert "Connection" in body["checks"]["redis"]["error"]
    assert body["checks"]["database"]["ok"] is True


@pytest.mark.usefixtures("db")
@pytest.mark.usefixtures("lonely_broker")
def test_without_a_worker_readiness_is_down() -> None:
    response = Client().get("/readyz")

    assert response.status_code == 503
    workers = response.json()["checks"]["workers"]
    assert workers["ok"] is False
    assert workers["answered"] == 0
    assert workers["error"].startswith("no worker answered")
    assert response.json()["checks"]["broker"]["ok"] is True


@pytest.mark.usefixtures("db", "celery_worker")
def test_a_worker_that_stops_answering_is_named_with_the_age_of_its_last_answer(
    celery_worker: str,
) -> None:
    seen = health.check_workers(app)
    assert seen["workers"][celery_worker] == 0

    with lonely_app() as lonely:
        time.sleep(0.2)
        missing = health.check_workers(lonely)

    assert missing["ok"] is False
    assert missing["workers"][celery_worker] >= 0.2
    assert celery_worker in missing["error"]


@pytest.mark.usefixtures("db", "celery_worker")
def test_readyz_answers_within_two_seconds_when_redis_hangs(
    silent_port: int, settings: Settings
) -> None:
    settings.REDIS_URL = f"redis://127.0.0.1:{silent_port}/0"
    started = time.monotonic()

    response = Client().get("/readyz")

    assert time.monotonic() - started < 2.5
    assert response.status_code == 503
    assert response.json()["checks"]["redis"]["ok"] is False


def test_a_check_that_never_ends_is_down_by_the_deadline() -> None:
    release = threading.Event()

    def hangs() -> health.Result:
        release.wait(10)
        return {}

    started = time.monotonic()
    try:
        results = health.run_checks({"hangs": hangs, "fine": dict}, deadline=0.3)
    finally:
        release.set()

    assert time.monotonic() - started < 1
    assert results["hangs"] == {"ok": False, "error": "no answer within 0.3 s"}
    assert results["fine"]["ok"] is True


def test_a_check_that_raises_is_down_with_its_error() -> None:
    def refuses() -> health.Result:
        raise ConnectionRefusedError("refused")

    results = health.run_checks({"refuses": refuses}, deadline=1)

    assert results["refuses"]["ok"] is False
    assert results["refuses"]["error"] == "ConnectionRefusedError: refused"


def test_the_broker_check_fails_when_nothing_listens() -> None:
    nowhere = Celery("nowhere", broker=f"redis://127.0.0.1:{free_port()}/0", set_as_current=False)

    results = health.run_checks({"broker": lambda: health.check_broker(nowhere)}, deadline=2)

    assert results["broker"]["ok"] is False
    assert "Connection refused" in results["broker"]["error"]


@pytest.mark.usefixtures("db", "celery_worker")
def test_readyz_needs_no_sign_in_and_is_never_throttled(settings: Settings) -> None:
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {**settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"],
                                   "anon": "1/min"},
    }  # fmt: skip
    client = Client()

    statuses = {client.get("/readyz").status_code for _ in range(3)}

    assert statuses == {200}


def test_the_probes_are_not_in_the_openapi_schema(db: None) -> None:
    schema = Client().get("/api/v1/schema/", HTTP_ACCEPT="application/json").json()

    assert not [path for path in schema["paths"] if "healthz" in path or "readyz" in path]
