"""Project wiring: settings, URLs, the Celery app and the one error shape; no domain logic."""

from cya_site.celery import app as celery_app

__all__ = ["celery_app"]
