"""Fixtures of the bots tests: both paths through the persistence seam."""

from __future__ import annotations

from typing import Any

import pytest
from django.db import connection
from pytest_django import Settings

from accounts.models import User
from bots import persistence
from bots.models import BotVersion
from cya_site import dispatch
from tests.bots.bot_servers import builtin_version

SQL, ORM = "sql", "orm"


@pytest.fixture(autouse=True)
def _whole_matches(settings: Settings) -> None:
    """A match run here in one call plays to its end (its slices are tested on their own,
    tests/bots/test_match_slices.py): however slow the machine, ``tasks.play_match``
    answers "finished", not "sliced"."""
    settings.MATCH_SLICE_SECONDS = 3600


@pytest.fixture(params=[SQL, ORM])
def seam_path(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Run the test twice on PostgreSQL: down bots.persistence's hand-written SQL, then
    down its ORM path (the one SQLite takes for ``make run``), so the two cannot drift."""
    assert connection.vendor == "postgresql", "the suite runs on PostgreSQL"
    if request.param == ORM:
        monkeypatch.setattr(persistence, "sql_path", lambda: False)
    return str(request.param)


# --- challenges (tests/bots/test_challenges*.py) -------------------------------------------


@pytest.fixture
def sent(monkeypatch: pytest.MonkeyPatch) -> list[tuple[Any, tuple[Any, ...]]]:
    """Tasks sent (no worker runs here): recorded, never queued."""
    tasks_sent: list[tuple[Any, tuple[Any, ...]]] = []

    def record(task: Any, args: tuple[Any, ...] = (), **_: Any) -> bool:
        tasks_sent.append((task, args))
        return True

    monkeypatch.setattr(dispatch, "send", record)
    return tasks_sent


@pytest.fixture
def mine(alice: User) -> BotVersion:
    """Alice's ready bot, a built-in strategy under her name."""
    return builtin_version(alice, "alices-bot", "greedy")


@pytest.fixture
def theirs(bob: User) -> BotVersion:
    """Bob's ready bot."""
    return builtin_version(bob, "bobs-bot", "shark")
