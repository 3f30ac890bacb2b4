"""cya_site.kombu_fixes, on a Redis of the test's own that goes away and comes back.

Each test drives kombu as Celery 5.7's worker does when its broker connection breaks:
a message received and not yet acknowledged (acks_late, its task running), a BRPOP
waiting for the next one, then Redis gone, ``Connection.collect()`` and
``Connection.close()``, then Redis back and the task's ack.
"""

from collections.abc import Iterator

import pytest
import redis
from kombu import Connection, Exchange, Queue
from kombu.common import ignore_errors
from kombu.message import Message
from kombu.transport import redis as redis_transport
from redis.exceptions import ConnectionError as RedisConnectionError

from cya_site import kombu_fixes
from tests.faults.servers import RedisServer, running_redis, wait_until

pytestmark = pytest.mark.faults

QUEUE = Queue("fixes", Exchange("fixes"), routing_key="fixes")
# Like a worker's remote-control (pidbox) queue: fanout, deleted with its last consumer.
CONTROL = Queue("fixes.control", Exchange("fixes.control", type="fanout"), auto_delete=True)
COLLECT_SOCKET_TIMEOUT = 5.0  # what Celery's consumer passes


@pytest.fixture
def redis_server() -> Iterator[RedisServer]:
    with running_redis() as server:
        yield server


@pytest.fixture
def connection(redis_server: RedisServer) -> Iterator[Connection]:
    connection = Connection(redis_server.url)
    yield connection
    connection.release()


def received(connection: Connection) -> Message:
    """Publish one message and receive it without acknowledging it, then leave a BRPOP
    waiting for the next, as an idle worker with a task running does. A second channel
    listens to a fanout queue, as the worker's remote control does: closing the
    connection closes that one first."""
    producer = connection.Producer()
    producer.publish({"task": 1}, exchange=QUEUE.exchange, routing_key="fixes", declare=[QUEUE])
    messages: list[Message] = []
    consumer = connection.Consumer(QUEUE, on_message=messages.append, accept=["json"])
    consumer.consume()
    control = connection.Consumer(CONTROL, channel=connection.channel(), accept=["json"])
    control.consume()
    wait_until(lambda: drained(connection) and bool(messages), 5, "the message received")
    assert len(messages) == 1
    return messages[0]


def drained(connection: Connection) -> bool:
    """Handle what arrived; True once nothing came for 0.2 s, and the BRPOP then issued
    stays in flight."""
    try:
        connection.drain_events(timeout=0.2)
    except TimeoutError:
        return True
    return False


def lose_connection(connection: Connection, redis_server: RedisServer) -> None:
    """Redis goes away; the worker's consumer collects, then closes, its connection."""
    redis_server.stop(save=True)  # restarted with the unacked index, as Redis persists
    connection.collect(socket_timeout=COLLECT_SOCKET_TIMEOUT)
    ignore_errors(connection, connection.close)


def unacked(redis_server: RedisServer) -> int:
    """How many messages kombu's unacked index holds: delivered, not yet acknowledged."""
    with redis.Redis.from_url(redis_server.url) as client:
        return int(client.zcard("unacked_index"))


def test_close_after_collect_raises_nothing_and_the_running_tasks_ack_lands_after_it(
    connection: Connection, redis_server: RedisServer
) -> None:
    message = received(connection)

    lose_connection(connection, redis_server)  # raised AttributeError: ... 'hostname'

    redis_server.start()
    assert unacked(redis_server) == 1
    message.ack()
    assert unacked(redis_server) == 0  # never redelivered after the visibility timeout


def test_a_channel_used_after_its_connection_was_collected_raises_a_connection_error(
    connection: Connection,
) -> None:
    channel = connection.channel()
    assert isinstance(channel, redis_transport.Channel)
    connection.collect()

    with pytest.raises(RedisConnectionError):
        channel.queue_purge("fixes")
    with ignore_errors(connection):  # what callers guard with, and the AttributeError escaped
        channel.queue_purge("fixes")


def test_kombu_without_the_fixes_still_fails_as_the_worker_did(
    connection: Connection, redis_server: RedisServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Fails once kombu fixes both bugs itself: then drop cya_site/kombu_fixes.py.
    monkeypatch.setattr(Connection, "collect", kombu_fixes.original_collect)
    monkeypatch.setattr(redis_transport.Channel, "_connparams", kombu_fixes.original_connparams)
    received(connection)

    with pytest.raises(AttributeError, match="'NoneType' object has no attribute 'hostname'"):
        lose_connection(connection, redis_server)


def test_apply_is_what_the_celery_app_runs() -> None:
    import cya_site.celery  # noqa: F401  # applies the fixes on import

    assert Connection.collect is kombu_fixes.collect_and_forget_channel
    assert (
        vars(redis_transport.Channel)["_connparams"] is kombu_fixes.connparams_or_connection_error
    )
