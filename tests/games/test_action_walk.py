"""An action's walk from request to database: the seams are the only way down.

``POST /games/{id}/actions/`` answered for a seat at a game in play (three actions in, so
every statement and cache is warm): its queries come from the persistence seams alone
(accounts.store, games.store) and are three, and the modules it passes through, in order,
are the ones written below. A change to the path shows here first, on purpose.
"""

from __future__ import annotations

import traceback
from collections.abc import Callable
from typing import Any

import pytest
from django.db import connection
from rest_framework.test import APIClient

from games import store
from games.engine import action_to_json, legal_actions
from games.models import Game
from tests.games.conftest import submit
from tests.walk import ENGINE, ROOT, SKIPPED, stops

Clients = Callable[[Game], dict[int, APIClient]]
SEAMS = ("accounts/store.py", "games/store/")

# Stops, in order (tests/walk.py): a module called again in a row is one stop, the engine
# is one. The repeats are each for its own reason, noted beside it.
WALK = [
    "games/api/views.py",
    "cya_site/parsers.py",
    "cya_site/serializers.py",
    "games/api/serializers.py",  # the action, taken as the JSON body carried it
    "cya_site/idempotency.py",  # the Idempotency-Key header
    "games/services/acting.py",
    "games/store/seats.py",  # the seat, its game and snapshot: one query
    "cya_site/rows.py",
    "cya_site/tracing.py",  # each query timed for Server-Timing's db;dur=
    "cya_site/rows.py",
    "games/services/checks.py",
    "games/store/states.py",  # the state, from the process cache or the snapshot
    ENGINE,  # the action read, applied, written back in canonical form
    "games/services/progress.py",
    ENGINE,  # the new round's number
    "games/store/writes.py",  # the entry with every row it changes: one statement
    "games/store/states.py",  # the new snapshot's bytes (states owns their format)
    ENGINE,
    "games/store/vendor.py",
    "cya_site/rows.py",
    "cya_site/tracing.py",
    "cya_site/rows.py",
    "games/store/states.py",  # the state cached once written
    "games/store/log.py",  # the entry's public form, for the stream and the answer
    "games/services/announce.py",
    "games/feed.py",  # every stream line, built at once
    "games/selectors.py",  # the next decision, which the answer reuses if it is ours
    ENGINE,
    "games/feed.py",  # the answer's game status object
    "cya_site/idempotency.py",  # 201, or 200 for a retry
    "cya_site/json_renderer.py",  # the answer's bytes
    "cya_site/metrics.py",  # the request's duration, after the view
]


@pytest.fixture
def next_action(started: Game, clients_for: Clients) -> Callable[[], Any]:
    """A call that submits the first legal action of the seat to act, through the API."""
    clients = clients_for(started)

    def build() -> Callable[[], Any]:
        started.refresh_from_db()
        state = store.load_state(started)
        action = action_to_json(legal_actions(state)[0], state.rules.edition)
        client = clients[state.to_act]
        return lambda: submit(client, started, action, state.version)

    for _ in range(3):
        assert build()().status_code == 201
    return build()


def test_an_action_walks_these_modules_in_this_order(next_action: Callable[[], Any]) -> None:
    assert stops(next_action, "games/api/views.py") == WALK


def test_an_action_reaches_the_database_only_through_the_seams_in_three_queries(
    next_action: Callable[[], Any],
) -> None:
    callers: list[list[str]] = []

    def record(execute: Any, sql: str, params: Any, many: bool, context: Any) -> Any:
        ours = [
            frame.filename[len(str(ROOT)) + 1 :]
            for frame in traceback.extract_stack()
            if frame.filename.startswith(str(ROOT)) and not frame.filename.startswith(SKIPPED)
        ]
        callers.append(ours)
        return execute(sql, params, many, context)

    with connection.execute_wrapper(record):
        assert next_action().status_code == 201

    assert len(callers) == 3  # the token, the seat, the append
    for stack in callers:
        assert any(file.startswith(SEAMS) for file in stack), stack
