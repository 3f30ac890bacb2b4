"""The bots' Celery tasks in real worker processes, on Redis, against the test database.

``transactional_db``: a worker sees only committed rows. The session's worker
(``celery_worker``) plays and schedules matches; the crash test starts workers of its own
on a queue of its own, with the broker's redelivery timeout cut from an hour to two
seconds (tests/celery_app.py), SIGKILLs one mid-match and lets another finish the match.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO

import pytest
import redis
from django.conf import settings

from accounts.models import User
from bots import services, tasks
from bots.models import Match, MatchEntry, RatingChange, Strike
from bots.validation import builtin_versions
from games.models import Game
from tests.bots.bot_servers import BotServer, builtin_version, good_bot, running, webhook_version
from tests.bots.checks import assert_finished_once, quick
from tests.conftest import ROOT, _test_database_url
from tests.factories import UserFactory

pytestmark = pytest.mark.usefixtures("transactional_db")

TASK_TIMEOUT = 90


def wait_for(condition: Callable[[], bool], timeout: float, what: str) -> None:
    """Poll ``condition`` until it holds; fail saying ``what`` never happened."""
    give_up = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > give_up:
            raise AssertionError(f"{what}: not within {timeout} s")
        time.sleep(0.1)


def status_of(match: Match) -> str:
    return Match.objects.values_list("status", flat=True).get(pk=match.pk)


# --- the session's worker -----------------------------------------------------------------


def test_play_match_sent_twice_finishes_the_match_and_rates_it_once(
    celery_worker: str, alice: User
) -> None:
    shark, greedy, random_ = builtin_versions()
    match = services.match_create(versions=[shark, greedy, random_], rules=quick(3))

    sent = [tasks.play_match.apply_async((match.pk,), ignore_result=False) for _ in range(2)]
    outcomes = sorted(result.get(timeout=TASK_TIMEOUT) for result in sent)

    assert "voided" not in outcomes
    assert "finished" in outcomes
    assert_finished_once(match)
    for version in (shark, greedy, random_):
        version.refresh_from_db()
        assert (version.matches_played, version.games_played) == (1, 3)


def test_play_match_sent_twice_asks_a_webhook_bot_each_decision_once(
    celery_worker: str, alice: User
) -> None:
    shark, _, random_ = builtin_versions()
    with running(good_bot("steady", delay=0.01)) as (server,):
        mine = webhook_version(alice, "steady", server)
        match = services.match_create(versions=[mine, shark, random_], rules=quick(3))

        sent = [tasks.play_match.apply_async((match.pk,), ignore_result=False) for _ in range(2)]
        outcomes = sorted(result.get(timeout=TASK_TIMEOUT) for result in sent)

    assert "finished" in outcomes
    assert "voided" not in outcomes
    assert_finished_once(match)
    asked = [d["decision_id"] for d in server.decisions()]
    assert len(asked) == len(set(asked))
    assert not Strike.objects.filter(control__version=mine).exists()


def test_schedule_ladder_in_the_worker_starts_matches_that_get_played(
    celery_worker: str,
) -> None:
    # The worker runs with the default ladder settings: tables of four seats. The three
    # platform built-ins (each its own owner) and one entered bot fill exactly one.
    builtins = builtin_versions()
    builtins.append(builtin_version(UserFactory.create(username="entrant"), "entered", "shark"))

    started = tasks.schedule_ladder.apply_async(ignore_result=False).get(timeout=TASK_TIMEOUT)

    assert started == 1
    match = Match.objects.get(kind=Match.Kind.LADDER)
    wait_for(
        lambda: status_of(match) == Match.Status.FINISHED,
        TASK_TIMEOUT,
        f"ladder match {match.pk} played to its end",
    )
    assert_finished_once(match)
    assert {e.version_id for e in MatchEntry.objects.filter(match=match)} == {
        v.pk for v in builtins
    }
    assert match.match_games.count() == 4


# --- a worker killed mid-match ------------------------------------------------------------


def start_worker(queue: str, name: str, log: IO[str]) -> subprocess.Popen[bytes]:
    """A worker process (in a process group of its own) consuming ``queue`` alone.

    One process at a time (concurrency 1), and a dead worker's task is redelivered two
    seconds after it was taken (see tests/celery_app.py) instead of after an hour.
    """
    env = {
        **os.environ,
        "DATABASE_URL": _test_database_url(),
        "REDIS_URL": settings.REDIS_URL,
        "CYA_TEST_QUEUE": queue,
        "CYA_TEST_VISIBILITY_TIMEOUT": "2",
        # a killed worker's lease runs out this soon (bots.leases), not in 30 s
        "LEASE_SECONDS": "5",
    }
    command = [
        sys.executable,
        "-m",
        "celery",
        "--app",
        "tests.celery_app",
        "worker",
        "--queues",
        queue,
        "--hostname",
        f"{name}@{queue}",
        "--concurrency",
        "1",
        "--without-gossip",
        "--without-mingle",
        "--without-heartbeat",
        "--loglevel",
        "WARNING",
    ]
    return subprocess.Popen(
        command, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
    )


def kill_group(worker: subprocess.Popen[bytes], sig: signal.Signals) -> None:
    """Send ``sig`` to the worker and its pool processes (its process group)."""
    if worker.poll() is None:
        os.killpg(worker.pid, sig)
    worker.wait(timeout=30)


@pytest.fixture
def kill_queue() -> Iterator[str]:
    """A queue of the crash test's own; its Redis keys are removed afterwards."""
    queue = f"test-kill-{uuid.uuid4().hex[:12]}"
    yield queue
    redis.Redis.from_url(settings.REDIS_URL).delete(
        queue, f"{queue}.unacked", f"{queue}.unacked_index", f"{queue}.unacked_mutex"
    )


