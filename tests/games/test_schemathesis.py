"""Schemathesis against the OpenAPI schema: no server error, every response as documented.

The schema is read from ``/api/v1/schema/`` through the WSGI app, in process, and every
games operation is called with generated input, as alice, who holds seat 0 (on turn) of
an active game. Generation is bounded and derandomised: a run is short and repeatable.

The checks are the ones that hold for any input: no 5xx, and status code, content type,
headers and body as the schema documents them. Schemathesis's acceptance checks are left
out on purpose: a schema-valid request may still be refused with 400 or 422 by the rules
(an option the engine rejects, a seat the table lacks, an action that is not legal now).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
import schemathesis
from django.core.signals import request_finished, request_started
from django.db import close_old_connections
from hypothesis import HealthCheck, settings
from rest_framework.test import APIClient
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from accounts.models import User
from cya_site.wsgi import application
from games import services
from games.engine import RuleSet
from games.models import Game
from tests.clients import authenticate

# The stream never ends on an active game: tests/games/test_stream.py covers it against a
# real ASGI server instead.
schema = (
    schemathesis.openapi.from_wsgi("/api/v1/schema/", application)
    .include(path_regex="^/api/v1/games/")
    .exclude(path_regex="/stream/$")
)
CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
]
BOUNDED = settings(
    max_examples=6,
    derandomize=True,
    deadline=None,
    database=None,
    # function-scoped fixtures (the game, the token) are shared by an operation's examples
    suppress_health_check=list(HealthCheck),
)


@pytest.fixture
def wsgi_in_test_transaction() -> Iterator[None]:
    """Keep the test's connection (and its transaction) across WSGI requests.

    Django closes stale connections when a request starts and ends; its test client turns
    that off, and so must a test that calls the WSGI app directly.
    """
    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    yield
    request_started.connect(close_old_connections)
    request_finished.connect(close_old_connections)


@pytest.fixture
def active_game(alice: User, bob: User, staff: User) -> Game:
    """alice (seat 0, on turn) and bob at a two-seat table, dealt from seed 7."""
    game = services.game_create(by=alice, rules=RuleSet.preset("2021", seats=2))
    services.game_join(game=game, user=bob)
    return services.game_start(game=game, by=staff, seed=7)


@pytest.fixture
def alices_headers(alice: User) -> dict[str, str]:
    return {"Authorization": f"Bearer {authenticate(APIClient(), alice)}"}


@pytest.mark.django_db
@schema.parametrize()
@BOUNDED
def test_every_games_operation_on_an_active_game_answers_as_documented(
    case: Any,
    wsgi_in_test_transaction: None,
    active_game: Game,
    alices_headers: dict[str, str],
) -> None:
    if case.path_parameters and "id" in case.path_parameters:
        case.path_parameters["id"] = active_game.pk
    case.call_and_validate(headers=alices_headers, checks=CHECKS)


@pytest.mark.django_db
@schema.parametrize()
@settings(BOUNDED, max_examples=3)
def test_every_games_operation_on_any_id_answers_as_documented(
    case: Any, wsgi_in_test_transaction: None, alices_headers: dict[str, str]
) -> None:
    case.call_and_validate(headers=alices_headers, checks=CHECKS)
