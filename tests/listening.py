"""Listening to the announcements on Redis channels, as a waiting client would."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import redis
from pytest_django import Settings

from games import notify

Hear = Callable[..., list[tuple[bytes, Any]]]


@contextmanager
def listening(settings: Settings, *channels: str) -> Iterator[Hear]:
    """Subscribe to ``channels`` for the block. It gives ``hear(timeout=0.5)``: everything
    heard so far (channel, parsed line), waiting until ``timeout`` passes without a line;
    after the block it answers what was heard while it ran."""
    server = redis.Redis.from_url(settings.REDIS_URL)
    listener = server.pubsub(ignore_subscribe_messages=True)  # type: ignore[no-untyped-call]
    listener.subscribe(*channels)
    heard: list[tuple[bytes, Any]] = []

    def hear(timeout: float = 0.5) -> list[tuple[bytes, Any]]:
        if not closed:
            while (message := listener.get_message(timeout=timeout)) is not None:
                heard.append((message["channel"], notify.message(message["data"])))
        return heard

    closed = False
    try:
        for _ in channels:  # each subscription is confirmed (and the confirmation ignored)
            listener.get_message(timeout=1)
        yield hear
        hear()
    finally:
        closed = True
        listener.close()
