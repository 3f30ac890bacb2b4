"""A version's health (bots.health): paused off the ladder when its answers keep failing,
its owner told, its rating kept; paused and resumed by hand, on the page and the API.

The automatic pause is shown against a real webhook bot (tests/bots/bot_servers.py) that
plays a rated match well and then stops answering: it hangs up on every request. The
owner's alert webhook is a real server too, on loopback (every address the suite lets
webhooks reach); nothing here calls any other address.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from datetime import timedelta

import pytest
from django.core import mail
from django.test import Client
from pytest_django import DjangoCaptureOnCommitCallbacks, Settings
from rest_framework.test import APIClient

from accounts.models import User
from bots import health, ladder, runner, selectors, services, tasks
from bots.models import Bot, BotVersion, Match, RatingChange, SeatControl
from bots.validation import builtin_versions
from cya_site import dispatch
from tests.bots.bot_servers import (
    BotServer,
    Reply,
    api_client_version,
    builtin_version,
    good_bot,
    webhook_version,
)
from tests.bots.checks import quick

RULES = health.Limits(strikes=6, autopilot_games=3, window=timedelta(minutes=60))


@pytest.fixture
def server() -> Iterator[BotServer]:
    """alice's bot's server: it answers well until a test stops it answering."""
    with good_bot("alices-bot") as bot:
        yield bot


@pytest.fixture
def version(alice: User, server: BotServer) -> BotVersion:
    return webhook_version(alice, "alices-bot", server)


@pytest.fixture
def alerts() -> Iterator[BotServer]:
    """alice's alert webhook: records what it is sent, answers 200."""
    with BotServer("alerts", lambda bot, body: Reply.json({"ok": True})) as hook:
        yield hook


def ladder_match(version: BotVersion) -> Match:
    """A rated ladder match of ``version`` and two built-ins: three games (duplicate deals)."""
    shark, greedy, _ = builtin_versions()
    return services.match_create(versions=[version, shark, greedy], rules=quick(3))


def controls(match: Match, version: BotVersion) -> list[SeatControl]:
    return list(
        SeatControl.objects.filter(seat__game__match_game__match=match, version=version).order_by(
            "seat__game__match_game__rotation"
        )
    )


# --- the rule (pure) ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("streak", "games", "reason"),
    [
        (0, 0, None),
        (5, 2, None),
        (6, 0, BotVersion.PauseReason.STRIKES),
        (9, 3, BotVersion.PauseReason.STRIKES),  # both: the strikes are said first
        (2, 3, BotVersion.PauseReason.AUTOPILOT),
    ],
)
def test_the_verdict_pauses_at_n_strikes_in_a_row_or_m_autopilot_games(
    streak: int, games: int, reason: str | None
) -> None:
    found = health.verdict(streak=streak, autopilot_games=games, rules=RULES)

    assert (found[0] if found else None) == reason


def test_the_verdict_says_why_in_words() -> None:
    assert health.verdict(streak=6, autopilot_games=0, rules=RULES) == (
        "strikes",
        "6 strikes in a row across games",
    )
    assert health.verdict(streak=0, autopilot_games=3, rules=RULES) == (
        "autopilot",
        "3 games on autopilot within 60 minutes",
    )


def test_the_settings_give_the_limits(settings: Settings) -> None:
    settings.BOT_PAUSE_STRIKES, settings.BOT_PAUSE_AUTOPILOT_GAMES = 4, 2
    settings.BOT_PAUSE_WINDOW_MINUTES = 15

    assert health.limits() == health.Limits(4, 2, timedelta(minutes=15))


# --- the automatic pause, against a real bot server that stops answering --------------------


