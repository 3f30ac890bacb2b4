"""gunicorn's settings for the platform: ``gunicorn -c python:cya_site.gunicorn_conf ...``.

Only what metrics need (cya_site.metrics): a worker that exits has its live gauges
dropped from PROMETHEUS_MULTIPROC_DIR. Everything else stays on the command line.
"""

from __future__ import annotations

from typing import Any


def child_exit(server: Any, worker: Any) -> None:
    """gunicorn's hook, in the arbiter, once a worker process has exited."""
    from cya_site import metrics

    metrics.process_exited(worker.pid)
