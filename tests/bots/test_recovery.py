"""Recovery: work held by one run at a time, the sweep that resends what a crash left idle,
single-flight scheduling, and get-or-create paths that do not race.

Concurrency is real: other runs are other database connections (threads, each with its own
connection, or a second psycopg connection holding a lease), on committed rows
(``transactional_db``).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from datetime import timedelta
from typing import TypeVar

import pytest
from django.db import connections
from django.utils import timezone
from pytest_django import Settings

from accounts.models import User
from bots import ladder, leases, recovery, services, tasks
from bots.models import Bot, BotVersion, Match, MatchEntry
from bots.validation import BUILTIN_OPPONENTS, builtin_versions
from cya_site.errors import DomainError
from tests.bots.bot_servers import builtin_version
from tests.bots.checks import assert_finished_once, held_elsewhere, quick
from tests.factories import UserFactory

# committed rows, and no worker doing the work these tests find left undone
pytestmark = pytest.mark.usefixtures("transactional_db", "worker_paused")

T = TypeVar("T")


def at_once(runs: int, work: Callable[[], T]) -> list[T]:
    """``work`` in ``runs`` threads released together, each on its own connection."""
    barrier = threading.Barrier(runs)
    results: list[T] = []
    errors: list[BaseException] = []

    def run() -> None:
        try:
            barrier.wait()
            results.append(work())
        except BaseException as error:  # reported to the test below
            errors.append(error)
        finally:
            connections.close_all()

    threads = [threading.Thread(target=run) for _ in range(runs)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors, errors
    return results


def age(model: type[Match] | type[BotVersion], pk: int, seconds: int) -> None:
    """Pretend ``pk`` was last sent to the workers ``seconds`` ago."""
    sent = timezone.now() - timedelta(seconds=seconds)
    model.objects.filter(pk=pk).update(dispatched_at=sent)


@pytest.fixture
def table() -> list[BotVersion]:
    shark, greedy, random_ = builtin_versions()
    return [shark, greedy, random_]


# --- one run at a time ---------------------------------------------------------------------


def test_a_match_held_by_another_run_is_left_to_it_untouched(table: list[BotVersion]) -> None:
    match = services.match_create(versions=table, rules=quick(3))

    with held_elsewhere(leases.LEASE_MATCH, match.pk):
        outcome = tasks.play_match(match.pk)

    assert outcome == "held elsewhere"
    match.refresh_from_db()
    assert (match.status, match.attempts) == (Match.Status.SCHEDULED, 0)


def test_a_match_is_played_once_its_lease_is_let_go(table: list[BotVersion]) -> None:
    match = services.match_create(versions=table, rules=quick(3))
    with held_elsewhere(leases.LEASE_MATCH, match.pk):
        tasks.play_match(match.pk)

    assert tasks.play_match(match.pk) == "finished"
    assert_finished_once(match)
    assert tasks.play_match(match.pk) == "already ended"


def test_a_validation_held_by_another_run_is_left_to_it(alice: User) -> None:
    mine = services.bot_create(owner=alice, name="mine", kind=Bot.Kind.API_CLIENT)
    version = services.version_create(bot=mine, by=alice)

    with held_elsewhere(leases.LEASE_VERSION, version.pk):
        assert tasks.validate_version(version.pk) == "held elsewhere"

    version.refresh_from_db()
    assert version.status == BotVersion.Status.PENDING


# --- the sweep -----------------------------------------------------------------------------


def test_the_sweep_resends_a_match_idle_past_the_grace_once(
    table: list[BotVersion], settings: Settings
) -> None:
    settings.SWEEP_AFTER_SECONDS = 60
    idle = services.match_create(versions=table, rules=quick(3))
    age(Match, idle.pk, 61)
    fresh = services.match_create(versions=table, rules=quick(3))  # still in the queue
    age(Match, fresh.pk, 59)
    now = timezone.now()

    assert recovery.idle_matches(now) == [idle.pk]
    assert recovery.idle_matches(now) == []  # marked sent: the next sweep waits again
    idle.refresh_from_db()
    assert idle.dispatched_at == now


def test_the_sweep_resends_a_running_match_whose_worker_is_gone(
    table: list[BotVersion], settings: Settings
) -> None:
    settings.SWEEP_AFTER_SECONDS = 60
    match = services.match_create(versions=table, rules=quick(3))
    Match.objects.filter(pk=match.pk).update(status=Match.Status.RUNNING, attempts=1)
    age(Match, match.pk, 3600)

    with held_elsewhere(leases.LEASE_MATCH, match.pk):  # its worker is alive: not idle
        assert recovery.idle_matches(timezone.now()) == []
    assert recovery.idle_matches(timezone.now()) == [match.pk]  # the worker died

    assert tasks.play_match(match.pk) == "finished"  # what the resent task does
    assert_finished_once(match)


def test_the_sweep_never_resends_ended_matches(table: list[BotVersion], settings: Settings) -> None:
    settings.SWEEP_AFTER_SECONDS = 60
    finished = services.match_create(versions=table, rules=quick(3))
    tasks.play_match(finished.pk)
    voided = services.match_create(versions=table, rules=quick(3))
    services.match_void(match=voided, reason="test")
    for match in (finished, voided):
        age(Match, match.pk, 3600)

    assert recovery.idle_matches(timezone.now()) == []


def test_the_sweep_resends_validations_left_pending_or_validating(
    alice: User, settings: Settings
) -> None:
    settings.SWEEP_AFTER_SECONDS = 60
    mine = services.bot_create(owner=alice, name="mine", kind=Bot.Kind.API_CLIENT)
    pending = services.version_create(bot=mine, by=alice)
    stuck = services.version_create(bot=mine, by=alice)
    BotVersion.objects.filter(pk=stuck.pk).update(status=BotVersion.Status.VALIDATING)
    done = services.version_create(bot=mine, by=alice)
    BotVersion.objects.filter(pk=done.pk).update(status=BotVersion.Status.FAILED)
    for version in (pending, stuck, done):
        age(BotVersion, version.pk, 61)

    with held_elsewhere(leases.LEASE_VERSION, pending.pk):
        assert recovery.idle_validations(timezone.now()) == [stuck.pk]
    assert recovery.idle_validations(timezone.now()) == [pending.pk]


def test_two_sweeps_at_once_send_each_idle_match_once(
    table: list[BotVersion], settings: Settings
) -> None:
    settings.SWEEP_AFTER_SECONDS = 60
    ids = []
    for _ in range(6):
        match = services.match_create(versions=table, rules=quick(3))
        age(Match, match.pk, 61)
        ids.append(match.pk)

    sent = at_once(4, lambda: recovery.idle_matches(timezone.now()))

    assert sorted(pk for found in sent for pk in found) == ids


# --- single flight and races ---------------------------------------------------------------


def test_concurrent_schedules_never_overbook_the_ladder(settings: Settings) -> None:
    settings.LADDER_TABLES = 4
    settings.LADDER_SEATS = [3]
    owners = [UserFactory.create(username=f"owner{i}") for i in range(15)]
    for i, owner in enumerate(owners):
        builtin_version(owner, f"bot{i}", "random")

    created = at_once(8, ladder.schedule)

    busy = Match.objects.filter(status__in=recovery.BUSY)
    assert sum(len(found) for found in created) == busy.count() == 4
    seated = list(MatchEntry.objects.filter(match__in=busy).values_list("version_id", flat=True))
    assert len(seated) == len(set(seated)) == 12  # no version at two tables


def test_validations_started_together_on_a_fresh_site_share_one_set_of_built_ins() -> None:
    found = at_once(10, lambda: [v.pk for v in builtin_versions()])

    assert len({tuple(ids) for ids in found}) == 1
    names = {f"builtin-{name}" for name in BUILTIN_OPPONENTS}
    assert set(Bot.objects.values_list("name", flat=True)) == names
    assert BotVersion.objects.filter(status=BotVersion.Status.READY).count() == len(names)


def test_one_name_registered_twice_at_once_is_one_bot_and_one_clear_refusal(
    alice: User, bob: User
) -> None:
    owners = iter([alice, bob])
    lock = threading.Lock()

    def register() -> str:
        with lock:
            owner = next(owners)
        try:
            services.bot_create(owner=owner, name="twin", kind=Bot.Kind.API_CLIENT)
        except DomainError as error:
            return error.code
        return "created"

    assert sorted(at_once(2, register)) == ["bot_name_taken", "created"]
    assert Bot.objects.filter(name="twin").count() == 1
