"""Announcements travel on channels of this site's database only.

Redis pub/sub channels are shared by every client of a Redis server, whatever database
number each uses; game ids are only unique within one database. Two sites, test runs or
benchmarks on one Redis must never hear each other's games.
"""

from __future__ import annotations

import os

import pytest
import redis
from django.conf import settings as django_settings
from django.db import connection
from pytest_django import Settings

from games import notify
from tests.listening import listening


def test_channels_name_the_database_the_game_ids_belong_to() -> None:
    name = connection.settings_dict["NAME"]

    assert notify.channel(1) == f"cya:{name}:game:1"
    assert notify.seat_channel(1, 2) == f"cya:{name}:game:1:seat:2"


def test_another_databases_game_with_the_same_id_is_not_heard(
    settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    with listening(settings, notify.channel(1), notify.seat_channel(1, 0)) as hear:
        with monkeypatch.context() as patch:  # the other site's settings name its database
            patch.setitem(django_settings.DATABASES["default"], "NAME", "another_site")
            notify.publish(1, (3, "active", 0), b"theirs\n", decision=(0, b"theirs\n"))
        notify.publish(1, (5, "active", 0), b"ours\n", decision=(0, b"ours\n"))

    assert hear() == [
        (notify.channel(1).encode(), (b"update", 5, "active", 0, b"ours\n")),
        (notify.seat_channel(1, 0).encode(), (b"decision", 5, "active", 0, b"ours\n")),
    ]


def test_what_is_published_in_a_batch_goes_out_together_when_it_ends(settings: Settings) -> None:
    """Several games' announcements in one round trip (a match's games written together):
    nothing is sent before the outermost batch ends, then everything, in order."""
    with listening(settings, notify.channel(1), notify.channel(2)) as hear, notify.batch():
        notify.publish(1, (5, "finished", None), b"one\n")
        with notify.batch():  # a nested batch joins the outer one
            notify.publish(2, (7, "finished", None), b"two\n")
        assert hear(0.3) == []  # nothing sent yet

    assert hear() == [
        (notify.channel(1).encode(), (b"update", 5, "finished", None, b"one\n")),
        (notify.channel(2).encode(), (b"update", 7, "finished", None, b"two\n")),
    ]


def test_an_announcement_after_redis_dropped_the_connection_still_arrives(
    settings: Settings,
) -> None:
    """Announcements go out on a connection each thread keeps; one that Redis closed since
    (a restart, a timeout) is made again, and the announcement is not lost."""
    notify.publish(1, (4, "active", 0), b"before\n")
    kept = notify._connection()
    kept.send_command("CLIENT", "ID")  # type: ignore[no-untyped-call]
    redis.Redis.from_url(settings.REDIS_URL).client_kill_filter(_id=kept.read_response())

    with listening(settings, notify.channel(1)) as hear:
        notify.publish(1, (5, "active", 0), b"after\n")

    assert hear() == [(notify.channel(1).encode(), (b"update", 5, "active", 0, b"after\n"))]


def test_a_forked_process_announces_on_a_connection_of_its_own(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    parents = notify._connection()

    monkeypatch.setattr(os, "getpid", lambda: -1)  # as a child forked from this process

    assert notify._connection() is not parents
