"""Outgoing, signed result notifications for organisers' systems (Discord bots, sites).

Each event becomes one ``Delivery`` per active webhook of the competition, sent after
the change commits by a task that retries with backoff. Requests are signed like the
bot protocol's: ``X-CYA-Signature: sha256=<HMAC-SHA256 of "<timestamp>.<body>">`` under
the webhook's secret, with ``X-CYA-Timestamp``, ``X-CYA-Event`` and ``X-CYA-Delivery``.
They go through ``cya_site.outbound``'s client, which reaches only allowed addresses, and
a failed attempt records no more than ``outbound.failure`` says.
"""

from __future__ import annotations

import json
import time
from typing import Any, cast

import httpx
from celery import Task, signature
from django.utils import timezone

from bots.webhook import sign
from cya_site import dispatch, outbound
from games.models import Game
from tournaments.models import Competition, Delivery, Result, Webhook

TIMEOUT_SECONDS = 10
# tournaments.tasks runs ``deliver``, so its task is sent by name: importing it here would
# close an import cycle (tests/test_import_cycles.py)
DELIVER = "tournaments.deliver"


def publish(competition: Competition, event: str, payload: dict[str, Any]) -> list[Delivery]:
    """Queue one delivery per active webhook; they are sent after the commit."""
    deliveries = [
        Delivery.objects.create(webhook=hook, event=event, payload=payload)
        for hook in Webhook.objects.filter(competition=competition, is_active=True)
    ]
    if deliveries:
        deliver = cast(Task[Any, Any], signature(DELIVER))  # a Task's apply_async
        for delivery in deliveries:  # a broker that cannot take them loses the notice only
            dispatch.send_on_commit(deliver, (delivery.pk,))
    return deliveries


def result_ready(competition: Competition, game: Game) -> list[Delivery]:
    """A game now counts: tell the organiser's webhooks its result."""
    rows = Result.objects.filter(competition=competition, game=game, valid_to__isnull=True)
    payload = {
        "competition": competition.pk,
        "game": game.pk,
        "results": [
            {
                "competitor": r.competitor_id,
                "name": r.competitor.name,
                "place": r.place,
                "dollars": r.dollars,
                "won": r.won,
            }
            for r in rows.select_related("competitor").order_by("place")
        ],
    }
    return publish(competition, "game.result", payload)


def deliver(delivery: Delivery) -> bool:
    """Send a delivery once; True when the endpoint answered 2xx."""
    body = json.dumps(
        {"event": delivery.event, "delivery": delivery.pk, "data": delivery.payload},
        separators=(",", ":"),
    ).encode()
    timestamp = str(int(time.time()))
    headers = {
        "Content-Type": "application/json",
        "X-CYA-Event": delivery.event,
        "X-CYA-Delivery": str(delivery.pk),
        "X-CYA-Timestamp": timestamp,
        "X-CYA-Signature": sign(delivery.webhook.secret, timestamp, body),
    }
    delivery.attempts += 1
    try:
        with outbound.client() as http:
            response = http.post(
                delivery.webhook.url, content=body, headers=headers, timeout=TIMEOUT_SECONDS
            )
    except httpx.HTTPError as error:
        delivery.error = outbound.failure(error)
        delivery.save(update_fields=["attempts", "error"])
        return False
    delivery.status_code = response.status_code
    ok = 200 <= response.status_code < 300
    delivery.error = "" if ok else f"HTTP {response.status_code}"
    if ok:
        delivery.delivered_at = timezone.now()
    delivery.save(update_fields=["attempts", "status_code", "error", "delivered_at"])
    return ok
