"""A slice's games of built-in seats are written together, with the match's result when
they were its last, in one transaction whose first statement checks the run's lease, sent
in one round trip with the games' writes (bots.leases.fenced_pipeline): a run whose lease
another run took over while it played writes nothing, and stops without counting an
attempt or voiding the match, even when the other run wrote a game first (issue 25's
fencing, issue 31's ladder speed).

The take-over is real: another connection gives the lease row a new owner and a raised
fencing token while the run chooses its seats' moves.
"""

from __future__ import annotations

from typing import Any

import psycopg
import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from pytest_django import Settings

from bots import leases, runner, services, tasks
from bots.models import Match
from bots.strategies import decide
from bots.validation import builtin_versions
from games.engine import State
from games.models import Game, Playout
from tests.bots.checks import assert_finished_once, quick, take_over
from tests.conftest import _test_database_url

# committed rows (another connection takes the lease over); continuations stay queued
pytestmark = pytest.mark.usefixtures("transactional_db", "worker_paused")


@pytest.fixture
def match() -> Match:
    """A ladder match of three built-ins: three games, one per seat rotation."""
    return services.match_create(versions=builtin_versions(), rules=quick(3))


def taken_over_while_choosing(
    monkeypatch: pytest.MonkeyPatch, match: Match, *, and_written: bool = False
) -> None:
    """At the slice's first choice another run takes the match's lease over (and, if
    ``and_written``, moves the game on, as that run writing it first would)."""
    first = Game.objects.filter(match_game__match=match).order_by("match_game__rotation")[0]
    taken: list[bool] = []

    def decide_taken_over(player: Any, state: State, *args: Any) -> int:
        if not taken:
            take_over(leases.LEASE_MATCH, match.pk)
            if and_written:
                with psycopg.connect(_test_database_url(), autocommit=True) as other:
                    moved_on = "UPDATE games_game SET version = version + 1 WHERE id = %s"
                    other.execute(moved_on, [first.pk])
            taken.append(True)
        return decide(player, state, *args)

    monkeypatch.setattr(runner, "decide", decide_taken_over)


def assert_untouched(match: Match) -> None:
    """Nothing of the match's games written by the run, no attempt spent, not ended."""
    match.refresh_from_db()
    assert match.status == Match.Status.RUNNING
    assert match.attempts == 0  # given back: losing the lease is no fault of the match
    games = Game.objects.filter(match_game__match=match)
    assert not Playout.objects.filter(game__in=games).exists()
    assert set(games.values_list("status", flat=True)) == {Game.Status.ACTIVE}


def test_a_slice_whose_lease_is_taken_over_while_it_plays_writes_nothing(
    match: Match, monkeypatch: pytest.MonkeyPatch
) -> None:
    taken_over_while_choosing(monkeypatch, match)

    assert tasks.play_match(match.pk) == "lease lost"

    assert_untouched(match)


def test_a_slice_whose_game_the_run_that_took_over_wrote_first_stops_without_voiding(
    match: Match, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the write is refused as stale, and the lease's check says why: the match is fine
    taken_over_while_choosing(monkeypatch, match, and_written=True)

    assert tasks.play_match(match.pk) == "lease lost"

    assert_untouched(match)


def test_a_slices_games_and_the_match_result_are_one_transaction_checked_first(
    match: Match, settings: Settings
) -> None:
    settings.MATCH_SLICE_SECONDS = 60  # the whole match in one slice

    with CaptureQueriesContext(connection) as queries:
        assert tasks.play_match(match.pk) == "finished"

    statements = [query["sql"] for query in queries.captured_queries]
    writes = [n for n, sql in enumerate(statements) if 'INSERT INTO "games_playout"' in sql]
    assert len(writes) == 3  # one statement per game
    begin = statements.index("BEGIN")
    # checked first, and let go by the same statement: the run's last write
    assert statements[begin + 1].startswith('UPDATE "bots_lease"')
    assert writes == [begin + 2, begin + 3, begin + 4]
    commit = statements.index("COMMIT", begin)
    finish = [n for n, sql in enumerate(statements) if sql.startswith("WITH entry AS")]
    assert len(finish) == 1
    assert writes[-1] < finish[0] < commit  # the match's result, in it too
    assert statements.count("BEGIN") == 1  # the slice's only transaction
    assert not [sql for sql in statements[commit:] if '"bots_lease"' in sql]  # nothing after
    assert_finished_once(match)


def test_a_slice_out_of_time_writes_the_games_it_played_and_leaves_the_result(
    match: Match, settings: Settings
) -> None:
    settings.MATCH_SLICE_SECONDS = 0  # one game a slice

    with CaptureQueriesContext(connection) as queries:
        assert tasks.play_match(match.pk) == tasks.SLICED

    statements = [query["sql"] for query in queries.captured_queries]
    begin = statements.index("BEGIN")
    assert statements[begin + 1].startswith('SELECT 1 FROM "bots_lease"')  # kept, not let go

    match.refresh_from_db()
    assert match.status == Match.Status.RUNNING
    games = Game.objects.filter(match_game__match=match).order_by("match_game__rotation")
    assert list(games.values_list("status", flat=True)) == [
        Game.Status.FINISHED,
        Game.Status.ACTIVE,
        Game.Status.ACTIVE,
    ]
