from cya_site.celery import app
from cya_site.tasks import ping


def test_ping_round_trips_through_a_real_worker(celery_worker: str) -> None:
    result = ping.delay()

    assert result.get(timeout=30) == "pong"
    assert result.worker == celery_worker  # answered by the worker process, not in-process


def test_tasks_are_never_run_eagerly() -> None:
    assert app.conf.task_always_eager is False
