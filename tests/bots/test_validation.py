"""Validating a new version before it is ranked: the handshake, then one game at a full
table of built-ins. Failures are logged for the owner to read.

Versions are created through ``bots.services.version_create`` as owners create them;
the ``bots.validate_version`` task is then run in-process (the worker tests run it in a
real worker). The validation game is the real one: four seats of the 2021 rules.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from pytest_django import DjangoCaptureOnCommitCallbacks
from rest_framework.test import APIClient

from accounts.models import User
from bots import services, tasks, webhook
from bots.models import DEFAULT_SIGMA, Bot, BotVersion, Match, RatingChange, SeatControl
from bots.validation import BUILTIN_OPPONENTS, builtin_versions
from games.engine import RuleSet
from games.models import Game
from tests.bots.bot_servers import (
    SECRET,
    BotServer,
    Reply,
    answer_legal,
    builtin_version,
    free_port,
    good_bot,
    http_error_bot,
    running,
)


def new_webhook_version(owner: User, name: str, url: str) -> BotVersion:
    """Register a webhook bot and create its first version, as its owner does."""
    bot = services.bot_create(owner=owner, name=name, kind=Bot.Kind.WEBHOOK)
    return services.version_create(bot=bot, by=owner, url=url, secret=SECRET, tag="v1")


def validation_match(version: BotVersion) -> Match:
    return Match.objects.get(kind=Match.Kind.VALIDATION, entries__version=version)


def test_a_webhook_version_that_answers_the_handshake_and_plays_cleanly_becomes_ready(
    alice: User,
) -> None:
    with running(good_bot("alices-bot")) as (server,):
        version = new_webhook_version(alice, "alices-bot", server.url)
        assert version.status == BotVersion.Status.PENDING

        assert tasks.validate_version(version.pk) == BotVersion.Status.READY

    version.refresh_from_db()
    assert version.status == BotVersion.Status.READY
    assert version.validated_at is not None
    match = validation_match(version)
    assert version.validation_log == [
        "handshake: 'alices-bot', protocol 1",
        f"validation game {match.match_games.get().game_id} (match {match.pk})",
        "passed",
    ]
    # the handshake came first, signed like every request; then the decisions
    assert server.requests[0].method == "GET"
    assert server.signatures_all_valid()
    assert len(server.decisions()) > 0
    # a full table of the built-ins, one game, finished and never rated
    assert match.status == Match.Status.FINISHED
    assert match.entries.count() == 1 + len(BUILTIN_OPPONENTS)
    assert match.match_games.get().game.status == Game.Status.FINISHED
    assert match.rated_at is None
    assert not RatingChange.objects.filter(match=match).exists()
    assert (version.mu, version.sigma, version.games_played) == (25.0, DEFAULT_SIGMA, 0)


def test_a_new_version_that_passes_retires_the_previous_ready_one(staff: User) -> None:
    bot = services.bot_create(owner=staff, name="house-greedy", kind=Bot.Kind.BUILTIN)
    first = services.version_create(bot=bot, by=staff, strategy="greedy")
    assert tasks.validate_version(first.pk) == BotVersion.Status.READY
    BotVersion.objects.filter(pk=first.pk).update(mu=31.5, sigma=2.0)

    second = services.version_create(bot=bot, by=staff, strategy="shark")
    assert (second.number, second.mu, second.sigma) == (2, 31.5, DEFAULT_SIGMA)
    first.refresh_from_db()
    assert first.status == BotVersion.Status.READY  # ranked until the new one is

    assert tasks.validate_version(second.pk) == BotVersion.Status.READY

    first.refresh_from_db()
    second.refresh_from_db()
    assert first.status == BotVersion.Status.RETIRED
    assert second.status == BotVersion.Status.READY


def test_a_version_that_fails_leaves_the_previous_ready_one_ranked(alice: User) -> None:
    bot = services.bot_create(owner=alice, name="alices-bot", kind=Bot.Kind.WEBHOOK)
    first = services.version_create(bot=bot, by=alice, url="http://127.0.0.1:9/", secret=SECRET)
    BotVersion.objects.filter(pk=first.pk).update(status=BotVersion.Status.READY)
    second = services.version_create(
        bot=bot, by=alice, url=f"http://127.0.0.1:{free_port()}/bot", secret=SECRET
    )

    assert tasks.validate_version(second.pk) == BotVersion.Status.FAILED

    first.refresh_from_db()
    assert first.status == BotVersion.Status.READY


@pytest.fixture
def log_readers(
    api_as: Callable[[User], APIClient], alice: User, bob: User
) -> Callable[[BotVersion], tuple[object, object]]:
    """What alice (the owner) and bob (anyone else) read of a version's validation log."""

    def read(version: BotVersion) -> tuple[object, object]:
        url = f"/api/v1/bots/{version.bot_id}/versions/"
        mine = api_as(alice).get(url).json()["results"][0]["validation_log"]
        theirs = api_as(bob).get(url).json()["results"][0]["validation_log"]
        return mine, theirs

    return read