def test_a_ladder_bot_that_stops_answering_is_paused_and_its_rating_stays(
    alice: User, bob: User, server: BotServer, version: BotVersion, settings: Settings
) -> None:
    settings.BOT_PAUSE_STRIKES = 6  # two games of three strikes each
    healthy = ladder_match(version)
    runner.run_match(healthy)
    version.refresh_from_db()
    assert version.status == BotVersion.Status.READY
    assert RatingChange.objects.filter(match=healthy, version=version).exists()
    rated = (version.mu, version.sigma, version.games_played, version.matches_played)

    server.stop_answering()
    dying = ladder_match(version)
    runner.run_match(dying)

    version.refresh_from_db()
    assert version.status == BotVersion.Status.PAUSED
    assert version.pause_reason == BotVersion.PauseReason.STRIKES
    assert version.pause_detail.startswith("6 strikes in a row across games; the latest: ")
    assert "connection_error" in version.pause_detail
    # two games of three strikes; the third game's seat went to the autopilot at the pause
    first, second, third = controls(dying, version)
    assert (first.strikes, second.strikes, third.strikes) == (3, 3, 0)
    assert version.paused_at is not None
    assert third.autopilot_since == version.paused_at
    # the match is rated for the others, never for the paused version
    dying.refresh_from_db()
    assert dying.status == Match.Status.FINISHED
    assert dying.rating_changes.count() == 2
    assert not RatingChange.objects.filter(match=dying, version=version).exists()
    assert (version.mu, version.sigma, version.games_played, version.matches_played) == rated
    # off the ladder: not on the board, not seatable, never scheduled
    assert version.pk not in {row["version_id"] for row in selectors.leaderboard()}
    assert not selectors.seatable_versions().filter(pk=version.pk).exists()
    builtin_version(bob, "bobs-bot", "greedy")
    settings.LADDER_TABLES, settings.LADDER_SEATS = 1, [3]
    (scheduled,) = ladder.schedule()
    assert not scheduled.entries.filter(version=version).exists()


def test_a_bot_whose_games_keep_going_to_the_autopilot_is_paused(
    server: BotServer, version: BotVersion, settings: Settings
) -> None:
    settings.BOT_PAUSE_STRIKES = 1000
    settings.BOT_PAUSE_AUTOPILOT_GAMES = 2
    server.stop_answering()

    runner.run_match(ladder_match(version))

    version.refresh_from_db()
    assert version.status == BotVersion.Status.PAUSED
    assert version.pause_reason == BotVersion.PauseReason.AUTOPILOT
    assert version.pause_detail.startswith("2 games on autopilot within 60 minutes")


def test_a_good_answer_starts_the_strikes_in_a_row_again(
    version: BotVersion, settings: Settings
) -> None:
    settings.BOT_PAUSE_STRIKES = 3
    (control, *_) = controls(ladder_match(version), version)

    for _ in range(2):
        services.strike_record(
            control=control, game_version=1, reason="timeout", detail="late", elapsed_ms=9
        )
    version.refresh_from_db()
    assert version.strike_streak == 2
    health.answered(version)
    services.strike_record(
        control=control, game_version=2, reason="timeout", detail="late", elapsed_ms=9
    )

    version.refresh_from_db()
    assert (version.strike_streak, version.status) == (1, BotVersion.Status.READY)


def test_strikes_of_a_version_being_validated_do_not_count(
    alice: User, server: BotServer, settings: Settings
) -> None:
    settings.BOT_PAUSE_STRIKES = 1
    pending = webhook_version(alice, "alices-bot", server, status=BotVersion.Status.VALIDATING)
    (control, *_) = controls(ladder_match_unrated(pending), pending)

    services.strike_record(
        control=control, game_version=1, reason="timeout", detail="", elapsed_ms=1
    )

    pending.refresh_from_db()
    assert (pending.status, pending.strike_streak) == (BotVersion.Status.VALIDATING, 0)


def ladder_match_unrated(version: BotVersion) -> Match:
    shark, greedy, _ = builtin_versions()
    return services.match_create(
        versions=[version, shark, greedy], kind=Match.Kind.VALIDATION, rules=quick(3)
    )


# --- telling the owner ------------------------------------------------------------------------


def paused(version: BotVersion, settings: Settings, server: BotServer) -> BotVersion:
    settings.BOT_PAUSE_STRIKES = 3
    server.stop_answering()
    runner.run_match(ladder_match(version))
    version.refresh_from_db()
    assert version.status == BotVersion.Status.PAUSED
    return version


def test_the_owner_is_told_by_email_and_on_the_alert_webhook_once(
    alice: User,
    server: BotServer,
    version: BotVersion,
    alerts: BotServer,
    settings: Settings,
) -> None:
    health.bot_alerts_set(bot=version.bot, by=alice, url=alerts.url)
    version = paused(version, settings, server)

    assert tasks.notify_pause(version.pk) == "emailed, alert webhook: HTTP 200"

    (message,) = mail.outbox
    assert message.to == ["alice@example.com"]
    assert message.subject == "Your bot alices-bot v1 was paused"
    assert "3 strikes in a row across games" in message.body
    assert "/bots/alices-bot/" in message.body
    (request,) = alerts.requests
    assert request.method == "POST"
    assert request.headers["x-cya-event"] == "version.paused"
    assert request.signature_ok  # signed with the version's webhook secret
    body = request.decision()
    assert {k: body[k] for k in ("event", "bot", "version", "reason")} == {
        "event": "version.paused",
        "bot": "alices-bot",
        "version": 1,
        "reason": "strikes",
    }
    # a redelivered task finds the owner told
    assert tasks.notify_pause(version.pk) == "told already, or no longer paused"
    assert len(mail.outbox) == 1
    assert len(alerts.requests) == 1


