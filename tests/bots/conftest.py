"""Fixtures of the bots tests: both paths through the persistence seam."""

from __future__ import annotations

import pytest
from django.db import connection
from pytest_django import Settings

from bots import persistence

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
