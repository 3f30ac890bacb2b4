"""Infrastructure tasks that belong to no app."""

from celery import shared_task
from django.db import connection


@shared_task(name="cya_site.ping", ignore_result=False, time_limit=10, soft_time_limit=5)
def ping() -> str:
    """Answer "pong" once the worker has reached its database: a liveness probe."""
    connection.ensure_connection()
    return "pong"
