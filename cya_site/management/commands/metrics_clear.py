"""``manage.py metrics_clear``: empty PROMETHEUS_MULTIPROC_DIR before the processes start."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError

from cya_site import metrics


class Command(BaseCommand):
    help = (
        "Empty PROMETHEUS_MULTIPROC_DIR of the last run's metric files. Run it once before "
        "starting gunicorn, uvicorn and the Celery worker (e.g. systemd's ExecStartPre)."
    )

    def handle(self, *args: Any, **options: Any) -> None:
        """Refuse without the variable: clearing nothing would hide a misconfiguration."""
        if not metrics.MULTIPROCESS_DIR:
            raise CommandError(
                "PROMETHEUS_MULTIPROC_DIR is not set: metrics are kept in each process, "
                "and there is nothing to clear."
            )
        removed = metrics.clear_multiprocess_dir(metrics.MULTIPROCESS_DIR)
        self.stdout.write(f"Removed {removed} file(s) from {metrics.MULTIPROCESS_DIR}.")
