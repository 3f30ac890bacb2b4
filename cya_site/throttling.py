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

A lean answer (cya_site.lean: a spectator's long-poll answered on the event loop) counts
on the same counters with ``anonymous_spent``, through an asynchronous Redis client of its
event loop; a request it counted and then leaves to Django carries the verdict in its
ASGI scope (``COUNTED``), and the throttle takes it instead of counting again.

The limits fail open: while Redis cannot be reached, requests are not counted and are let
through (a warning is logged), so an outage of Redis costs the limits, not the site.
"""

from __future__ import annotations

import asyncio
import logging
import time
import weakref
from collections.abc import Mapping
from types import SimpleNamespace
from typing import TYPE_CHECKING, Any, NamedTuple, cast

import redis
import redis.asyncio as aioredis
from django.conf import settings
from django.core.cache import caches
from django.core.cache.backends.base import BaseCache
from django.core.cache.backends.redis import RedisCache
from django.http import HttpRequest
from django.http.request import HttpHeaders
from rest_framework.request import Request
from rest_framework.settings import api_settings
from rest_framework.throttling import BaseThrottle

if TYPE_CHECKING:  # rest_framework.views imports this module (through its settings)
    from rest_framework.views import APIView

log = logging.getLogger(__name__)
COUNTED = "cya_site.counted"  # an ASGI scope's key: the verdict of a lean answer's count
_UNCOUNTED = object()
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
        """Count this request against each limit; refuse it if any is spent. A request
        a lean answer counted already (``COUNTED`` in its ASGI scope, cya_site.lean)
        is not counted again: its verdict stands."""
        counted = getattr(request._request, "scope", {}).get(COUNTED, _UNCOUNTED)
        if counted is not _UNCOUNTED:
            self._wait = counted
            return counted is None
        user = request.user
        if user is not None and user.is_authenticated:
            client, limits = f"user:{user.pk}", ["user"]
        else:
            client, limits = f"ip:{self.get_ident(request)}", ["anon"]
        scope = getattr(view, "throttle_scope", None)
        if scope:
            limits.append(scope)
        windows = _windows(client, limits, time.time())
        self._wait = _spent(windows, _count([(w.key, w.seconds) for w in windows]))
        return self._wait is None

    def wait(self) -> float | None:
        """Seconds until every spent limit's window has ended (for Retry-After)."""
        return self._wait


class _Window(NamedTuple):
    """One limit's counter for the current window, and when that window ends."""

    key: str
    allowed: int
    seconds: int
    ends: float


def _windows(client: str, limits: list[str], now: float) -> list[_Window]:
    """The counters of ``limits`` (rate names) that ``client`` counts against now."""
    rates = api_settings.DEFAULT_THROTTLE_RATES
    windows = []
    for name in limits:
        rate = rates.get(name)
        if rate is None:
            continue
        allowed, seconds = parse_rate(str(rate))
        window = int(now // seconds)
        key = f"throttle:{name}:{client}:{window}"
        windows.append(_Window(key, allowed, seconds, (window + 1) * seconds))
    return windows


def _spent(windows: list[_Window], counts: list[int]) -> float | None:
    """None while every counter is within its limit, else the seconds until every spent
    limit's window has ended."""
    now = time.time()
    over = [w.ends - now for w, count in zip(windows, counts, strict=True) if count > w.allowed]
    return max(over) if over else None


async def anonymous_spent(address: str, scope: str) -> float | None:
    """``RequestRateThrottle``'s verdict on the event loop, for an anonymous request from
    ``address`` to an endpoint of ``scope``, counted on the same counters: None while
    allowed, else the seconds until the windows end (cya_site.lean's answers). Redis is
    asked asynchronously, by the event loop's ``_LoopCounts``."""
    windows = _windows(f"ip:{address}", ["anon", scope], time.time())
    keys = [(w.key, w.seconds) for w in windows]
    cache = _counting_cache()
    if not isinstance(cache, RedisCache):
        return _spent(windows, _count(keys))  # in this process's memory: nothing to wait on
    try:
        counts = await _LoopCounts.of(cache).count(keys)
    except (redis.RedisError, OSError) as error:  # fail open, as ``_count``
        log.warning("request rates not counted (%s)", error)
        return None
    return _spent(windows, counts)


class _LoopCounts:
    """An event loop's counting in Redis: the counts asked for while a round trip is out
    go together in the next, one pipeline on one connection. A crowd of two hundred
    long-polls asks all at once when its game changes: a round trip each took two
    hundred connections, more than redis-py's pool of a hundred, and a pool of sixteen
    that made the rest queue still timed out behind a busy event loop (both went
    uncounted, benchmarks/live.py's crowd)."""

    def __init__(self, cache: RedisCache) -> None:
        config = settings.CACHES["default"]
        location = config["LOCATION"]
        url = location[0] if isinstance(location, list | tuple) else location
        options = config.get("OPTIONS", {})
        timeouts = {
            k: options[k] for k in ("socket_connect_timeout", "socket_timeout") if k in options
        }
        self.client = aioredis.Redis.from_url(url, **timeouts)
        self.cache = cache
        self.asked: list[tuple[list[tuple[str, int]], asyncio.Future[list[int]]]] = []
        self.sending: asyncio.Task[None] | None = None

    @classmethod
    def of(cls, cache: RedisCache) -> _LoopCounts:
        """The running loop's."""
        loop = asyncio.get_running_loop()
        counts = _loop_counts.get(loop)
        if counts is None:
            counts = _loop_counts[loop] = cls(cache)
        return counts

    async def count(self, keys: list[tuple[str, int]]) -> list[int]:
        """``_count`` of ``keys``, sent with whatever else is asked meanwhile."""
        answer: asyncio.Future[list[int]] = asyncio.get_running_loop().create_future()
        self.asked.append((keys, answer))
        if self.sending is None or self.sending.done():
            self.sending = asyncio.create_task(self._send())
        return await answer

    async def _send(self) -> None:
        while self.asked:
            batch, self.asked = self.asked, []
            pipe = self.client.pipeline(transaction=False)
            _counting(pipe, self.cache, [key for keys, _ in batch for key in keys])
            try:
                counted = [int(n) for n in (await pipe.execute())[1::2]]
            except (redis.RedisError, OSError) as error:
                for _, answer in batch:
                    if not answer.done():
                        answer.set_exception(error)
                continue
            for keys, answer in batch:
                mine, counted = counted[: len(keys)], counted[len(keys) :]
                if not answer.done():  # its request was cancelled meanwhile
                    answer.set_result(mine)

    async def close(self) -> None:
        """Close its connection (its event loop is ending: a test)."""
        await self.client.aclose()


_loop_counts: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, _LoopCounts] = (
    weakref.WeakKeyDictionary()
)


def client_address(request: HttpRequest) -> str:
    """The client's address as every limit sees it: the peer, or with ``NUM_PROXIES``
    trusted proxies in front, the address they forwarded (DRF's ``get_ident``)."""
    return BaseThrottle().get_ident(cast(Request, request))


def address_from(meta: Mapping[str, Any]) -> str:
    """``client_address`` from a request's META alone (``REMOTE_ADDR`` and
    ``HTTP_X_FORWARDED_FOR`` are what DRF reads)."""
    request = SimpleNamespace(META=meta, headers=HttpHeaders(meta))
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
    windows = _windows(who, [scope], time.time())
    return _spent(windows, _count([(w.key, w.seconds) for w in windows]))


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
    _counting(pipe, cache, keys)
    return [int(n) for n in pipe.execute()[1::2]]


def _counting(pipe: Any, cache: RedisCache, keys: list[tuple[str, int]]) -> None:
    """Queue on ``pipe`` (a pipeline, blocking or asynchronous) a SET NX with expiry and
    an INCR per counter: each INCR's reply is its counter's new value."""
    for key, seconds in keys:
        full = cache.make_and_validate_key(key)
        pipe.set(full, 0, ex=seconds + 1, nx=True)
        pipe.incr(full)


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
