"""A webhook bot reaches only allowed addresses (cya_site.outbound, docs/bot-protocol.md).

A version whose URL leads to this machine, its network or nowhere is refused when it is
created, with nothing stored and no validation queued; and a version whose name has come
to resolve to such an address since is refused again whenever the platform would call
it, before any connection, with only "address not allowed" in its log and strikes.
Production's policy (no allowed networks) is set where a test depends on it; host names
resolve through the suite's ``hosts`` table and never through DNS.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from pytest_django import DjangoCaptureOnCommitCallbacks, Settings
from rest_framework.test import APIClient

from accounts.models import User
from bots import runner, services, tasks, timecontrol
from bots.models import Bot, BotVersion, Match, Strike
from bots.validation import builtin_versions
from tests.bots.bot_servers import SECRET, webhook_version
from tests.bots.checks import control_of, quick

REFUSED = {
    "loopback": ("http://127.0.0.1:9001/bot", "webhook_address_refused"),
    "a private address": ("http://10.0.0.7:8080/bot", "webhook_address_refused"),
    "the cloud metadata service": ("http://169.254.169.254/latest/", "webhook_address_refused"),
    "IPv6 unique local": ("http://[fd00::7]/bot", "webhook_address_refused"),
    "a name of a private address": ("https://internal.example.test/", "webhook_address_refused"),
    "a name of nothing": ("https://nowhere.example.test/bot", "webhook_host_not_found"),
    "another scheme": ("ftp://bot.example.test/bot", "invalid"),
    "a user and password": ("https://alice:pw@bot.example.test/bot", "invalid"),
}


@pytest.fixture
def entry(alice: User) -> Bot:
    """Alice's webhook bot, with no version yet."""
    return services.bot_create(owner=alice, name="alices-bot", kind=Bot.Kind.WEBHOOK)


@pytest.fixture
def production(settings: Settings, hosts: dict[str, list[str]]) -> dict[str, list[str]]:
    """Production's policy (no allowed networks), and names of a public and a private
    address; returns the hosts table."""
    settings.WEBHOOK_ALLOWED_NETWORKS = []
    hosts["bot.example.test"] = ["8.8.8.8"]
    hosts["internal.example.test"] = ["10.1.2.3"]
    return hosts


@pytest.mark.parametrize(("url", "code"), REFUSED.values(), ids=REFUSED.keys())
@pytest.mark.usefixtures("production")
def test_a_version_whose_url_is_refused_is_neither_stored_nor_validated(
    url: str,
    code: str,
    entry: Bot,
    alice: User,
    api_as: Callable[[User], APIClient],
    django_capture_on_commit_callbacks: DjangoCaptureOnCommitCallbacks,
) -> None:
    with django_capture_on_commit_callbacks() as queued:
        response = api_as(alice).post(
            f"/api/v1/bots/{entry.pk}/versions/", {"url": url, "secret": SECRET, "tag": "v1"}
        )

    assert response.status_code == 422, response.content
    body: dict[str, Any] = response.json()
    assert (body["code"], body["details"]) == (code, {"field": "url"})
    assert "10.1.2.3" not in response.content.decode()  # never says where a name leads
    assert not BotVersion.objects.filter(bot=entry).exists()
    assert queued == []  # no validation task


@pytest.mark.usefixtures("production")
def test_a_version_at_a_public_address_is_stored_and_its_validation_queued(
    entry: Bot,
    alice: User,
    api_as: Callable[[User], APIClient],
    django_capture_on_commit_callbacks: DjangoCaptureOnCommitCallbacks,
) -> None:
    with django_capture_on_commit_callbacks() as queued:  # kept, never run: nothing is called
        response = api_as(alice).post(
            f"/api/v1/bots/{entry.pk}/versions/",
            {"url": "https://bot.example.test/cya", "secret": SECRET, "tag": "v1"},
        )

    assert response.status_code == 201, response.content
    assert BotVersion.objects.get(bot=entry).url == "https://bot.example.test/cya"
    assert len(queued) == 1


def test_validation_of_a_version_whose_name_now_leads_inside_fails_without_connecting(
    entry: Bot, alice: User, production: dict[str, list[str]], connections: list[str]
) -> None:
    version = services.version_create(
        bot=entry, by=alice, url="http://bot.example.test:8080/bot", secret=SECRET
    )
    production["bot.example.test"] = ["10.0.0.7"]  # DNS answers otherwise since

    assert tasks.validate_version(version.pk) == BotVersion.Status.FAILED

    version.refresh_from_db()
    assert version.validation_log == ["handshake failed (connection_error): address not allowed"]
    assert not Match.objects.filter(entries__version=version).exists()
    assert "10.0.0.7" not in connections


def test_decisions_to_a_name_that_now_leads_inside_are_struck_without_connecting(
    alice: User, hosts: dict[str, list[str]], connections: list[str]
) -> None:
    hosts["bot.example.test"] = ["169.254.169.254"]
    version = webhook_version(alice, "rebound", "http://bot.example.test:8080/bot")
    random_builtin = next(v for v in builtin_versions() if v.strategy == "random")
    match = services.match_create(
        versions=[version, random_builtin], rules=quick(2), seed=3, duplicate=False
    )

    runner.run_match(match)

    strikes = Strike.objects.filter(control=control_of(match, version.pk))
    assert {(s.reason, s.detail) for s in strikes} == {("connection_error", "address not allowed")}
    assert strikes.count() == timecontrol.MAX_STRIKES
    assert "169.254.169.254" not in connections