def test_a_url_that_refuses_connections_fails_with_a_log_only_its_owner_reads(
    alice: User, log_readers: Callable[[BotVersion], tuple[object, object]]
) -> None:
    version = new_webhook_version(alice, "alices-bot", f"http://127.0.0.1:{free_port()}/bot")

    assert tasks.validate_version(version.pk) == BotVersion.Status.FAILED

    version.refresh_from_db()
    assert version.status == BotVersion.Status.FAILED
    assert version.validated_at is not None
    [line] = version.validation_log
    # "unreachable", never the system's "Connection refused", which would tell an open
    # port from a closed one
    assert line == "handshake failed (connection_error): unreachable"
    assert not Match.objects.filter(entries__version=version).exists()  # no game was dealt
    mine, theirs = log_readers(version)
    assert mine == version.validation_log
    assert theirs is None


BAD_HANDSHAKES = {
    "wrong_protocol": (
        Reply.json({"name": "x", "protocol_version": 99}),
        "handshake failed (malformed): protocol_version must be 1, not 99",
    ),
    "no_name": (
        Reply.json({"protocol_version": 1}),
        'handshake failed (malformed): the handshake must answer {"name": ..., ...}',
    ),
    "not_json": (
        Reply(200, b"hello"),
        "handshake failed (malformed): the handshake answer is not JSON",
    ),
    "not_found": (
        Reply.json({"error": "no"}, status=404),
        "handshake failed (http_error): HTTP 404",
    ),
}


@pytest.mark.parametrize(("handshake", "log"), BAD_HANDSHAKES.values(), ids=BAD_HANDSHAKES.keys())
def test_a_bad_handshake_fails_validation_and_says_what_was_wrong(
    handshake: Reply, log: str, alice: User
) -> None:
    server = BotServer("bad-handshake", lambda bot, decision: Reply(500), handshake=handshake)
    with running(server):
        version = new_webhook_version(alice, "alices-bot", server.url)
        assert tasks.validate_version(version.pk) == BotVersion.Status.FAILED

    version.refresh_from_db()
    assert version.validation_log == [log]
    assert [r.method for r in server.requests] == ["GET"]  # never asked to play
    assert not Match.objects.filter(entries__version=version).exists()


def test_a_version_that_strikes_out_in_its_validation_game_fails(alice: User) -> None:
    with running(http_error_bot()) as (server,):
        version = new_webhook_version(alice, "alices-bot", server.url)
        assert tasks.validate_version(version.pk) == BotVersion.Status.FAILED

    version.refresh_from_db()
    assert version.status == BotVersion.Status.FAILED
    control = SeatControl.objects.get(version=version)
    strikes = list(control.strike_log.order_by("game_version"))
    assert len(strikes) == 3
    assert version.validation_log[0] == "handshake: 'http500', protocol 1"
    assert version.validation_log[2:] == [
        *(f"strike at decision {s.game_version}: http_error (HTTP 500)" for s in strikes),
        "failed: three strikes put the seat on autopilot",
    ]
    match = validation_match(version)
    assert match.status == Match.Status.FINISHED  # the game itself was played out
    assert match.rated_at is None


def test_a_built_in_version_validates_by_playing_its_game_without_a_handshake(
    staff: User,
) -> None:
    bot = services.bot_create(owner=staff, name="house-shark", kind=Bot.Kind.BUILTIN)
    version = services.version_create(bot=bot, by=staff, strategy="shark")

    assert tasks.validate_version(version.pk) == BotVersion.Status.READY

    version.refresh_from_db()
    match = validation_match(version)
    assert version.validation_log == [
        f"validation game {match.match_games.get().game_id} (match {match.pk})",
        "passed",
    ]


def test_a_validation_cut_short_by_a_worker_crash_is_finished_when_the_task_comes_back(
    staff: User,
) -> None:
    bot = services.bot_create(owner=staff, name="house-greedy", kind=Bot.Kind.BUILTIN)
    version = services.version_create(bot=bot, by=staff, strategy="greedy")
    # what the killed worker left: the version marked validating, its game dealt
    BotVersion.objects.filter(pk=version.pk).update(status=BotVersion.Status.VALIDATING)
    dealt = services.match_create(
        versions=[version, *builtin_versions()],
        kind=Match.Kind.VALIDATION,
        rules=RuleSet.preset("2021", seats=1 + len(BUILTIN_OPPONENTS)),
        duplicate=False,
    )

    assert tasks.validate_version(version.pk) == BotVersion.Status.READY

    assert list(Match.objects.filter(entries__version=version)) == [dealt]  # that game, once
    dealt.refresh_from_db()
    assert dealt.status == Match.Status.FINISHED
    assert Game.objects.get(match_game__match=dealt).status == Game.Status.FINISHED


