"""Queues by latency class (cya_site.queues): every task is routed in settings, bots' moves
at people's tables and deadlines apart from the ladder, clubs' webhooks apart from both."""

from __future__ import annotations

from django.conf import settings

from cya_site import queues
from cya_site.celery import app


def _own_tasks() -> set[str]:
    app.loader.import_default_modules()
    return {name for name in app.tasks if not name.startswith("celery.")}


def test_every_task_has_a_latency_class_and_every_class_a_task() -> None:
    assert set(queues.TASK_CLASSES) == _own_tasks()
    assert set(queues.TASK_CLASSES.values()) == set(queues.CLASSES)


def test_settings_route_people_s_work_batch_work_and_webhooks_to_separate_queues() -> None:
    routes = settings.CELERY_TASK_ROUTES
    queue = {name: route["queue"] for name, route in routes.items()}

    assert queue["bots.play_turn"] == queue["games.enforce_deadline"] == "interactive"
    # a new version's handshake (its author waits), then its validation game (nobody does)
    assert queue["bots.handshake"] == "interactive"
    assert queue["bots.play_match"] == queue["bots.validate_version"] == "batch"
    assert queue["tournaments.deliver"] == "outbound"


def test_a_queue_prefix_keeps_sites_sharing_a_broker_apart() -> None:
    assert queues.routes("site-b.")["bots.play_turn"] == {"queue": "site-b.interactive"}
    assert queues.queues("site-b.") == ["site-b.interactive", "site-b.batch", "site-b.outbound"]


def test_a_batch_worker_leaves_a_core_to_people_s_work_by_default() -> None:
    assert [queues.batch_concurrency(cores) for cores in (1, 2, 4, 16)] == [1, 1, 3, 15]
    assert queues.batch_concurrency() >= 1  # this machine's
