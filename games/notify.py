"""Telling waiting clients that a game changed, without anyone busy-polling.

After a change commits, ``publish`` announces it on the game's Redis channel (and sends
the decision to the seat that must act next on that seat's channel: games.feed);
``wait_for_change`` blocks on that channel until the caller's ``changed()`` check holds
(it runs once, then once per announcement), or the timeout passes. Any change is
announced, also those that keep the version (a start, an abort), so the check decides
what counts. Subscribing happens before the first check, so a change between the check
and the wait is never missed. Without Redis (the embedded defaults of ``make run``) it
checks every half second instead: the client still makes one request per change, the
server does the waiting.

Announcing is best-effort: a change has committed before it is announced, so a Redis
that cannot be reached costs the listeners their wake-up, never the change (a warning is
logged). Streams and waiters check the rows, and catch up at their next check.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import cache
from typing import NamedTuple

import redis
from django.conf import settings

log = logging.getLogger(__name__)
POLL_SECONDS = 0.5
CONNECT_SECONDS = 2.0


def channel(game_id: int) -> str:
    """The Redis channel a game's changes are announced on (public ``update`` lines)."""
    return f"cya:{_namespace()}:game:{game_id}"


def seat_channel(game_id: int, seat: int) -> str:
    """The Redis channel of one seat's private ``decision`` lines (never sent to clients
    other than that seat's: the stream endpoint subscribes a client to its own seat's)."""
    return f"cya:{_namespace()}:game:{game_id}:seat:{seat}"


def _namespace() -> str:
    """The database the game ids belong to. Pub/sub channels are shared by every client of
    a Redis server, whatever its database number: two sites (or test runs, or a benchmark)
    sharing one Redis must not hear each other's game 1. Read from the settings, not from
    ``connection``: in an async context each task gets a connection object of its own, and
    a stream would keep one for nothing (Django's test runner renames both alike)."""
    return str(settings.DATABASES["default"]["NAME"])


@cache
def _client() -> redis.Redis:
    # a Redis that is down refuses at once; one that is unreachable must not hang requests
    return redis.Redis.from_url(settings.REDIS_URL, socket_connect_timeout=CONNECT_SECONDS)


def publish(
    game_id: int,
    game: tuple[int, str, int | None],
    update: bytes,
    decision: tuple[int, bytes] | None = None,
    end: tuple[int, bytes] | None = None,
) -> None:
    """Announce a committed change, in one round trip: its public ``update`` line; when a
    seat must act, that seat's ``decision`` line; when the game has ended, the ``end``
    line to each of its (``seats``, ``line``) seats. games.feed builds the lines; ``game``
    is the (version, status, seat to act) they describe, sent ahead of each (``Message``):
    committed facts, which a listener may answer with as they are."""
    if not settings.REDIS_URL:
        return
    batched: list[Command] | None = getattr(_batch, "commands", None)
    commands: list[Command] = [] if batched is None else batched
    commands.append(("PUBLISH", channel(game_id), _framed(b"update", game, update)))
    if decision is not None:
        seat, body = decision
        commands.append(("PUBLISH", seat_channel(game_id, seat), _framed(b"decision", game, body)))
    if end is not None:
        seats, body = end
        framed = _framed(b"end", game, body)
        commands += [("PUBLISH", seat_channel(game_id, seat), framed) for seat in range(seats)]
    if batched is None:
        _send(commands)


Command = tuple[str, str, bytes]
_batch = threading.local()


@contextmanager
def batch() -> Iterator[None]:
    """Send what is published in the block (by this thread) at its end, in one round trip:
    several games' announcements at once. Nested blocks join the outermost one."""
    if not settings.REDIS_URL or getattr(_batch, "commands", None) is not None:
        yield
        return
    commands: list[Command] = []
    _batch.commands = commands
    try:
        yield
    finally:
        _batch.commands = None
        if commands:  # what was published is announced, even if the block then failed
            _send(commands)


def _send(commands: list[Command]) -> None:
    """Send the announcements in one round trip; a Redis out of reach loses them, never
    the change. Sent on this thread's own connection, written and read directly: a
    pipeline's pool and bookkeeping cost an action more than the sending. A connection
    that broke since its last use (Redis restarted) is made again once."""
    for again in (True, False):
        connection = _connection()
        try:
            packed = connection.pack_commands(commands)  # type: ignore[no-untyped-call]
            connection.send_packed_command(packed)  # type: ignore[no-untyped-call]
            for _ in commands:
                connection.read_response()
            return
        except redis.RedisError as error:
            # replies may be left unread: drop the connection, the next send reconnects
            connection.disconnect()  # type: ignore[no-untyped-call]
            if not (again and isinstance(error, redis.ConnectionError)):
                log.warning("changes not announced (%s): listeners catch up from the rows", error)
                return


_publisher = threading.local()


def _connection() -> redis.connection.AbstractConnection:
    """This thread's connection for announcing, to ``_client``'s server (opened when first
    used; made again when ``_client`` is, say for another REDIS_URL). A process forked
    from this one makes its own: the parent's socket is the parent's."""
    pool = _client().connection_pool
    held: tuple[int, object, redis.connection.AbstractConnection] | None
    held = getattr(_publisher, "held", None)
    if held is None or held[0] != os.getpid() or held[1] is not pool:
        connection = pool.connection_class(**pool.connection_kwargs)
        held = _publisher.held = (os.getpid(), pool, connection)
    return held[2]


class Message(NamedTuple):
    """A published line with what a listener needs to know of it up front, so that it
    never parses a line it only forwards (a decision line is ~10 kB of JSON)."""

    kind: bytes  # update, decision or end
    version: int
    status: str
    to_act: int | None
    line: bytes


def _framed(kind: bytes, game: tuple[int, str, int | None], line: bytes) -> bytes:
    version, status, to_act = game
    seat = b"-" if to_act is None else b"%d" % to_act
    return b"%b %d %b %b\n%b" % (kind, version, status.encode(), seat, line)


def message(data: bytes) -> Message:
    """A published message, read back."""
    head, _, line = data.partition(b"\n")
    kind, version, status, seat = head.split(b" ")
    return Message(kind, int(version), status.decode(), None if seat == b"-" else int(seat), line)


def wait_for_change(game_id: int, changed: Callable[[], bool], timeout: float) -> bool:
    """Block until ``changed()`` is true or ``timeout`` ends; returns its last answer.

    Subscribed to the game's channel when there is Redis; polling every half second
    without it, or from the moment it cannot be reached.
    """
    deadline = time.monotonic() + timeout
    if settings.REDIS_URL:
        try:
            return _wait_subscribed(game_id, changed, deadline)
        except redis.RedisError as error:
            log.warning("game %s: waiting by polling (%s)", game_id, error)
    done = changed()
    while not done and time.monotonic() < deadline:
        time.sleep(min(POLL_SECONDS, max(0.0, deadline - time.monotonic())))
        done = changed()
    return done


def _wait_subscribed(game_id: int, changed: Callable[[], bool], deadline: float) -> bool:
    pubsub = _client().pubsub(ignore_subscribe_messages=True)  # type: ignore[no-untyped-call]
    try:
        pubsub.subscribe(channel(game_id))
        done = changed()
        while not done:
            left = deadline - time.monotonic()
            if left <= 0:
                break
            if pubsub.get_message(timeout=left) is not None:
                done = changed()
        return done
    finally:
        pubsub.close()
