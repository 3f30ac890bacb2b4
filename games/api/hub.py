"""One Redis subscription per event loop, shared by every game stream open on it.

A stream (games.api.stream) joins the hub with the channels of its game; the hub's one
reader hands each message to the queues of the streams that want it. A slow stream's
queue is emptied and told to catch up (``RESYNC``), and a broken Redis connection tells
every stream to catch up from the database and join a new hub.

A channel stays subscribed for ``LINGER_SECONDS`` after its last wait or stream leaves:
a crowd of long-polls on a game is answered all at once at each change and asks again at
once, and found the hub closed and its game forgotten, so each asked through Django and
the database, and a new hub connected to Redis again (benchmarks/wait_cost.py). A
lingering channel is still followed (``mark``, ``last_heard``); the hub unsubscribes it
after that quiet, and closes when nothing is left.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import weakref
from collections import defaultdict

import redis.asyncio as aioredis
from django.conf import settings

LINGER_SECONDS = 30.0  # past the longest wait's timeout (games.api.serializers)
QUEUE_SIZE = 256  # lines waiting for a slow client; beyond it, the stream catches up instead
RESYNC = b""  # a queue item: compare with the database and catch up


class Subscriber:
    """One open stream's inbox, and who holds it (``client``: see ``_client``)."""

    def __init__(self, client: str, channels: list[str]) -> None:
        self.client = client
        self.channels = channels
        self.queue: asyncio.Queue[bytes] = asyncio.Queue(QUEUE_SIZE)

    def deliver(self, data: bytes) -> None:
        try:
            self.queue.put_nowait(data)
        except asyncio.QueueFull:  # a slow reader: drop the backlog, catch up from the rows
            while not self.queue.empty():
                self.queue.get_nowait()
            self.queue.put_nowait(RESYNC)


