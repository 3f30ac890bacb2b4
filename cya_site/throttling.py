"""Request rate limits: every limit that applies to a request, counted in one round trip.

DRF's own throttles keep a list of every request's timestamp per client and rewrite it
whole on every request: at the 6000/min a busy bot may use, that is a 6000-entry list
read and written twice per request (the user's limit and the endpoint's). Here each limit
is a counter per fixed window (``INCR`` of a key that expires with the window), and all
the limits of a request go to Redis in one pipeline.

The limits are DRF's settings: ``DEFAULT_THROTTLE_RATES`` ``anon`` for anonymous clients
(by address, see ``NUM_PROXIES``), ``user`` for signed-in ones, and the endpoint's
``throttle_scope`` rate on top. A fixed window lets a client spend up to its limit at the
end of one window and again at the start of the next; the limits are there against
runaway clients, and that slack is the price of a constant cost per request.

The limits fail open: while Redis cannot be reached, requests are not counted and are let
through (a warning is logged), so an outage of Redis costs the limits, not the site.
"""

from __future__ import annotations

import logging
import time
import weakref
from typing import TYPE_CHECKING, Any, cast

import redis
from django.conf import settings
from django.core.cache import caches
from django.core.cache.backends.base import BaseCache
from django.core.cache.backends.redis import RedisCache
from django.http import HttpRequest
from rest_framework.request import Request
from rest_framework.settings import api_settings
from rest_framework.throttling import BaseThrottle

if TYPE_CHECKING:  # rest_framework.views imports this module (through its settings)
    from rest_framework.views import APIView

log = logging.getLogger(__name__)
_SECONDS = {"s": 1, "m": 60, "h": 3600, "d": 86400}


def parse_rate(rate: str) -> tuple[int, int]:
    """``"120/min"`` as (120 requests, 60 seconds): DRF's notation."""
    count, period = rate.split("/")
    return int(count), _SECONDS[period[0]]


class RequestRateThrottle(BaseThrottle):
    """The client's limit (``anon`` or ``user``) and the endpoint's scope, if it has one."""

    def __init__(self) -> None:
        self._wait: float | None = None

    def allow_request(self, request: Request, view: APIView) -> bool:
        """Count this request against each limit; refuse it if any is spent."""
        rates = api_settings.DEFAULT_THROTTLE_RATES
        user = request.user
        if user is not None and user.is_authenticated:
            client, limits = f"user:{user.pk}", ["user"]
        else:
            client, limits = f"ip:{self.get_ident(request)}", ["anon"]
        scope = getattr(view, "throttle_scope", None)
        if scope:
            limits.append(scope)
        now = time.time()
        windows = []
        for name in limits:
            rate = rates.get(name)
            if rate is None:
                continue
            allowed, seconds = parse_rate(str(rate))
            window = int(now // seconds)
            windows.append((f"throttle:{name}:{client}:{window}", allowed, seconds, window))
        counts = _count([(key, seconds) for key, _, seconds, _ in windows])
        over = [
            (window + 1) * seconds - now
            for (_, allowed, seconds, window), count in zip(windows, counts, strict=True)
            if count > allowed
        ]
        self._wait = max(over) if over else None
        return not over

    def wait(self) -> float | None:
        """Seconds until every spent limit's window has ended (for Retry-After)."""
        return self._wait


def client_address(request: HttpRequest) -> str:
    """The client's address as every limit sees it: the peer, or with ``NUM_PROXIES``
    trusted proxies in front, the address they forwarded (DRF's ``get_ident``)."""
    return BaseThrottle().get_ident(cast(Request, request))


def page_rate_spent(request: HttpRequest, scope: str) -> float | None:
    """Count a page's attempt (a sign-in, say) against the API's ``scope`` rate for the
    client's address, on the same counters as the API: None while allowed, else the
    seconds until the window ends."""
    return rate_spent(scope, f"ip:{client_address(request)}")


def rate_spent(scope: str, who: str) -> float | None:
    """Count one more against the API's ``scope`` rate for ``who`` (a client, or the
    address a mail goes to), on the same counters as the API: None while allowed, else
    the seconds until the window ends."""
    rate = api_settings.DEFAULT_THROTTLE_RATES.get(scope)
    if rate is None:
        return None
    allowed, seconds = parse_rate(str(rate))
    now = time.time()
    window = int(now // seconds)
    (count,) = _count([(f"throttle:{scope}:{who}:{window}", seconds)])
    return (window + 1) * seconds - now if count > allowed else None


def _count(keys: list[tuple[str, int]]) -> list[int]:
    """Add one to each counter (created to expire with its window); their new values."""
    cache = _counting_cache()
    if isinstance(cache, RedisCache):
        try:
            return _count_in_redis(cache, keys)
        except redis.RedisError as error:  # fail open: uncounted, let through
            log.warning("request rates not counted (%s)", error)
            return [0] * len(keys)
    counts = []
    for key, seconds in keys:
        cache.add(key, 0, seconds + 1)
        try:
            counts.append(cache.incr(key))
        except ValueError:  # expired between the two calls: a new window
            cache.add(key, 1, seconds + 1)
            counts.append(1)
    return counts


def _count_in_redis(cache: RedisCache, keys: list[tuple[str, int]]) -> list[int]:
    """The same in one round trip: SET NX (with expiry) and INCR per counter, pipelined.
    Django's RedisCache offers no pipeline itself; its client's connection pool does."""
    pipe = _client(cache).pipeline(transaction=False)
    for key, seconds in keys:
        full = cache.make_and_validate_key(key)
        pipe.set(full, 0, ex=seconds + 1, nx=True)
        pipe.incr(full)
    return [int(n) for n in pipe.execute()[1::2]]


_caches: dict[str, BaseCache] = {}


def _counting_cache() -> BaseCache:
    """The default cache, one object per process for its settings. ``caches["default"]``
    is one per async context, and under the ASGI server every request is a context of its
    own: each made a cache object, its client and its Redis client afresh, a fifth of the
    CPU of a crowd's long-poll (a profile of uvicorn in benchmarks/live.py). Both cache
    backends the settings use are safe to share between threads (Redis through its
    connection pool, the local-memory cache under its lock)."""
    config = repr(settings.CACHES["default"])
    cache = _caches.get(config)
    if cache is None:
        cache = _caches[config] = caches.create_connection("default")
    return cache


_clients: weakref.WeakKeyDictionary[RedisCache, Any] = weakref.WeakKeyDictionary()


def _client(cache: RedisCache) -> Any:
    """The cache's Redis client, made once per cache object: Django makes a new one (over
    the same connection pool) on every call, which cost more than the counting itself."""
    client = _clients.get(cache)
    if client is None:
        client = _clients[cache] = cast(Any, cache)._cache.get_client(write=True)  # untyped
    return client