def test_an_owner_without_an_address_or_alert_webhook_reads_it_on_the_page(
    alice: User, server: BotServer, version: BotVersion, settings: Settings, client: Client
) -> None:
    User.objects.filter(pk=alice.pk).update(email="")
    version = paused(version, settings, server)

    assert tasks.notify_pause(version.pk) == "nothing to tell on"
    assert mail.outbox == []
    client.force_login(alice)
    html = client.get("/bots/alices-bot/").content.decode()
    assert "paused: off the ladder until resumed" in html
    assert "its answers failed again and again" in html
    assert "3 strikes in a row across games" in html
    assert 'action="/bots/alices-bot/resume/"' in html


def test_the_automatic_pause_sends_the_notice_after_the_commit(
    server: BotServer,
    version: BotVersion,
    settings: Settings,
    django_capture_on_commit_callbacks: DjangoCaptureOnCommitCallbacks,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    sent: list[tuple[str, tuple[object, ...]]] = []
    monkeypatch.setattr(dispatch, "send", lambda task, args=(), **_: sent.append((task.name, args)))
    settings.BOT_PAUSE_STRIKES = 3
    server.stop_answering()
    match = ladder_match(version)

    with django_capture_on_commit_callbacks(execute=True):
        runner.run_match(match)

    assert (health.NOTIFY_PAUSE, (version.pk,)) in sent


# --- by hand: the API twin -------------------------------------------------------------------


def test_an_owner_pauses_and_resumes_through_the_api(
    alice: User, server: BotServer, version: BotVersion, api_as: Callable[[User], APIClient]
) -> None:
    api = api_as(alice)
    bot = version.bot

    paused_body = api.post(f"/api/v1/bots/{bot.pk}/pause/").json()
    again = api.post(f"/api/v1/bots/{bot.pk}/pause/")

    assert (paused_body["status"], paused_body["pause_reason"]) == ("paused", "owner")
    assert paused_body["pause_detail"] == "paused by alice"
    assert again.status_code == 409
    assert again.json()["code"] == "nothing_to_pause"
    handshakes = len([r for r in server.requests if r.method == "GET"])

    resumed = api.post(f"/api/v1/bots/{bot.pk}/resume/")

    assert resumed.status_code == 200
    assert (resumed.json()["status"], resumed.json()["pause_reason"]) == ("ready", "")
    assert len([r for r in server.requests if r.method == "GET"]) == handshakes + 1
    not_paused = api.post(f"/api/v1/bots/{bot.pk}/resume/")
    assert (not_paused.status_code, not_paused.json()["code"]) == (409, "not_paused")
    assert mail.outbox == []  # a pause by hand tells nobody: the owner did it


def test_resume_repeats_the_handshake_and_refuses_while_it_fails(
    alice: User,
    server: BotServer,
    version: BotVersion,
    settings: Settings,
    api_as: Callable[[User], APIClient],
) -> None:
    version = paused(version, settings, server)
    api = api_as(alice)

    refused = api.post(f"/api/v1/bots/{version.bot.pk}/resume/")

    assert refused.status_code == 409
    body = refused.json()
    assert body["code"] == "handshake_failed"
    assert body["details"]["reason"] == "connection_error"
    version.refresh_from_db()
    assert version.status == BotVersion.Status.PAUSED

    server.answer_again()
    resumed = api.post(f"/api/v1/bots/{version.bot.pk}/resume/")

    assert resumed.status_code == 200
    version.refresh_from_db()
    assert (version.status, version.strike_streak) == (BotVersion.Status.READY, 0)
    assert version.health_since is not None
    assert version.paused_at is None


def test_only_the_owner_or_staff_pause_and_resume(
    bob: User, version: BotVersion, api_as: Callable[[User], APIClient]
) -> None:
    api = api_as(bob)

    for verb in ("pause", "resume"):
        response = api.post(f"/api/v1/bots/{version.bot.pk}/{verb}/")
        assert (response.status_code, response.json()["code"]) == (403, "permission_denied")
    assert APIClient().post(f"/api/v1/bots/{version.bot.pk}/pause/").status_code == 401
    version.refresh_from_db()
    assert version.status == BotVersion.Status.READY


def test_the_alert_webhook_is_checked_and_only_its_owner_sees_it(
    alice: User,
    bob: User,
    version: BotVersion,
    alerts: BotServer,
    api_as: Callable[[User], APIClient],
) -> None:
    api = api_as(alice)
    bot = version.bot

    refused = api.post(f"/api/v1/bots/{bot.pk}/alerts/", {"url": "http://10.9.8.7/hook"})
    saved = api.post(f"/api/v1/bots/{bot.pk}/alerts/", {"url": alerts.url})

    assert (refused.status_code, refused.json()["code"]) == (422, "webhook_address_refused")
    assert saved.status_code == 200
    assert saved.json()["alert_url"] == alerts.url
    assert Bot.objects.get(pk=bot.pk).alert_url == alerts.url
    assert api_as(bob).get(f"/api/v1/bots/{bot.pk}/").json()["alert_url"] is None
    cleared = api.post(f"/api/v1/bots/{bot.pk}/alerts/", {"url": ""})
    assert cleared.json()["alert_url"] == ""


# --- by hand: the page ---------------------------------------------------------------------


def test_an_owner_pauses_and_resumes_on_the_page(
    alice: User, server: BotServer, version: BotVersion, client: Client
) -> None:
    client.force_login(alice)
    assert 'action="/bots/alices-bot/pause/"' in client.get("/bots/alices-bot/").content.decode()

    paused_page = client.post("/bots/alices-bot/pause/")

    assert paused_page.status_code == 302
    html = client.get("/bots/alices-bot/").content.decode()
    assert "its owner paused it" in html
    server.stop_answering()
    refused = client.post("/bots/alices-bot/resume/")
    assert refused.status_code == 409
    assert "The handshake failed (connection_error" in refused.content.decode()
    assert BotVersion.objects.get(pk=version.pk).status == BotVersion.Status.PAUSED

    server.answer_again()
    assert client.post("/bots/alices-bot/resume/").status_code == 302
    assert BotVersion.objects.get(pk=version.pk).status == BotVersion.Status.READY


def test_a_new_version_that_passes_retires_a_paused_one(alice: User, version: BotVersion) -> None:
    health.version_pause(bot=version.bot, by=alice)
    newer = BotVersion.objects.create(bot=version.bot, number=2, url=version.url, secret="x" * 16)

    services.version_validated(version=newer, passed=True, log=["passed"])

    version.refresh_from_db()
    assert version.status == BotVersion.Status.RETIRED


def test_an_api_client_version_has_no_handshake_and_resumes_at_once(
    alice: User, api_as: Callable[[User], APIClient]
) -> None:
    client_version = api_client_version(alice, "alices-client")
    api = api_as(alice)
    assert api.post(f"/api/v1/bots/{client_version.bot.pk}/pause/").status_code == 200

    resumed = api.post(f"/api/v1/bots/{client_version.bot.pk}/resume/")

    assert (resumed.status_code, resumed.json()["status"]) == (200, "ready")


def test_a_bot_whose_version_is_still_being_validated_has_nothing_to_pause(
    alice: User, server: BotServer, api_as: Callable[[User], APIClient]
) -> None:
    pending = webhook_version(alice, "alices-bot", server, status=BotVersion.Status.PENDING)

    refused = api_as(alice).post(f"/api/v1/bots/{pending.bot.pk}/pause/")

    assert (refused.status_code, refused.json()["code"]) == (409, "nothing_to_pause")
    assert refused.json()["details"] == {"bot": "alices-bot"}


def test_a_match_leaves_a_paused_versions_rating_down_both_seam_paths(
    seam_path: str, bob: User, carol: User
) -> None:
    paused_one = builtin_version(bob, "bobs-bot", "greedy")
    other = builtin_version(carol, "carols-bot", "shark")
    _, _, rnd = builtin_versions()
    match = services.match_create(versions=[paused_one, other, rnd], rules=quick(3))
    BotVersion.objects.filter(pk=paused_one.pk).update(status=BotVersion.Status.PAUSED)

    runner.run_match(match)

    match.refresh_from_db()
    assert match.status == Match.Status.FINISHED
    assert set(match.rating_changes.values_list("version_id", flat=True)) == {other.pk, rnd.pk}
    paused_one.refresh_from_db()
    assert (paused_one.mu, paused_one.games_played, paused_one.matches_played) == (25.0, 0, 0)
    other.refresh_from_db()
    assert (other.games_played, other.matches_played) == (3, 1)