def test_a_match_whose_worker_is_sigkilled_mid_way_completes_once_on_a_new_worker(
    kill_queue: str, tmp_path: Path, alice: User
) -> None:
    shark, _, random_ = builtin_versions()
    broker = redis.Redis.from_url(settings.REDIS_URL)
    log = (tmp_path / "workers.log").open("w+")
    workers: list[subprocess.Popen[bytes]] = []
    server: BotServer
    try:
        with running(good_bot("steady", delay=0.05)) as (server,):
            mine = webhook_version(alice, "steady", server)
            match = services.match_create(
                versions=[mine, shark, random_],
                rules=quick(3),
                seed=99,
                decision_ms=2000,
                time_bank_ms=2000,
            )
            tasks.play_match.apply_async((match.pk,), queue=kill_queue)
            workers.append(start_worker(kill_queue, "first", log))
            wait_for(lambda: len(server.decisions()) >= 12, 60, "the bot was asked 12 times")

            kill_group(workers[0], signal.SIGKILL)

            # certainly mid-way: running, its games not all finished, nothing rated
            assert workers[0].returncode == -signal.SIGKILL
            assert status_of(match) == Match.Status.RUNNING
            games = Game.objects.filter(match_game__match=match)
            assert games.exclude(status=Game.Status.FINISHED).exists()
            assert not RatingChange.objects.filter(match=match).exists()
            asked_before = len(server.decisions())

            workers.append(start_worker(kill_queue, "second", log))
            wait_for(
                lambda: status_of(match) != Match.Status.RUNNING,
                TASK_TIMEOUT,
                "the match ended on the second worker",
            )
            # let any redelivered copy run too (it must find the match ended)
            wait_for(
                lambda: (
                    broker.llen(kill_queue) == 0
                    and broker.zcard(f"{kill_queue}.unacked_index") == 0
                ),
                30,
                "every delivery of the task acknowledged",
            )
            asked_after = len(server.decisions())
    finally:
        for worker in workers:
            kill_group(worker, signal.SIGTERM)
        log.seek(0)
        worker_log = log.read()
        log.close()

    assert_finished_once(match)
    match.refresh_from_db()
    assert match.attempts >= 2, worker_log
    assert asked_after > asked_before  # the second worker went on with the games
    assert RatingChange.objects.filter(match=match).count() == 3
    for version in (mine, shark, random_):
        version.refresh_from_db()
        assert (version.matches_played, version.games_played) == (1, 3)
    assert not Strike.objects.filter(control__version=mine).exists()
