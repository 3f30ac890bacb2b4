"""Rate limits: the client's limit and the endpoint's scope, each a counter per window.

Every test runs on the real Redis cache (with its own key prefix, tests/conftest.py)
unless it switches to the in-process cache on purpose. The rates are per hour, so that no
test straddles the end of a window.
"""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import Callable
from typing import Any

import pytest
from asgiref.sync import async_to_sync, sync_to_async
from pytest_django import Settings
from rest_framework.test import APIClient

from accounts.models import User
from cya_site import throttling
from cya_site.throttling import parse_rate

Clients = Callable[[User], APIClient]


def rates(settings: Settings, **overrides: str) -> None:
    """Set some DRF throttle rates for this test (the rest keep their values)."""
    framework: dict[str, Any] = dict(settings.REST_FRAMEWORK)
    framework["DEFAULT_THROTTLE_RATES"] = {**framework["DEFAULT_THROTTLE_RATES"], **overrides}
    settings.REST_FRAMEWORK = framework


def test_rates_are_read_in_drfs_notation() -> None:
    assert parse_rate("120/min") == (120, 60)
    assert parse_rate("10/s") == (10, 1)
    assert parse_rate("1000/day") == (1000, 86400)
    assert parse_rate("5/hour") == (5, 3600)


def test_a_users_limit_counts_requests_to_every_endpoint(
    settings: Settings, alice: User, api_as: Clients
) -> None:
    rates(settings, user="3/hour")
    client = api_as(alice)

    statuses = [
        client.get("/api/v1/auth/me/").status_code,
        client.get("/api/v1/tokens/").status_code,
        client.get("/api/v1/games/").status_code,
    ]
    refused = client.get("/api/v1/auth/me/")

    assert statuses == [200, 200, 200]
    assert refused.status_code == 429
    assert refused.json()["code"] == "throttled"
    assert 1 <= int(refused["Retry-After"]) <= 3600


def test_each_user_has_a_limit_of_their_own(
    settings: Settings, alice: User, bob: User, api_as: Clients
) -> None:
    rates(settings, user="1/hour")
    first = api_as(alice)

    assert first.get("/api/v1/auth/me/").status_code == 200
    assert first.get("/api/v1/auth/me/").status_code == 429
    assert api_as(bob).get("/api/v1/auth/me/").status_code == 200


def test_an_endpoints_scope_limits_it_beneath_the_users_limit(
    settings: Settings, alice: User, api_as: Clients
) -> None:
    rates(settings, user="100/hour", auth="2/hour")
    client = api_as(alice)
    login = {"username": "alice", "password": "wrong"}

    tries = [client.post("/api/v1/auth/login/", login).status_code for _ in range(3)]

    assert tries == [422, 422, 429]
    assert client.get("/api/v1/auth/me/").status_code == 200  # other endpoints still answer


def test_anonymous_clients_are_limited_by_address(
    settings: Settings, api: APIClient, db: None
) -> None:
    rates(settings, anon="2/hour")

    here = [api.get("/api/v1/games/", REMOTE_ADDR="10.0.0.1").status_code for _ in range(3)]
    elsewhere = api.get("/api/v1/games/", REMOTE_ADDR="10.0.0.2")

    assert here == [200, 200, 429]
    assert elsewhere.status_code == 200


@pytest.mark.parametrize("backend", ["django.core.cache.backends.locmem.LocMemCache"])
def test_limits_hold_without_redis(
    settings: Settings, alice: User, api_as: Clients, backend: str
) -> None:
    settings.CACHES = {"default": {"BACKEND": backend, "LOCATION": "throttle-test"}}
    rates(settings, user="2/hour")
    client = api_as(alice)

    statuses = [client.get("/api/v1/auth/me/").status_code for _ in range(3)]

    assert statuses == [200, 200, 429]


def test_requests_served_in_contexts_of_their_own_count_through_one_cache_object() -> None:
    """Under the ASGI server each request is an async context of its own, for which
    Django makes a cache object afresh (``caches["default"]``): the counters use one per
    process, not one (and its Redis client) per request."""

    async def in_a_context_of_its_own() -> object:
        return await sync_to_async(throttling._counting_cache, thread_sensitive=False)()

    first, second = (async_to_sync(in_a_context_of_its_own)() for _ in range(2))

    assert first is second
    key = f"test:one-cache:{uuid.uuid4().hex}"
    assert throttling._count([(key, 60), (key, 60)]) == [1, 2]  # and it counts


def test_a_crowd_counted_on_the_event_loop_at_once_is_counted_whole(settings: Settings) -> None:
    """A lean answer counts on the event loop (``anonymous_spent``): two hundred and fifty
    at once, more than redis-py's pool of a hundred connections, are all counted, on the
    counters the API's own limits use; past the rate, refused."""
    rates(settings, anon="100000/hour", wait="240/hour")
    address = f"10.9.{uuid.uuid4().int % 250}.{uuid.uuid4().int % 250}"

    async def crowd() -> list[float | None]:
        try:
            return await asyncio.gather(
                *(throttling.anonymous_spent(address, "wait") for _ in range(250))
            )
        finally:
            await throttling._loop_counts[asyncio.get_running_loop()].close()

    verdicts = asyncio.run(crowd())
    key = next(w.key for w in throttling._windows(f"ip:{address}", ["wait"], time.time()))

    assert verdicts.count(None) == 240
    assert all(0 < wait <= 3600 for wait in verdicts if wait is not None)
    assert throttling._count([(key, 3600)]) == [251]  # and the view's counting goes on
