"""The Celery app, configured from Django settings under the ``CELERY_`` namespace."""

import os
import time
from collections.abc import Callable
from typing import Any

from celery import Celery, Task
from celery.signals import (
    before_task_publish,
    task_postrun,
    task_prerun,
    worker_process_init,
    worker_process_shutdown,
)

from cya_site import backlog, kombu_fixes, metrics, tracing

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "cya_site.settings")
# A worker must outlive a Redis restart (docs/operations.md, "Operations: faults").
kombu_fixes.apply()

# cya_site is not an installed app, so its infrastructure tasks are included by name.
app = Celery("cya_site", include=["cya_site.tasks"])
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


@task_prerun.connect
@task_postrun.connect
def _close_old_connections(task: Task[Any, Any], **kwargs: Any) -> None:
    """Drop connections that are broken or past CONN_MAX_AGE, as Django does per request.

    Workers keep their connections across tasks (CELERY_DB_REUSE_MAX): this is what
    keeps one from outliving its age, or a broken one from reaching the next task. An
    eager task runs inside its caller, whose connection is the caller's business.
    """
    if task.request.is_eager:
        return
    from django.db import close_old_connections

    close_old_connections()


@worker_process_init.connect
def _ready_to_work(**kwargs: Any) -> None:
    """Each pool process, once forked: load every view and freeze start-up's objects out
    of the collector's way (cya_site.startup; about 2 ms per ladder game otherwise)."""
    from cya_site.startup import ready_to_serve

    ready_to_serve()


# --- tracing and metrics (cya_site.tracing, cya_site.metrics) -----------------------------
REQUEST_ID_HEADER = "cya_request_id"
# task id -> (start, restore the previous request id); one entry per task running here
_running: dict[str, tuple[float, Callable[[], None]]] = {}


@before_task_publish.connect
def _send_request_id(headers: dict[str, Any] | None = None, **kwargs: Any) -> None:
    """A task sent while serving a request carries that request's id in its headers, so
    its log lines find the request that caused them; every task carries when it was
    sent, so the queues tell how long their oldest task has waited (cya_site.backlog)."""
    if headers is None:
        return
    headers[backlog.SENT_AT_HEADER] = time.time()
    request_id = tracing.current()
    if request_id:
        headers.setdefault(REQUEST_ID_HEADER, request_id)


@task_prerun.connect
def _task_started(task_id: str, task: Task[Any, Any], **kwargs: Any) -> None:
    """Log under the sending request's id (the task's own id if none came), and time it.
    An eager task runs inside its caller and keeps the caller's id."""
    sent = getattr(task.request, REQUEST_ID_HEADER, None)
    if task.request.is_eager and tracing.current():
        restore: Callable[[], None] = _nothing
    else:
        restore = tracing.bind(tracing.sane(sent) or task_id)
    _running[task_id] = (time.perf_counter(), restore)


@task_postrun.connect
def _task_ended(
    task_id: str, task: Task[Any, Any], state: str | None = None, **kwargs: Any
) -> None:
    """The task's run time, by name and final state; its request id is let go."""
    started = _running.pop(task_id, None)
    if started is None:
        return
    began, restore = started
    metrics.TASK_SECONDS.labels(task.name, state or "UNKNOWN").observe(time.perf_counter() - began)
    restore()


def _nothing() -> None:
    return None


@worker_process_shutdown.connect
def _process_exited(pid: int | None = None, **kwargs: Any) -> None:
    """A pool process leaving drops its live gauges from the multiprocess files."""
    metrics.process_exited(pid or os.getpid())
