"""A real Celery worker process on a broker of the test's own (tests.faults.servers).

The session's ``celery_worker`` (tests/conftest.py) uses the machine's Redis, which a
fault test must never stop. ``running_worker`` starts a worker like the deployment's
(``celery --app ... worker``, with gossip, mingle and heartbeats) on the Redis URL it is
given, and a client app in the test process on the same URL to send it tasks by name
and read their results::

    with running_worker(redis_server.url, tmp_path / "worker.log") as worker:
        redis_server.restart(gap=1.5)
        assert worker.send("cya_site.ping").get(timeout=30) == "pong"
        assert worker.alive()
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import uuid
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from celery import Celery
from celery.result import AsyncResult

from tests.conftest import ROOT, _test_database_url

READY_TIMEOUT = 60


@dataclass
class Worker:
    """A worker process consuming ``queue``, and a client app to send it tasks."""

    process: subprocess.Popen[bytes]
    queue: str
    node: str
    client: Celery
    log_path: Path

    @property
    def pid(self) -> int:
        return self.process.pid

    def alive(self) -> bool:
        """Whether the worker's main process still runs (it exits on an unrecoverable
        error, which a fault must never cause)."""
        return self.process.poll() is None

    def send(self, name: str, *args: Any) -> AsyncResult[Any]:
        """Send the task ``name`` to the worker's queue; its result comes from the same
        Redis."""
        return self.client.send_task(name, args=args, queue=self.queue)

    def log(self) -> str:
        """Everything the worker wrote so far."""
        return self.log_path.read_text()


def worker_command(app: str, queue: str, node: str) -> list[str]:
    """The deployment's worker command line, on one queue, two pool processes."""
    return [
        sys.executable, "-m", "celery", "--app", app, "worker",
        "--queues", queue,
        "--hostname", node,
        "--concurrency", "2",
        "--loglevel", "INFO",
    ]  # fmt: skip


@contextmanager
def running_worker(
    redis_url: str,
    log_path: Path,
    *,
    database_url: str | None = None,
    app: str = "tests.faults.celery_app",
) -> Iterator[Worker]:
    """A worker on ``redis_url`` (broker and results), ready (it answered a ping), in a
    process group of its own; stopped (SIGTERM, then SIGKILL) afterwards.

    ``database_url`` defaults to the test database: take ``transactional_db``, so that
    it exists (pytest-django creates it only for a session with database tests) and the
    worker sees committed rows.
    """
    queue = f"faults-{uuid.uuid4().hex[:12]}"
    node = f"{queue}@localhost"
    env = {
        **os.environ,
        "DATABASE_URL": database_url or _test_database_url(),
        "REDIS_URL": redis_url,
        "CYA_TEST_QUEUE": queue,
    }
    client = Celery("faults-client", broker=redis_url, backend=redis_url, set_as_current=False)
    with log_path.open("w") as log:
        process = subprocess.Popen(
            worker_command(app, queue, node),
            cwd=ROOT,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    worker = Worker(process=process, queue=queue, node=node, client=client, log_path=log_path)
    try:
        try:
            worker.send("cya_site.ping").get(timeout=READY_TIMEOUT)
        except Exception as error:
            raise AssertionError(
                f"the worker did not answer a ping ({error!r}):\n{worker.log()}"
            ) from error
        yield worker
    finally:
        stop(process)
        client.close()


def stop(process: subprocess.Popen[bytes]) -> None:
    """Stop a worker: warm shutdown (SIGTERM to the main process, which stops its pool),
    then SIGKILL to its process group, for whatever is left after 20 s or was left
    behind by a worker that died."""
    if process.poll() is None:
        process.terminate()
        with suppress(subprocess.TimeoutExpired):
            process.wait(timeout=20)
    with suppress(ProcessLookupError):  # the whole group is gone
        os.killpg(process.pid, signal.SIGKILL)
    process.wait()