def test_the_platforms_built_ins_are_ready_without_validation(db: None) -> None:
    versions = builtin_versions()
    assert [v.strategy for v in versions] == list(BUILTIN_OPPONENTS)
    assert {v.status for v in versions} == {BotVersion.Status.READY}
    assert builtin_versions() == versions  # created once


def test_validating_a_version_twice_plays_no_second_game(staff: User) -> None:
    bot = services.bot_create(owner=staff, name="house-random", kind=Bot.Kind.BUILTIN)
    version = services.version_create(bot=bot, by=staff, strategy="random")
    assert tasks.validate_version(version.pk) == BotVersion.Status.READY

    assert tasks.validate_version(version.pk) == BotVersion.Status.READY

    assert Match.objects.filter(entries__version=version).count() == 1


def test_a_handshake_is_signed_over_its_timestamp_and_an_empty_body() -> None:
    with running(good_bot("alices-bot")) as (server,):
        webhook.handshake(server.url, server.secret)
    [request] = server.requests
    assert request.body == b""
    assert webhook.verify(
        server.secret,
        request.headers["x-cya-timestamp"],
        b"",
        request.headers["x-cya-signature"],
    )


def test_a_new_version_is_sent_to_the_handshake_task_by_that_tasks_name() -> None:
    # services sit below the tasks that call them (the import contract on bots), so
    # version_create names its task instead of importing it
    assert tasks.handshake.name == services.HANDSHAKE


def test_a_new_version_without_a_tag_has_none_and_its_handshake_is_sent_once_created(
    staff: User,
    sent: list[tuple[Any, tuple[Any, ...]]],
    django_capture_on_commit_callbacks: DjangoCaptureOnCommitCallbacks,
) -> None:
    bot = services.bot_create(owner=staff, name="house-shark", kind=Bot.Kind.BUILTIN)

    with django_capture_on_commit_callbacks(execute=True):
        version = services.version_create(bot=bot, by=staff, strategy="shark")

    assert version.tag == ""
    assert [(task.name, args) for task, args in sent] == [(services.HANDSHAKE, (version.pk,))]


def test_a_passing_version_retires_its_own_bots_ready_and_paused_versions_only(
    staff: User, alice: User
) -> None:
    bot = services.bot_create(owner=staff, name="house-greedy", kind=Bot.Kind.BUILTIN)
    earlier = {
        status: services.version_create(bot=bot, by=staff, strategy="greedy")
        for status in (BotVersion.Status.READY, BotVersion.Status.PAUSED, BotVersion.Status.FAILED)
    }
    for status, version in earlier.items():
        BotVersion.objects.filter(pk=version.pk).update(status=status)
    newest = services.version_create(bot=bot, by=staff, strategy="shark")
    elsewhere = builtin_version(alice, "alices-bot", "random")

    services.version_validated(version=newest, passed=True, log=["passed"])

    statuses = {
        status: BotVersion.objects.get(pk=version.pk).status for status, version in earlier.items()
    }
    assert statuses == {
        BotVersion.Status.READY: BotVersion.Status.RETIRED,
        BotVersion.Status.PAUSED: BotVersion.Status.RETIRED,
        BotVersion.Status.FAILED: BotVersion.Status.FAILED,
    }
    elsewhere.refresh_from_db()
    assert elsewhere.status == BotVersion.Status.READY
    newest.refresh_from_db()
    assert (newest.status, newest.validation_log) == (BotVersion.Status.READY, ["passed"])


def test_the_handshake_alone_fails_a_bot_that_does_not_answer_with_no_game_played(
    alice: User,
) -> None:
    """The handshake is interactive work (cya_site.queues): its verdict comes without
    waiting for a batch worker to play the validation game."""
    refusing = BotServer("refusing", answer_legal(), handshake=Reply.json({}, status=503))
    with running(refusing) as (server,):
        version = new_webhook_version(alice, "alices-bot", server.url)

        assert tasks.handshake(version.pk) == BotVersion.Status.FAILED

    version.refresh_from_db()
    assert version.validation_log == ["handshake failed (http_error): HTTP 503"]
    assert not Match.objects.filter(entries__version=version).exists()


def test_a_handshake_that_passes_leaves_the_game_to_the_batch_task(alice: User) -> None:
    with running(good_bot("alices-bot")) as (server,):
        version = new_webhook_version(alice, "alices-bot", server.url)

        assert tasks.handshake(version.pk) == BotVersion.Status.VALIDATING
        version.refresh_from_db()
        assert version.validation_log == ["handshake: 'alices-bot', protocol 1"]
        assert not Match.objects.filter(entries__version=version).exists()

        assert tasks.validate_version(version.pk) == BotVersion.Status.READY

    assert len([r for r in server.requests if r.method == "GET"]) == 1  # one handshake
    version.refresh_from_db()
    assert version.validation_log[0] == "handshake: 'alices-bot', protocol 1"
    assert version.validation_log[-1] == "passed"
