"""A match played in slices: a task plays a game (MATCH_SLICE_SECONDS), then sends the rest
as a new task; only a slice that crashed counts as an attempt (cya_site.queues, issue 25).
"""

from __future__ import annotations

import pytest
from pytest_django import Settings

from bots import services, tasks
from bots.models import BotVersion, Match
from bots.validation import builtin_versions
from games.models import Game
from tests.bots.checks import assert_finished_once, quick

# committed rows; the continuations this sends stay queued, for no worker to take
pytestmark = pytest.mark.usefixtures("transactional_db", "worker_paused")


@pytest.fixture
def table() -> list[BotVersion]:
    return builtin_versions()


def unfinished(match: Match) -> int:
    games = Game.objects.filter(match_game__match=match)
    return games.exclude(status=Game.Status.FINISHED).count()


def test_a_slice_plays_one_game_and_counts_no_attempt(
    table: list[BotVersion], settings: Settings
) -> None:
    settings.MATCH_SLICE_SECONDS = 0  # one game a slice
    match = services.match_create(versions=table, rules=quick(3))  # duplicate: three games

    assert tasks.play_match(match.pk) == tasks.SLICED

    match.refresh_from_db()
    assert match.status == Match.Status.RUNNING
    assert match.attempts == 0  # the slice ended well: its attempt given back
    assert unfinished(match) == 2


def test_slices_play_a_match_to_its_end_and_rate_it_once(
    table: list[BotVersion], settings: Settings
) -> None:
    settings.MATCH_SLICE_SECONDS = 0
    match = services.match_create(versions=table, rules=quick(3))

    outcomes = [tasks.play_match(match.pk) for _ in range(3)]

    assert outcomes == [tasks.SLICED, tasks.SLICED, "finished"]
    assert_finished_once(match)
    match.refresh_from_db()
    assert match.attempts == 1  # as a match played in one go
    assert tasks.play_match(match.pk) == "already ended"


def test_a_slice_that_crashed_counts_an_attempt(
    table: list[BotVersion], settings: Settings
) -> None:
    settings.MATCH_SLICE_SECONDS = 0
    match = services.match_create(versions=table, rules=quick(3))
    services.match_claim(match_id=match.pk)  # a slice claimed it, then its worker died

    assert tasks.play_match(match.pk) == tasks.SLICED  # the redelivered slice

    match.refresh_from_db()
    assert match.attempts == 1
