"""The Celery app of fault-test workers: tests.celery_app plus a task that takes its time.

``faults.hold`` sleeps, then answers: the stand-in for a long task (a match) that is
still running when a server goes away. It is registered only in workers started with
``--app tests.faults.celery_app``.
"""

import time

from tests.celery_app import app


@app.task(
    name="faults.hold", ignore_result=False, acks_late=True, time_limit=60, soft_time_limit=50
)
def hold(seconds: float) -> str:
    """Sleep ``seconds``, then answer "held"."""
    time.sleep(seconds)
    return "held"


__all__ = ["app"]
