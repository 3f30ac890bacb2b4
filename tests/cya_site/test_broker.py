"""The embedded broker (cya_site.broker): messages are consumed in the order they were published."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from celery import Celery
from kombu import Connection
from kombu.transport import filesystem, virtual

from cya_site import broker
from tests.conftest import ROOT


@pytest.fixture
def folders(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    """Transport options as settings/workers.py gives them: one messages folder, in and out.

    kombu keeps the bindings a process declared in memory for every filesystem transport
    alike, and writes them to a control folder only when they are new to it: each
    test's folders start with a process that has declared nothing."""
    monkeypatch.setattr(filesystem.Transport, "global_state", virtual.BrokerState())
    for name in ("queue", "control"):
        (tmp_path / name).mkdir()
    return {
        "data_folder_in": str(tmp_path / "queue"),
        "data_folder_out": str(tmp_path / "queue"),
        "control_folder": str(tmp_path / "control"),
    }


@pytest.fixture
def clock_at_1000_s(monkeypatch: pytest.MonkeyPatch) -> None:
    """The machine's monotonic clock, which kombu names messages by, crossing 1,000 s:
    each message a millisecond later, from 999,998 ms to 1,000,003 ms."""
    ticks: Iterator[float] = iter(n / 1000 for n in range(999_998, 1_000_100))
    monkeypatch.setattr(filesystem, "monotonic", lambda: next(ticks))


def publish(transport: type[filesystem.Transport], options: dict[str, str], bodies: Any) -> None:
    with Connection("filesystem://", transport=transport, transport_options=options) as conn:
        queue = conn.SimpleQueue("fifo")
        for body in bodies:
            queue.put(body)
        queue.close()


def consume(transport: type[filesystem.Transport], options: dict[str, str]) -> list[Any]:
    """Every message waiting on the queue, in the order the transport hands them out."""
    taken = []
    with Connection("filesystem://", transport=transport, transport_options=options) as conn:
        queue = conn.SimpleQueue("fifo")
        while queue.qsize():
            message = queue.get_nowait()
            taken.append(message.payload)
            message.ack()
        queue.close()
    return taken


def test_messages_are_taken_in_publishing_order_across_a_digit_boundary(
    folders: dict[str, str], clock_at_1000_s: None
) -> None:
    # the sequence crosses from 6 digits to 7 as the clock does
    Path(folders["data_folder_out"], broker.SEQUENCE_FILE).write_text("999998")

    publish(broker.Transport, folders, range(6))

    assert consume(broker.Transport, folders) == [0, 1, 2, 3, 4, 5]
    names = sorted(p.name for p in Path(folders["data_folder_out"]).iterdir())
    assert names == [broker.SEQUENCE_FILE]  # consumed, and no partial file left behind
    assert Path(folders["data_folder_out"], broker.SEQUENCE_FILE).read_text() == "1000004"


def test_kombus_own_transport_takes_newer_messages_first_across_a_digit_boundary(
    folders: dict[str, str], clock_at_1000_s: None
) -> None:
    """Why cya_site.broker exists. If this fails after a kombu upgrade, kombu has fixed
    its order, and the embedded broker can go back to kombu's own transport."""
    publish(filesystem.Transport, folders, range(6))

    assert consume(filesystem.Transport, folders) == [2, 3, 4, 5, 0, 1]


PUBLISHER = """
import sys
from kombu import Connection
from cya_site.broker import Transport
options = {"data_folder_in": sys.argv[1], "data_folder_out": sys.argv[1],
           "control_folder": sys.argv[2]}
with Connection("filesystem://", transport=Transport, transport_options=options) as conn:
    queue = conn.SimpleQueue("fifo")
    for body in sys.argv[3:]:
        queue.put(body)
    queue.close()
"""


def test_messages_of_several_processes_are_taken_in_publishing_order(
    folders: dict[str, str],
) -> None:
    publish(broker.Transport, folders, ["web 1", "web 2"])
    subprocess.run(
        [
            sys.executable,
            "-c",
            PUBLISHER,
            folders["data_folder_out"],
            folders["control_folder"],
            "worker 1",
            "worker 2",
        ],
        cwd=ROOT,
        check=True,
        timeout=60,
    )
    publish(broker.Transport, folders, ["web 3"])

    assert consume(broker.Transport, folders) == ["web 1", "web 2", "worker 1", "worker 2", "web 3"]


def test_a_folder_that_lost_its_sequence_file_carries_on_after_its_newest_message(
    folders: dict[str, str],
) -> None:
    publish(broker.Transport, folders, ["old 1", "old 2"])
    Path(folders["data_folder_out"], broker.SEQUENCE_FILE).unlink()

    publish(broker.Transport, folders, ["new 1"])

    assert consume(broker.Transport, folders) == ["old 1", "old 2", "new 1"]


def test_celery_sends_tasks_through_it_when_the_settings_name_it(folders: dict[str, str]) -> None:
    app = Celery("broker-test", set_as_current=False)
    app.conf.update(
        broker_url="filesystem://",
        broker_transport="cya_site.broker:Transport",
        broker_transport_options=folders,
        task_default_queue="fifo",
    )

    for n in range(3):
        app.send_task("tests.nothing", args=[n])

    with app.connection_for_read() as conn:
        assert isinstance(conn.transport, broker.Transport)
    names = sorted(p.name for p in Path(folders["data_folder_out"]).glob("*.fifo.msg"))
    assert [name[: broker.WIDTH] for name in names] == [f"{n:020d}" for n in (1, 2, 3)]
    # a task message's body is [args, kwargs, embed]
    assert [body[0] for body in consume(broker.Transport, folders)] == [[0], [1], [2]]
