"""One Redis subscription per event loop (games.api.hub), against the real Redis.

A wait or a stream whose client goes away while it is joining must leave nothing behind:
else its game's channel counts as subscribed while Redis was never asked, and every later
wait of the process on that game hears of no change until its timeout.
"""

from __future__ import annotations

import asyncio

import pytest
import redis
from django.conf import settings

from games import notify
from games.api import hub as hub_module
from games.api.hub import Hub, Subscriber

pytestmark = pytest.mark.django_db


async def _subscribed_at_redis(channel: str) -> int:
    client = redis.Redis.from_url(settings.REDIS_URL)
    try:
        ((_, count),) = await asyncio.to_thread(client.pubsub_numsub, channel)
        return int(count)
    finally:
        client.close()


def test_a_join_cancelled_while_redis_is_asked_leaves_the_channel_to_the_next_join() -> None:
    channel = notify.channel(424242)

    async def scenario() -> tuple[bool, int, bytes]:
        hub = Hub()
        gone = Subscriber("wait:424242", [channel])
        joining = asyncio.create_task(hub.join(gone))
        await asyncio.sleep(0)  # it holds the lock and is connecting to Redis
        joining.cancel()  # its client went away
        with pytest.raises(asyncio.CancelledError):
            await joining
        kept = channel in hub.subscribers

        waiting = Subscriber("wait:424242", [channel])
        assert await hub.join(waiting)
        try:
            at_redis = await _subscribed_at_redis(channel)
            await asyncio.to_thread(notify.publish, 424242, (8, "active", 1), b"line\n")
            heard = await asyncio.wait_for(waiting.queue.get(), 5)
            return kept, at_redis, heard
        finally:
            await hub.leave(waiting)
            await hub.close()

    kept, at_redis, heard = asyncio.run(scenario())

    assert not kept  # the cancelled join is not a member
    assert at_redis == 1  # so the next join asked Redis for the channel
    assert notify.message(heard)[:4] == (b"update", 8, "active", 1)


def test_a_game_the_last_stream_left_stays_followed_until_quiet_then_the_hub_closes(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A crowd of long-polls leaves all at once at each change and asks again at once:
    the game's channel lingers, still heard (its last message is kept), and is let go
    after ``LINGER_SECONDS`` of quiet, the hub closing with nothing left."""
    monkeypatch.setattr(hub_module, "LINGER_SECONDS", 0.5)
    channel = notify.channel(424243)

    async def scenario() -> tuple[bool, bool, bytes | None, int, int, bool]:
        hub = Hub()
        one = Subscriber("wait:424243", [channel])
        assert await hub.join(one)
        await hub.leave(one)
        open_after_leaving = not hub.closed
        await asyncio.to_thread(notify.publish, 424243, (3, "active", 0), b"line\n")
        await asyncio.sleep(0.2)
        heard, mark = hub.last_heard(channel), hub.mark(channel)
        again = Subscriber("wait:424243", [channel])
        assert await hub.join(again)  # a wait asking again: the same subscription
        followed = hub.heard_nothing(channel, mark)
        at_redis = await _subscribed_at_redis(channel)
        await hub.leave(again)
        await asyncio.sleep(1.0)  # quiet past the linger
        return (
            open_after_leaving,
            followed,
            heard,
            at_redis,
            await _subscribed_at_redis(channel),
            hub.closed,
        )

    open_after_leaving, followed, heard, at_redis, after_quiet, closed = asyncio.run(scenario())

    assert open_after_leaving
    assert heard is not None
    assert notify.message(heard)[:2] == (b"update", 3)
    assert followed  # nothing missed between the last one leaving and the next joining
    assert at_redis == 1
    assert after_quiet == 0
    assert closed


def test_a_closed_hub_takes_no_one_and_a_new_one_hears_the_game() -> None:
    channel = notify.channel(424244)

    async def scenario() -> bytes:
        first = Hub()
        await first.close()
        assert not await first.join(Subscriber("late", [channel]))  # a new hub it is

        second = Hub()
        two = Subscriber("wait:424244", [channel])
        assert await second.join(two)
        try:
            await asyncio.to_thread(notify.publish, 424244, (3, "active", 0), b"line\n")
            return await asyncio.wait_for(two.queue.get(), 5)
        finally:
            await second.leave(two)
            await second.close()

    assert notify.message(asyncio.run(scenario()))[:2] == (b"update", 3)
