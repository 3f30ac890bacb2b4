"""What waits in each queue (cya_site.backlog, issue 25): depth and the oldest task's age,
on Redis and on the embedded filesystem broker; and ``manage.py status`` telling workers
too busy to take the sweeps apart from a beat that does not send them."""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Iterator
from datetime import datetime, timedelta
from pathlib import Path

import pytest
import redis
from django.utils import timezone
from pytest_django import Settings

from bots import services
from bots.models import Match
from bots.validation import builtin_versions
from cya_site import backlog, health, status
from cya_site.celery import app


@pytest.fixture
def lonely_queue(settings: Settings) -> Iterator[str]:
    """A queue of the test's own that no worker takes; removed afterwards."""
    name = f"test-backlog-{uuid.uuid4().hex[:12]}"
    yield name
    redis.Redis.from_url(settings.REDIS_URL).delete(name)


def test_a_redis_queue_tells_its_depth_and_how_long_its_oldest_task_has_waited(
    lonely_queue: str,
) -> None:
    app.send_task("cya_site.ping", queue=lonely_queue)
    time.sleep(1.2)
    app.send_task("cya_site.ping", queue=lonely_queue)

    (found,) = backlog.backlogs([lonely_queue])

    assert found.depth == 2
    assert found.oldest_seconds is not None
    assert 1.0 <= found.oldest_seconds < 60  # the first one sent, not the last


def test_an_empty_queue_has_no_oldest_task(lonely_queue: str) -> None:
    assert backlog.backlogs([lonely_queue]) == [backlog.Backlog(lonely_queue, 0, None)]


def test_the_filesystem_broker_s_queues_are_read_from_its_folder(
    settings: Settings, tmp_path: Path
) -> None:
    settings.REDIS_URL = ""
    settings.CELERY_BROKER_TRANSPORT_OPTIONS = {"data_folder_in": str(tmp_path)}
    sent = time.time() - 42
    for number, queue in ((1, "batch"), (2, "interactive"), (3, "batch")):
        message = {"headers": {backlog.SENT_AT_HEADER: sent + number}, "body": ""}
        (tmp_path / f"{number:020d}_{uuid.uuid4()}.{queue}.msg").write_text(json.dumps(message))

    found = {b.queue: b for b in backlog.backlogs(["batch", "interactive", "outbound"])}

    assert found["batch"].depth == 2
    assert found["batch"].oldest_seconds == pytest.approx(41, abs=1)
    assert found["interactive"].depth == 1
    assert found["outbound"] == backlog.Backlog("outbound", 0, None)


def test_readiness_lists_every_routed_queue() -> None:
    checked = health.check_queues()["queues"]

    assert set(checked) == {"interactive", "batch", "outbound"}
    assert all({"depth", "oldest_seconds"} <= set(found) for found in checked.values())


def readiness_with(queues: dict[str, dict[str, float | int | None]]) -> health.Result:
    """A readiness answer whose checks pass, with these queues."""
    return {
        "status": "ok",
        "checks": {"database": {"ok": True}, "queues": {"ok": True, "queues": queues}},
    }


def problems(now: datetime, checks: health.Result) -> dict[str, str]:
    return {p["code"]: p["message"] for p in status.site_status(now, checks=checks)["problems"]}


@pytest.mark.django_db
def test_busy_workers_are_told_apart_from_a_missing_beat() -> None:
    match = services.match_create(versions=builtin_versions()[:2], duplicate=False)
    Match.objects.filter(pk=match.pk).update(dispatched_at=timezone.now() - timedelta(hours=1))
    now = timezone.now()
    busy = readiness_with({"interactive": {"depth": 85, "oldest_seconds": 400.0}})
    quiet = readiness_with({"interactive": {"depth": 0, "oldest_seconds": None}})

    when_busy, when_quiet = problems(now, busy), problems(now, quiet)

    assert "wait on interactive behind 85 tasks" in when_busy["work_not_resent"]
    assert "is beat running?" not in when_busy["work_not_resent"]
    assert "85 tasks wait on interactive" in when_busy["interactive_backlog"]
    assert when_quiet["work_not_resent"].endswith("is beat running?")
    assert "interactive_backlog" not in when_quiet
