"""One Redis connection pool per process for the cache (cya_site.caches): Django makes a
cache object per async context, so under the ASGI server each request made its own pool
and connection before."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from django.conf import settings
from django.core.cache import caches

from cya_site.caches import SharedConnectionPool

pytestmark = pytest.mark.skipif(not settings.REDIS_URL, reason="the cache is Redis only with it")


def _pool() -> Any:
    cache: Any = caches["default"]
    return cache._cache._get_connection_pool(write=True)


def test_requests_in_their_own_contexts_share_one_pool_and_connection() -> None:
    async def request() -> tuple[int, Any, int]:  # as the ASGI handler runs each request
        cache = caches["default"]
        cache.set("caches-test", 1, 5)
        pool = _pool()
        return id(cache), pool, pool._created_connections

    first, second = asyncio.run(request()), asyncio.run(request())

    assert first[0] != second[0]  # Django made a cache object per context...
    assert first[1] is second[1]  # ...over the same pool
    assert isinstance(first[1], SharedConnectionPool)
    assert second[2] == first[2]  # and the second request took no new connection


def test_a_pool_is_shared_only_for_the_same_url_and_options() -> None:
    url = settings.REDIS_URL
    assert SharedConnectionPool.from_url(url, socket_timeout=1) is SharedConnectionPool.from_url(
        url, socket_timeout=1
    )
    assert SharedConnectionPool.from_url(url, socket_timeout=1) is not (
        SharedConnectionPool.from_url(url, socket_timeout=2)
    )
