"""What waits in each Celery queue: how many tasks, and how long the oldest has waited.

Read at the moment of asking (``/metrics``, ``/readyz``, ``manage.py status``), from the
broker itself. Every task carries the time it was sent (``SENT_AT_HEADER``, stamped by
cya_site.celery as it is published): with Redis a queue is a list whose oldest message
is its last element; the embedded filesystem broker keeps one file per message, whose
sequence number orders them (cya_site.broker) and whose time is when it was written.
A worker that is busy shows as work that waits on its queue; beat that is missing shows
as periodic work that is never sent (cya_site.status tells the two apart).
"""

from __future__ import annotations

import json
import logging
import time
from pathlib import Path
from typing import Any, NamedTuple

import redis
from django.conf import settings

log = logging.getLogger(__name__)
SENT_AT_HEADER = "cya_sent_at"  # epoch seconds, set on every task as it is published
UNKNOWN = -1  # the depth of a queue whose broker did not answer


class Backlog(NamedTuple):
    """One queue: its waiting tasks (UNKNOWN when the broker did not answer), and the
    seconds its oldest task has waited (None when empty, or not known)."""

    queue: str
    depth: int
    oldest_seconds: float | None

    def as_json(self) -> dict[str, Any]:
        return {"depth": self.depth, "oldest_seconds": self.oldest_seconds}


def queue_names() -> list[str]:
    """The queues the settings route tasks to (cya_site.queues), and the default one."""
    routed = {route["queue"] for route in settings.CELERY_TASK_ROUTES.values()}
    return sorted(routed | {settings.CELERY_TASK_DEFAULT_QUEUE})


def backlogs(names: list[str] | None = None) -> list[Backlog]:
    """Each queue's backlog, now."""
    names = queue_names() if names is None else names
    now = time.time()
    if settings.REDIS_URL:
        return _from_redis(names, now)
    folder = Path(settings.CELERY_BROKER_TRANSPORT_OPTIONS["data_folder_in"])
    return [_from_folder(folder, name, now) for name in names]


def _from_redis(names: list[str], now: float) -> list[Backlog]:
    client = redis.Redis.from_url(settings.REDIS_URL, socket_timeout=1, socket_connect_timeout=1)
    try:
        with client.pipeline(transaction=False) as pipe:
            for name in names:
                pipe.llen(name)
                pipe.lindex(name, -1)  # kombu pushes on the left and takes from the right
            answers = pipe.execute()
    except redis.RedisError as error:
        log.warning("queues: Redis did not answer: %s", error)
        return [Backlog(name, UNKNOWN, None) for name in names]
    finally:
        client.close()
    return [
        Backlog(name, int(depth), _age(_sent_at(oldest), now))
        for name, depth, oldest in zip(names, answers[::2], answers[1::2], strict=True)
    ]


def _from_folder(folder: Path, name: str, now: float) -> Backlog:
    """A filesystem broker's queue: its message files, the oldest first by name."""
    files = sorted(folder.glob(f"*.{name}.msg")) if folder.is_dir() else []
    if not files:
        return Backlog(name, 0, None)
    try:
        sent = _sent_at(files[0].read_bytes()) or files[0].stat().st_mtime
    except OSError:  # taken by a worker meanwhile
        sent = None
    return Backlog(name, len(files), _age(sent, now))


def _sent_at(message: bytes | None) -> float | None:
    """When a broker's message was sent, from its headers; None if it does not say."""
    if not message:
        return None
    try:
        value = json.loads(message).get("headers", {}).get(SENT_AT_HEADER)
    except (ValueError, AttributeError):
        return None
    return float(value) if isinstance(value, int | float) else None


def _age(sent: float | None, now: float) -> float | None:
    return None if sent is None else round(max(0.0, now - sent), 1)
