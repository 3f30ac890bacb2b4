"""One Redis connection pool per process for Django's cache, however many cache objects.

Django makes its cache objects per async context (``django.core.cache.caches`` is not
thread-critical), and each ``RedisCache`` makes its own client and connection pool. Under
the ASGI server every request is a context of its own, so every request opened a new
Redis connection for the throttle's counters, and redis-py read its own version from the
installed packages' metadata for each: 45% of the CPU of an anonymous long-poll, most of
its cost (benchmarks/live.py's crowd). The settings name ``SharedConnectionPool`` as the
cache's ``pool_class``: the pools are made once per URL and options, and kept.
"""

from __future__ import annotations

import threading
from typing import Any

import redis

_shared: dict[tuple[str, str], SharedConnectionPool] = {}
_making = threading.Lock()


class SharedConnectionPool(redis.ConnectionPool):
    """A ``redis.ConnectionPool`` whose ``from_url`` answers the same pool for the same
    URL and options, process-wide (redis-py resets a pool in a forked child itself)."""

    @classmethod
    def from_url(cls, url: str, **kwargs: Any) -> SharedConnectionPool:
        key = (url, repr(sorted(kwargs.items())))
        with _making:
            pool = _shared.get(key)
            if pool is None:
                pool = _shared[key] = super().from_url(url, **kwargs)
            return pool
