"""Requests released together on real threads, each on its own database connection: what
serialises them is the database, as in production (use ``transactional_db``)."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from django.db import connection

Outcome = tuple[int, dict[str, Any]]


def race_threads(jobs: list[Callable[[], Outcome]]) -> list[Outcome]:
    """Run every job on its own thread, released together; returns (status, body) of each."""
    barrier = threading.Barrier(len(jobs))
    outcomes: list[Outcome | BaseException | None] = [None] * len(jobs)

    def run(index: int) -> None:
        try:
            barrier.wait(timeout=10)
            outcomes[index] = jobs[index]()
        except BaseException as error:  # a 500 raises in the test client: keep it
            outcomes[index] = error
        finally:
            connection.close()

    threads = [threading.Thread(target=run, args=(i,)) for i in range(len(jobs))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    failures = [o for o in outcomes if not isinstance(o, tuple)]
    assert not failures, failures
    return [o for o in outcomes if isinstance(o, tuple)]
