"""A club's result webhook reaches only allowed addresses (cya_site.outbound).

A URL leading to this machine, its network or nowhere is refused when an organiser
subscribes it, with nothing stored; a delivery to a name that has come to resolve to such
an address since is refused before any connection, and its record says no more than
"address not allowed". Redirects are never followed. Host names resolve through the
suite's ``hosts`` table, never through DNS.
"""

from __future__ import annotations

from typing import Any

import pytest
from pytest_django import Settings
from rest_framework.test import APIClient

from accounts.models import User
from tests.bots.bot_servers import BotServer, Reply, free_port, good_bot, running
from tests.clients import authenticate
from tests.tournaments.conftest import Club
from tests.tournaments.receiver import SECRET
from tournaments import notifications
from tournaments.models import ChangeLog, Delivery, Webhook

REFUSED = {
    "loopback": ("http://127.0.0.1:8000/hooks", "webhook_address_refused"),
    "a private address": ("http://192.168.1.20/hooks", "webhook_address_refused"),
    "the cloud metadata service": ("http://169.254.169.254/", "webhook_address_refused"),
    "a name of a private address": ("https://internal.example.test/", "webhook_address_refused"),
    "a name of nothing": ("https://nowhere.example.test/hooks", "webhook_host_not_found"),
    "another scheme": ("ftp://club.example.test/hooks", "invalid"),
    "a user and password": ("https://olga:pw@club.example.test/hooks", "invalid"),
}


@pytest.fixture
def organiser(olga: User) -> APIClient:
    """An API client signed in as olga, who organises the club."""
    client = APIClient()
    authenticate(client, olga)
    return client


def delivery_to(club: Club, olga: User, url: str) -> Delivery:
    """A result delivery queued for a webhook at ``url`` (stored as registered before)."""
    hook = Webhook.objects.create(
        competition=club.competition, url=url, secret=SECRET, created_by=olga
    )
    return Delivery.objects.create(webhook=hook, event="game.result", payload={"game": 1})


@pytest.mark.parametrize(("url", "code"), REFUSED.values(), ids=REFUSED.keys())
def test_a_webhook_whose_url_is_refused_is_not_stored(
    url: str,
    code: str,
    club: Club,
    organiser: APIClient,
    settings: Settings,
    hosts: dict[str, list[str]],
) -> None:
    settings.WEBHOOK_ALLOWED_NETWORKS = []  # production's policy
    hosts["club.example.test"] = ["8.8.8.8"]
    hosts["internal.example.test"] = ["10.1.2.3"]

    response = organiser.post(f"/api/v1/competitions/{club.competition.pk}/webhooks/", {"url": url})

    assert response.status_code == 422, response.content
    body: dict[str, Any] = response.json()
    assert (body["code"], body["details"]) == (code, {"field": "url"})
    assert "10.1.2.3" not in response.content.decode()
    assert not Webhook.objects.exists()
    assert not ChangeLog.objects.filter(action="webhook_added").exists()


def test_a_delivery_to_a_name_that_now_leads_inside_is_refused_without_connecting(
    club: Club, olga: User, hosts: dict[str, list[str]], connections: list[str]
) -> None:
    hosts["club.example.test"] = ["10.0.0.7"]
    delivery = delivery_to(club, olga, "https://club.example.test/hooks")

    assert notifications.deliver(delivery) is False

    delivery.refresh_from_db()
    assert (delivery.attempts, delivery.status_code, delivery.error) == (
        1,
        None,
        "address not allowed",
    )
    assert connections == []


def test_a_delivery_to_an_allowed_address_where_nothing_listens_is_only_unreachable(
    club: Club, olga: User
) -> None:
    delivery = delivery_to(club, olga, f"http://127.0.0.1:{free_port()}/hooks")

    assert notifications.deliver(delivery) is False

    delivery.refresh_from_db()
    assert delivery.error == "unreachable"  # never "Connection refused"


def test_a_redirect_answering_a_delivery_is_a_failure_and_is_never_followed(
    club: Club, olga: User
) -> None:
    target = good_bot("elsewhere")
    with running(target):
        redirecting = BotServer("redirecting", lambda bot, data: Reply(302, location=target.url))
        with running(redirecting):
            delivery = delivery_to(club, olga, redirecting.url)
            assert notifications.deliver(delivery) is False

    delivery.refresh_from_db()
    assert (delivery.status_code, delivery.error, delivery.delivered_at) == (302, "HTTP 302", None)
    assert [r.method for r in redirecting.requests] == ["POST"]
    assert target.requests == []
