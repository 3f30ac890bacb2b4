"""What the web tier and the workers do when the database or Redis cannot be reached.

Outages here are real: a connection to a port where nothing listens, never a stand-in
object. (tests/faults/ restarts whole servers under a running platform.)
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest
from celery.result import AsyncResult
from django.db import connection
from django.test import Client
from rest_framework.test import APIClient

from accounts.models import User
from cya_site import dispatch
from cya_site.celery import app
from cya_site.errors import DomainError
from cya_site.tasks import ping
from games.engine.errors import EngineError, GameOver, InvalidRules, NotYourTurn
from tests.bots.bot_servers import free_port

Clients = Callable[[User], APIClient]


# --- tasks -----------------------------------------------------------------------------------


@pytest.mark.filterwarnings("ignore:Call to deprecated setex:DeprecationWarning")  # celery's
@pytest.mark.parametrize(
    "error",
    [
        DomainError("bot_name_taken", "A bot with this name exists.", {"name": "x"}, 409),
        EngineError("unknown state format", code="invalid_state"),
        InvalidRules("seats must be an integer", field="seats"),
        GameOver("The game is over."),
        NotYourTurn("Seat 1 is to act."),
    ],
    ids=lambda error: type(error).__name__,
)
def test_an_error_a_task_raises_comes_back_whole_from_the_result_backend(
    error: Exception,
) -> None:
    task_id = f"test-error-{type(error).__name__}"
    app.backend.mark_as_failure(task_id, error)

    with pytest.raises(type(error)) as raised:
        AsyncResult(task_id, app=app).get(timeout=5)

    back = raised.value
    assert str(back) == str(error)
    for name in ("code", "details", "http_status", "field"):
        assert getattr(back, name, None) == getattr(error, name, None)


def test_a_task_the_broker_cannot_take_is_reported_not_raised() -> None:
    unreachable = app.connection_for_write(f"redis://127.0.0.1:{free_port()}/0")

    sent = dispatch.send(ping, (), connection=unreachable, retry=False)

    assert sent is False


def test_backoff_doubles_up_to_a_ceiling_with_jitter() -> None:
    waits = [dispatch.backoff(n) for n in range(12)]

    assert 1 <= waits[0] <= 2
    assert all(dispatch.BACKOFF_MOST / 2 <= w <= dispatch.BACKOFF_MOST for w in waits[9:])


# --- the web tier without Redis --------------------------------------------------------------


def test_requests_are_let_through_uncounted_while_redis_is_away(
    redis_away: str, alice: User, api_as: Clients
) -> None:
    response = api_as(alice).get("/api/v1/games/")

    assert response.status_code == 200


# --- the web tier without the database -------------------------------------------------------


@pytest.fixture
def database_away(transactional_db: None) -> Iterator[None]:
    """The database refuses connections (its address points where nothing listens)."""
    settings_dict = connection.settings_dict
    port = settings_dict["PORT"]
    connection.close()
    settings_dict["PORT"] = str(free_port())
    try:
        yield
    finally:
        settings_dict["PORT"] = port
        connection.close()


@pytest.mark.usefixtures("database_away")
def test_the_api_answers_503_with_retry_after_while_the_database_is_away() -> None:
    response = Client(raise_request_exception=False).get("/api/v1/games/")

    assert response.status_code == 503
    assert response.json()["code"] == "service_unavailable"
    assert response.headers["Retry-After"] == "5"


@pytest.mark.usefixtures("database_away")
def test_a_page_answers_503_with_retry_after_while_the_database_is_away() -> None:
    response = Client(raise_request_exception=False).get("/ladder/")

    assert response.status_code == 503
    assert "Back in a moment" in response.content.decode()
    assert response.headers["Retry-After"] == "5"