class Hub:
    """The event loop's one Redis subscription, shared by every open stream on it."""

    def __init__(self) -> None:
        self.client = aioredis.Redis.from_url(settings.REDIS_URL)
        self.pubsub = self.client.pubsub(ignore_subscribe_messages=True)
        self.subscribers: dict[str, set[Subscriber]] = defaultdict(set)
        # per subscribed channel, a tick that moves on whenever it is subscribed afresh or
        # a message comes on it: see ``mark``; and its last message, with its tick
        self.ticks: dict[str, int] = {}
        self.last: dict[str, tuple[int, bytes]] = {}
        # per subscribed channel nobody follows now, when its last follower left
        self.idle: dict[str, float] = {}
        self.reaper: asyncio.Task[None] | None = None
        self._clock = itertools.count(1)
        self.reader: asyncio.Task[None] | None = None
        self.lock = asyncio.Lock()  # one subscription change at a time
        self.broken = False
        self.closed = False

    def open_streams(self, client: str) -> int:
        return len({s for subs in self.subscribers.values() for s in subs if s.client == client})

    async def join(self, subscriber: Subscriber) -> bool:
        """Subscribe the stream's channels; False if this hub has closed meanwhile.

        A join that does not finish (its client went away while Redis was asked, or
        Redis failed) leaves nothing behind: were the stream kept as a member, its
        channels would count as subscribed, and no later stream of this process on
        that game would ever ask Redis for them again."""
        async with self.lock:
            if self.closed:
                return False
            new = [c for c in subscriber.channels if c not in self.ticks]
            for name in subscriber.channels:
                self.subscribers[name].add(subscriber)
                self.idle.pop(name, None)
            try:
                if new:
                    await self.pubsub.subscribe(*new)
            except BaseException:  # cancelled or failed: as if it had never joined
                self._drop(subscriber)
                raise
            for name in new:
                self.ticks[name] = next(self._clock)
            if self.reader is None or self.reader.done():
                self.reader = asyncio.create_task(self._read())
            return True

    async def leave(self, subscriber: Subscriber) -> None:
        """Drop the stream's channels: those it was the last to follow linger (see the
        module docstring); a broken hub closes with its last stream."""
        async with self.lock:
            if self.closed:
                return
            self._drop(subscriber)
            if self.broken and not self.subscribers:
                await self._close()
            elif self.idle and (self.reaper is None or self.reaper.done()):
                self.reaper = asyncio.create_task(self._reap())

    def _drop(self, subscriber: Subscriber) -> None:
        """Forget the stream; a subscribed channel no stream wants any more lingers."""
        now = asyncio.get_running_loop().time()
        for name in subscriber.channels:
            members = self.subscribers.get(name)
            if members is None:
                continue
            members.discard(subscriber)
            if not members:
                del self.subscribers[name]
                if name in self.ticks:
                    self.idle[name] = now

    async def _reap(self) -> None:
        """Unsubscribe the channels quiet for ``LINGER_SECONDS``; close the hub once
        nothing is left."""
        loop = asyncio.get_running_loop()
        while True:
            async with self.lock:
                if self.closed:
                    return
                now = loop.time()
                over = [c for c, left in self.idle.items() if now - left >= LINGER_SECONDS]
                for name in over:
                    del self.idle[name]
                    self.ticks.pop(name, None)
                    self.last.pop(name, None)
                if not self.subscribers and not self.idle:
                    await self._close()
                    return
                if over and not self.broken:
                    with contextlib.suppress(aioredis.RedisError):  # the reader sees it
                        await self.pubsub.unsubscribe(*over)
                if not self.idle:
                    return
                wake = min(self.idle.values()) + LINGER_SECONDS
            await asyncio.sleep(max(wake - loop.time(), 0.01))

    def mark(self, channel: str) -> int | None:
        """Where ``channel`` stands in this hub now: None unless it is subscribed, with the
        hub whole. Unchanged later (``heard_nothing``), no message has come on it since,
        and it stayed subscribed all along: a row read after the mark is still the latest
        one announced."""
        if self.broken or self.closed:
            return None
        return self.ticks.get(channel)

    def heard_nothing(self, channel: str, mark: int | None) -> bool:
        """Whether ``channel`` is where ``mark`` saw it (see ``mark``)."""
        return mark is not None and self.mark(channel) == mark

    def last_heard(self, channel: str) -> bytes | None:
        """The last message on ``channel``, if it came while the channel stayed subscribed
        with the hub whole, and is still the latest: what was last announced on it. None
        otherwise (subscribed afresh since, or not subscribed)."""
        tick = self.mark(channel)
        heard = self.last.get(channel)
        return heard[1] if heard is not None and heard[0] == tick else None

    async def _read(self) -> None:
        try:
            async for message in self.pubsub.listen():
                if message["type"] != "message":
                    continue
                name = message["channel"].decode()
                if name in self.ticks:
                    tick = self.ticks[name] = next(self._clock)
                    self.last[name] = (tick, message["data"])
                for subscriber in list(self.subscribers.get(name, ())):
                    subscriber.deliver(message["data"])
        except asyncio.CancelledError:
            raise
        except Exception:  # Redis went away: every stream catches up and joins afresh
            self.broken = True
            if _hubs.get(asyncio.get_running_loop()) is self:
                del _hubs[asyncio.get_running_loop()]
            for subscriber in {s for subs in self.subscribers.values() for s in subs}:
                subscriber.deliver(RESYNC)

    async def close(self) -> None:
        """Close now, lingering channels and all (its event loop is ending)."""
        async with self.lock:
            if not self.closed:
                await self._close()

    async def _close(self) -> None:
        self.closed = True
        if _hubs.get(asyncio.get_running_loop()) is self:
            del _hubs[asyncio.get_running_loop()]
        if self.reader is not None:
            self.reader.cancel()
        if self.reaper is not None and self.reaper is not asyncio.current_task():
            self.reaper.cancel()
        try:
            await self.pubsub.aclose()  # type: ignore[no-untyped-call]
            await self.client.aclose()
        except aioredis.RedisError:
            pass  # a broken connection is closed enough


_hubs: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, Hub] = weakref.WeakKeyDictionary()


def existing_hub() -> Hub | None:
    """This loop's hub, if it has one (``loop_hub`` makes one)."""
    return _hubs.get(asyncio.get_running_loop())


def loop_hub() -> Hub:
    loop = asyncio.get_running_loop()
    hub = _hubs.get(loop)
    if hub is None:
        hub = _hubs[loop] = Hub()
    return hub


async def join(subscriber: Subscriber) -> Hub | None:
    """Subscribe through this loop's hub; None (poll the rows instead) without Redis, or
    when Redis cannot be reached. The waits and the streams join this way."""
    if not settings.REDIS_URL:
        return None
    while True:
        hub = loop_hub()
        try:
            if await hub.join(subscriber):
                return hub
        except aioredis.RedisError:
            await hub.leave(subscriber)
            return None
