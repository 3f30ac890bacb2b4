"""A person's game against three built-ins stays quick while the ladder saturates the batch
worker (issue 25): in Chromium, with make run's split of workers (rundev's commands, one
on interactive, one at idle CPU priority on batch and outbound), each bot move comes
within 2 s of when it was due.

The workers run on queues of this test's own (``CELERY_QUEUE_PREFIX``), routed as the
settings route them; the batch worker is kept busy by ladder matches of the search player
(``ismcts``) for the whole game.
"""

from __future__ import annotations

import itertools
import os
import signal
import subprocess
import time
import uuid
from collections.abc import Callable, Iterator
from datetime import timedelta

import pytest
import redis
from django.conf import settings
from django.db.models import Q
from playwright.sync_api import Page

from accounts.management.commands.rundev import worker_commands
from bots import services
from bots.models import Match
from bots.validation import SEATABLE_BUILTINS, builtin_versions
from cya_site import queues
from cya_site.celery import app as celery_app
from games.engine import RuleSet
from games.models import Event
from tests.bots.test_play_browser import open_a_quick_table, play_by_tapping
from tests.browser import DESKTOP
from tests.conftest import ROOT, TEST_BOT_MOVE_DELAY_MS, TEST_QUEUE, _test_database_url

pytestmark = pytest.mark.django_db(transaction=True)
BOT_MOVE_WITHIN = timedelta(seconds=2)
# more search matches than the batch worker plays in a game's time, on a quiet machine too
# (the rest are dropped with the test's queues)
BUSY_MATCHES = 40


@pytest.fixture
def split_workers(monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """rundev's two workers on queues of this test's own; tasks sent here go there too."""
    prefix = f"{TEST_QUEUE}-busy-{uuid.uuid4().hex[:6]}."
    env = {
        **os.environ,
        "DATABASE_URL": _test_database_url(),
        "REDIS_URL": settings.REDIS_URL,
        "CELERY_QUEUE_PREFIX": prefix,
        "BOT_MOVE_DELAY_MS": str(TEST_BOT_MOVE_DELAY_MS),
        "LADDER_TABLES": "0",
    }
    monkeypatch.setattr(settings, "CELERY_QUEUE_PREFIX", prefix)
    monkeypatch.setattr(settings, "BOT_MOVE_DELAY_MS", TEST_BOT_MOVE_DELAY_MS)
    routes = celery_app.conf.task_routes
    route_tasks(queues.routes(prefix))
    sent_to = celery_app.amqp.router.route({}, "bots.play_turn")["queue"].name
    assert sent_to == queues.queue_name(prefix, queues.INTERACTIVE)
    commands = [[word for word in c if word != "--beat"] for c in worker_commands()]
    workers = [  # each in a session of its own: its pool processes are stopped with it
        subprocess.Popen(
            c,
            cwd=ROOT,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        for c in commands
    ]
    try:
        yield prefix
    finally:
        route_tasks(routes)
        for worker in workers:
            worker.terminate()
        for worker in workers:
            try:  # a warm shutdown ends the game in play: a search player's may take longer
                worker.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(worker.pid, signal.SIGKILL)
                worker.wait()
        redis.Redis.from_url(settings.REDIS_URL).delete(*queues.queues(prefix))


def route_tasks(routes: dict[str, dict[str, str]]) -> None:
    """Send tasks by ``routes`` from now on. Celery keeps the routes it first read (its
    router is cached on ``app.amqp``), so a change of ``task_routes`` alone is ignored
    once any task was sent in the session: the matches and bot turns then went to the
    session worker's queue, and the bots never moved."""
    celery_app.conf.task_routes = routes
    celery_app.amqp.flush_routes()
    celery_app.amqp.__dict__.pop("router", None)


def saturate_batch(prefix: str) -> None:
    """Ladder matches of the search player, more than the batch worker can take at once;
    returns once one is running."""
    search = {v.strategy: v for v in builtin_versions(SEATABLE_BUILTINS)}["ismcts"]
    versions = [search, *builtin_versions()]
    for _ in range(BUSY_MATCHES):
        match = services.match_create(versions=versions, rules=RuleSet.preset("2021", seats=4))
        celery_app.send_task("bots.play_match", args=[match.pk])
    give_up = time.monotonic() + 120
    while not Match.objects.filter(status=Match.Status.RUNNING).exists():
        assert time.monotonic() < give_up, "the batch worker never started a match"
        time.sleep(0.2)


def test_each_bot_move_comes_within_two_seconds_while_the_ladder_fills_the_batch_worker(
    split_workers: str, open_page: Callable[..., Page]
) -> None:
    saturate_batch(split_workers)
    page = open_page("/play/", size=DESKTOP)

    game = open_a_quick_table(page, seats=4)
    play_by_tapping(page, game, seat=0)

    events = list(Event.objects.filter(game=game).order_by("seq"))
    # the batch worker had ladder work until the game's last move (a match unfinished then)
    unfinished = Q(finished_at__isnull=True) | Q(finished_at__gte=events[-1].created_at)
    assert Match.objects.filter(unfinished).exists()
    delay = timedelta(milliseconds=TEST_BOT_MOVE_DELAY_MS)
    late = [
        (later.seq, (later.created_at - earlier.created_at - delay).total_seconds())
        for earlier, later in itertools.pairwise(events)
        if later.seat in game.bot_seats
        and later.created_at - earlier.created_at - delay > BOT_MOVE_WITHIN
    ]
    moves = [
        (later.created_at - earlier.created_at - delay).total_seconds()
        for earlier, later in itertools.pairwise(events)
        if later.seat in game.bot_seats
    ]
    print(f"{len(moves)} bot moves, the latest {max(moves):.2f} s past due")
    assert {e.seat for e in events if e.origin == "builtin"} == {1, 2, 3}
    assert late == []
