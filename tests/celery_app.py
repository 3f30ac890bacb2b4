"""The Celery app of test workers: cya_site's app, kept on one test session's queue.

A worker started with ``--app tests.celery_app`` consumes ``CYA_TEST_QUEUE`` (given with
``--queues``) and, unlike ``--app cya_site``, also sends the tasks its tasks start there
(``bots.schedule_ladder`` sends ``bots.play_match``): on the routed queues they would be
lost to the test, or taken by another session's worker against its own database.

``CYA_TEST_VISIBILITY_TIMEOUT`` (seconds), if set, makes the broker redeliver a task
whose worker died after that long instead of the production hour, so a test can kill a
worker and watch its task come back. Unacknowledged tasks are then tracked under keys of
the queue's own, so the quick sweep never touches another session's tasks.
"""

import os

from cya_site.celery import app

queue = os.environ["CYA_TEST_QUEUE"]
app.conf.task_default_queue = queue
# every latency class on the one queue too: the settings' routes (cya_site.queues) name
# queues every session shares
app.conf.task_routes = {}
visibility_timeout = os.environ.get("CYA_TEST_VISIBILITY_TIMEOUT")
if visibility_timeout:
    app.conf.broker_transport_options = {
        "visibility_timeout": float(visibility_timeout),
        "unacked_key": f"{queue}.unacked",
        "unacked_index_key": f"{queue}.unacked_index",
        "unacked_mutex_key": f"{queue}.unacked_mutex",
        "unacked_mutex_expire": 5,  # a worker killed mid-sweep must not block the next one
        "unacked_restore_interval": 1,
        "unacked_restore_throttle": 1,
    }

__all__ = ["app"]
