"""The Celery app, configured from Django settings under the ``CELERY_`` namespace."""

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "cya_site.settings")

# cya_site is not an installed app, so its infrastructure tasks are included by name.
app = Celery("cya_site", include=["cya_site.tasks"])
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
