"""The Celery app, configured from Django settings under the ``CELERY_`` namespace."""

import os
from typing import Any

from celery import Celery, Task
from celery.signals import task_postrun, task_prerun, worker_process_init

from cya_site import kombu_fixes

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
