"""The embedded Celery broker (``make run`` without Redis): kombu's filesystem transport,
first in, first out.

kombu's filesystem transport names each message file ``<ms>_<uuid>.<queue>.msg``, where
``<ms>`` is ``time.monotonic()`` in milliseconds, and a consumer takes the first name in
text order. Text order is not the order of the numbers: once the machine has been up for
1,000 s, a new message's 7-digit name sorts before the 6-digit names of older ones
(``"1000000_" < "999999_"``), again at 10,000 s and 100,000 s; messages of one millisecond
go in the order of their random uuids; and the clock starts again at every boot, while
the folder keeps its messages. Under ``make run`` two bot validations waited ten minutes
behind ladder matches published after them.

Here a message's name starts with the folder's next sequence number instead, zero-padded
to a fixed width so that text order is number order. The number is drawn and the message
written under one lock on the folder's sequence file, so the folder holds messages in
the order they were published, by whichever process. A message is written under a
hidden name and then renamed into place: kombu's consumer reads without taking the
writer's lock, and would otherwise take a message that is still being written.

Settings select it with ``CELERY_BROKER_TRANSPORT`` beside the ``filesystem://`` URL (kombu
refuses a class path as a URL's scheme).
"""

from __future__ import annotations

import fcntl
import os
import re
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from kombu.exceptions import ChannelError
from kombu.transport import filesystem
from kombu.utils.json import dumps

# The file in a messages folder holding the last sequence number given out; it starts with
# a dot so that no queue's listing (``*.<queue>.msg``) ever matches it.
SEQUENCE_FILE = ".sequence"
# Digits of a message's sequence number: text order is number order up to 10**20 messages.
WIDTH = 20

_NUMBERED = re.compile(rf"\A(\d{{{WIDTH}}})_")


class Channel(filesystem.Channel):
    """A filesystem channel whose messages are consumed in the order they were published."""

    # kombu-stubs name the argument ``message`` on the base channel and ``payload`` on the
    # filesystem one: no override satisfies both, and this one matches its parent's code
    def _put(self, queue: str, payload: dict[str, Any], **kwargs: Any) -> None:  # type: ignore[override]
        """Write ``payload`` as ``queue``'s newest message: named after the folder's next
        sequence number, and complete before it appears under that name."""
        folder = self.data_folder_out
        body = dumps(payload).encode()
        try:
            with _next_number(folder) as number:
                name = f"{number:0{WIDTH}d}_{uuid.uuid4()}.{queue}.msg"
                partial = os.path.join(folder, f".{name}.part")
                with open(partial, "wb") as f:
                    f.write(body)
                os.replace(partial, os.path.join(folder, name))
        except OSError as error:
            raise ChannelError(f"Cannot add a message to {folder!r}") from error


class Transport(filesystem.Transport):
    """kombu's filesystem transport with ``Channel``'s first-in, first-out order."""

    Channel = Channel


@contextmanager
def _next_number(folder: str) -> Iterator[int]:
    """The folder's next sequence number, its lock held until the block ends.

    The number is recorded before the message is written: a crash in between skips a
    number, which costs nothing, and never hands one out twice."""
    fd = os.open(os.path.join(folder, SEQUENCE_FILE), os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        text = os.pread(fd, 32, 0).strip()
        number = (int(text) if text else _highest(folder)) + 1
        os.ftruncate(fd, 0)
        os.pwrite(fd, str(number).encode(), 0)
        yield number
    finally:
        os.close(fd)  # releases the lock


def _highest(folder: str) -> int:
    """The highest sequence number among the folder's messages (0 if none): where a folder
    without its sequence file (new, or cleaned by hand) carries on from."""
    found = (_NUMBERED.match(name) for name in os.listdir(folder))
    return max((int(match[1]) for match in found if match), default=0)
