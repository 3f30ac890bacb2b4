"""Two fixes to kombu (5.7) that keep a Celery worker alive when its Redis restarts.

When the broker connection breaks, Celery 5.7's consumer first calls
``Connection.collect()``, which closes the connection's default channel and detaches
the transport (``transport.client = None``), and then ``Connection.close()``. Two kombu
bugs turn that into a dead worker:

- ``collect()`` keeps ``_default_channel`` (kombu forgets it only when it next
  connects), so ``close()`` closes that channel a second time. The Redis channel's first
  close stops early when draining its pending BRPOP fails on the dead socket, so the
  second one runs in full and restores the unacknowledged messages of running tasks.
- A Redis channel whose transport was detached builds a new client from
  ``transport.client``, now None: ``AttributeError: 'NoneType' object has no attribute
  'hostname'`` (or ``'client'`` once the channel itself was closed). Callers guard
  broker calls with the transport's connection errors (``ignore_errors``,
  ``Message.ack_log_error``), so this one escapes them and the worker stops with
  "Unrecoverable error".

``apply()`` makes ``collect()`` forget the default channel, as connecting again does,
and makes a detached Redis channel raise a connection error, which every caller handles.
docs/operations.md tells the story; tests/cya_site/test_kombu_fixes.py reproduces both
bugs and checks the fixes.
"""

from typing import Any

from kombu import Connection
from kombu.transport import redis as redis_transport
from redis.exceptions import ConnectionError as RedisConnectionError

# kombu's own, kept for apply() and for the test that checks they are still broken.
original_collect = Connection.collect
original_connparams = redis_transport.Channel._connparams  # type: ignore[attr-defined]


def collect_and_forget_channel(self: Connection, socket_timeout: float | None = None) -> None:
    """Connection.collect(), which then forgets the default channel it closed."""
    original_collect(self, socket_timeout)
    self._default_channel = None  # type: ignore[attr-defined]  # private, not in the stubs


def connparams_or_connection_error(
    self: redis_transport.Channel, asynchronous: bool = False
) -> dict[str, Any]:
    """A Redis channel's connection parameters; a connection error once the channel was
    closed (it has no transport) or its transport detached (collected or closed)."""
    transport = self.connection
    if transport is None or transport.client is None:
        raise RedisConnectionError("the channel's broker connection was closed")
    params: dict[str, Any] = original_connparams(self, asynchronous=asynchronous)
    return params


def apply() -> None:
    """Install both fixes (idempotent)."""
    Connection.collect = collect_and_forget_channel  # type: ignore[method-assign]
    redis_transport.Channel._connparams = connparams_or_connection_error  # type: ignore[attr-defined]
