"""The Celery app, configured from Django settings under the ``CELERY_`` namespace."""

import os

from celery import Celery
from celery.signals import worker_process_init

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "cya_site.settings")

# cya_site is not an installed app, so its infrastructure tasks are included by name.
app = Celery("cya_site", include=["cya_site.tasks"])
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


@worker_process_init.connect
def _ready_to_work(**kwargs: object) -> None:
    """Each pool process, once forked: freeze start-up's objects (cya_site.startup)."""
    from cya_site.startup import ready_to_serve

    ready_to_serve()
