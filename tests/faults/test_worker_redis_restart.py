"""A Celery worker outlives a restart of its Redis (broker and result backend).

Celery 5.7 with kombu 5.7 exited with "Unrecoverable error: AttributeError('NoneType'
object has no attribute 'hostname')" when Redis went away while a task was running
(acks_late: its message unacknowledged); cya_site.kombu_fixes fixes it, and
docs/operations.md says why. Each test runs a worker of its own on a redis-server of its
own (tests.faults), which it restarts: stopped, a gap with nothing listening (1.5 s, as
a service manager's restart), started on the same port.
"""

from collections.abc import Iterator
from pathlib import Path

import pytest
import redis

from tests.faults.servers import RedisServer, wait_until
from tests.faults.workers import Worker, running_worker

pytestmark = pytest.mark.faults

GAP = 1.5
RESULT_TIMEOUT = 60


@pytest.fixture
def worker(transactional_db: None, redis_server: RedisServer, tmp_path: Path) -> Iterator[Worker]:
    """A worker on the test's own Redis (broker and results) and the test database."""
    with running_worker(redis_server.url, tmp_path / "worker.log") as worker:
        yield worker


@pytest.fixture
def broker(redis_server: RedisServer) -> Iterator[redis.Redis]:
    """A client of the test's own Redis, to look at kombu's keys."""
    client = redis.Redis.from_url(redis_server.url)
    yield client
    client.close()


def assert_alive(worker: Worker, pid: int) -> None:
    """The same worker process still runs: it never hit an unrecoverable error."""
    assert worker.alive(), f"the worker exited:\n{worker.log()}"
    assert worker.pid == pid
    assert "Unrecoverable error" not in worker.log()


def assert_still_working(worker: Worker, pid: int) -> None:
    """The same worker process runs and answers a ping."""
    assert_alive(worker, pid)
    assert worker.send("cya_site.ping").get(timeout=RESULT_TIMEOUT) == "pong"
    assert_alive(worker, pid)


def test_worker_runs_a_task_sent_after_redis_restarted_and_stores_its_result(
    redis_server: RedisServer, worker: Worker
) -> None:
    pid = worker.pid

    redis_server.restart(gap=GAP)

    result = worker.send("cya_site.ping")
    assert result.get(timeout=RESULT_TIMEOUT) == "pong"
    assert result.worker == worker.node  # the stored result says who answered
    assert_still_working(worker, pid)


def test_a_task_running_through_a_redis_restart_finishes_and_its_ack_lands_after_it(
    redis_server: RedisServer, worker: Worker, broker: redis.Redis
) -> None:
    # acks_late: the message waits in kombu's unacked index until the task ends. The
    # restart saves the data (as a Redis with persistence), so the index survives it,
    # and an ack that failed or never came would leave the message there, to be
    # redelivered an hour later.
    pid = worker.pid
    held = worker.send("faults.hold", 8.0)
    wait_until(lambda: broker.zcard("unacked_index") == 1, 10, "the worker took the task")

    redis_server.restart(gap=GAP, save=True)

    assert not held.ready()  # still running: it ends after the worker reconnected
    assert held.get(timeout=RESULT_TIMEOUT) == "held"
    assert_alive(worker, pid)
    wait_until(lambda: broker.zcard("unacked_index") == 0, 10, "the task acknowledged")
    assert broker.hlen("unacked") == 0
    assert_still_working(worker, pid)
    assert "Couldn't ack" not in worker.log()


def test_worker_outlives_two_redis_restarts_each_under_a_running_task(
    redis_server: RedisServer, worker: Worker, broker: redis.Redis
) -> None:
    pid = worker.pid
    for _ in range(2):
        held = worker.send("faults.hold", 6.0)
        wait_until(lambda: broker.zcard("unacked_index") == 1, 10, "the worker took it")

        redis_server.restart(gap=GAP)

        assert held.get(timeout=RESULT_TIMEOUT) == "held"
        assert_alive(worker, pid)
    assert_still_working(worker, pid)


def test_a_task_that_ends_while_redis_is_down_stores_its_result_once_it_is_back(
    redis_server: RedisServer, worker: Worker, broker: redis.Redis
) -> None:
    # result_backend_always_retry: without it the result write failed, and Celery
    # recorded the task as failed with that ConnectionError.
    pid = worker.pid
    held = worker.send("faults.hold", 1.0)
    wait_until(lambda: broker.zcard("unacked_index") == 1, 10, "the worker took the task")

    redis_server.restart(gap=4.0)  # the task ends a second into the gap

    assert held.get(timeout=RESULT_TIMEOUT) == "held"
    assert_still_working(worker, pid)
