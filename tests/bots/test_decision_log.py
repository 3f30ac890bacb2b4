"""A bot's decision log: each decision's request size, answer, latency, strike and debug
note, kept compressed for its owner, shown beside the replay's moves and downloaded as
NDJSON, expired after DECISION_LOG_DAYS; nobody but the owner ever sees it.

The bots are real HTTP servers on 127.0.0.1 (tests/bots/bot_servers.py) answering with
debug notes, and a real API client acting through a live server.
"""

from __future__ import annotations

import base64
import json
import threading
import time
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
import pytest
from django.test import Client
from django.utils import timezone
from pytest_django import Settings
from pytest_django.live_server_helper import LiveServer
from rest_framework.test import APIClient

from accounts import belongings, lifecycle
from accounts.models import User
from bots import decision_log, runner, services, tasks, webhook
from bots.models import BotVersion, DecisionLog, Match, Strike
from bots.validation import builtin_versions
from cya_site import queues
from games import services as game_services
from games.engine import RuleSet
from games.models import Game
from tests.bots.bot_servers import (
    BotServer,
    Reply,
    api_client_version,
    illegal_action,
    legal_choice,
    running,
    webhook_version,
)
from tests.bots.checks import control_of, quick

LONG = "é" * 700  # 1,400 bytes of UTF-8: kept as its first 1,024 (512 characters)


def debugging_bot() -> BotServer:
    """Answers a legal action with a debug note naming the decision; its first answer is
    an illegal action (a strike), its second carries an over-long note."""
    answered: list[int] = []

    def behave(bot: BotServer, decision: dict[str, Any]) -> Reply:
        answered.append(decision["version"])
        if len(answered) == 1:
            return Reply.json({"action": illegal_action(decision), "debug": "trying a swap"})
        note = LONG if len(answered) == 2 else f"chose at {decision['version']}"
        return Reply.json({"action": legal_choice(decision), "debug": note})

    return BotServer("debugging", behave, check_signatures=True)


def webhook_match(owner: User, bot: BotServer) -> tuple[Match, BotVersion]:
    version = webhook_version(owner, "alices-bot", bot)
    opponent = builtin_versions()[2]
    match = services.match_create(
        versions=[version, opponent],
        rules=quick(2),
        duplicate=False,
        decision_ms=1000,
        time_bank_ms=2000,
    )
    return match, version


@pytest.fixture
def played(alice: User) -> Iterator[tuple[Match, BotVersion, BotServer]]:
    with running(debugging_bot()) as (bot,):
        match, version = webhook_match(alice, bot)
        runner.run_match(match)
        yield match, version, bot


# --- kept, for every decision ----------------------------------------------------------------


def test_every_webhook_decision_is_kept_with_its_request_size_answer_latency_strike_and_note(
    played: tuple[Match, BotVersion, BotServer],
) -> None:
    match, version, bot = played
    control = control_of(match, version.pk)
    game_id, seat = control.seat.game_id, control.seat.number
    rows = DecisionLog.objects.filter(game_id=game_id)
    assert [(r.seat, r.version_id) for r in rows] == [(seat, version.pk)]  # one batch a game
    lines = decision_log.lines(game_id, [seat])
    sent = [r for r in bot.requests if r.method == "POST"]
    assert [line["version"] for line in lines] == [r.decision()["version"] for r in sent]
    assert rows[0].decisions == len(lines)

    answers = [json.loads(r.body) for r in sent]  # what the bot answered, decided again
    first, second, rest = lines[0], lines[1], lines[2:]
    assert first["strike"] == Strike.Reason.ILLEGAL
    assert first["strike_detail"] == control.strike_log.get().detail
    assert first["answer"] == illegal_action(answers[0])
    assert first["debug"] == "trying a swap"
    assert second["debug"] == "é" * 512
    assert len(second["debug"].encode()) == 1024
    for line, request in zip(lines, sent, strict=True):
        assert line["request_bytes"] == len(request.body)
        assert line["seat"] == seat
        assert 0 <= line["latency_ms"] < 3000
    for line, decision in zip(rest, answers[2:], strict=True):
        assert line["answer"] == legal_choice(decision)
        assert line["strike"] is None
        assert line["debug"] == f"chose at {decision['version']}"
    strikes = list(control.strike_log.values_list("game_version", "reason"))
    assert strikes == [(first["version"], Strike.Reason.ILLEGAL)]


def test_a_batch_is_one_compressed_row_much_smaller_than_its_ndjson(
    played: tuple[Match, BotVersion, BotServer],
) -> None:
    row = DecisionLog.objects.get()
    assert len(row.data) < row.raw_bytes / 3
    ndjson = b"".join(map(decision_log.ndjson_line, decision_log.decode(row.data)))
    assert len(ndjson) == row.raw_bytes


def test_the_stored_format_is_pinned() -> None:
    line = decision_log.Entry(7, 1, 3, 12, 2210, {"type": "pass"}, 38, debug="why").line(
        datetime(2026, 11, 27, 9, 0, tzinfo=UTC)
    )
    stored = base64.b64decode(PINNED)
    assert decision_log.decode(stored) == [line]
    assert decision_log.encode([line]) == (stored, len(decision_log.ndjson_line(line)))


PINNED = "eLvJspBVQ1JjaARTZYihzMjI0ACLldAARHGusQW61/CkjPKMSjyJA54qAJa5Mn8="


def test_a_debug_note_is_cut_to_one_kib_of_utf8_never_inside_a_character() -> None:
    assert webhook.debug_note("ok") == "ok"
    assert webhook.debug_note("a" * 1024) == "a" * 1024
    assert webhook.debug_note("a" * 1025) == "a" * 1024
    assert webhook.debug_note("a" + "€" * 400) == "a" + "€" * 341  # 1 + 3*341 = 1,024
    assert webhook.debug_note(["not", "a", "string"]) == ""
    assert webhook.debug_note(None) == ""


# --- an API-client bot ----------------------------------------------------------------------


class DebuggingClient(threading.Thread):
    """An API-client bot acting through a live server, with a debug note each time."""

    def __init__(self, base_url: str, key: str, game_id: int) -> None:
        super().__init__(daemon=True)
        self.base_url, self.key, self.game_id = base_url, key, game_id
        self.acted: list[int] = []
        self.error: BaseException | None = None

    def run(self) -> None:
        try:
            self._play()
        except BaseException as error:  # reported by the test
            self.error = error

    def _play(self) -> None:
        url = f"/api/v1/games/{self.game_id}/"
        headers = {"Authorization": f"Bearer {self.key}"}
        with httpx.Client(base_url=self.base_url, headers=headers, timeout=15) as http:
            give_up = time.monotonic() + 60
            while time.monotonic() < give_up:
                body = http.get(url + "decision/").json()
                if body["status"] != Game.Status.ACTIVE:
                    return
                decision = body["decision"]
                if decision is None or decision["deadline"] is None:
                    http.get(url + "wait/", params={"after": body["version"], "timeout": 1})
                    continue
                answer = {
                    "action": legal_choice(decision),
                    "version": decision["version"],
                    "debug": f"client at {decision['version']}",
                }
                response = http.post(url + "actions/", json=answer)
                assert response.status_code == 201, response.text
                self.acted.append(decision["version"])


def test_an_api_client_bots_actions_are_kept_with_their_debug_notes(
    transactional_db: None, live_server: LiveServer, alice: User
) -> None:
    version = api_client_version(alice, "alices-client")
    _, key = services.bot_token_create(bot=version.bot, by=alice, name="play")
    match = services.match_create(
        versions=[version, builtin_versions()[2]],
        rules=quick(2),
        duplicate=False,
        decision_ms=3000,
        time_bank_ms=2000,
    )
    game = Game.objects.get(match_game__match=match)
    client = DebuggingClient(live_server.url, key, game.pk)
    client.start()
    runner.run_match(match)
    client.join(timeout=30)

    assert client.error is None, repr(client.error)
    seat = control_of(match, version.pk).seat.number
    lines = decision_log.lines(game.pk, [seat])
    assert [line["version"] for line in lines] == client.acted
    for line in lines:
        assert line["debug"] == f"client at {line['version']}"
        assert line["request_bytes"] is None  # it reads its decision itself
        assert line["strike"] is None
        assert 0 <= line["latency_ms"] < 5000
        assert line["answer"]["type"]


def test_an_api_client_that_never_acts_has_its_timeouts_kept(alice: User) -> None:
    silent = api_client_version(alice, "silent-client")
    match = services.match_create(
        versions=[silent, builtin_versions()[2]],
        rules=quick(2),
        duplicate=False,
        decision_ms=100,
        time_bank_ms=100,
    )
    runner.run_match(match)

    control = control_of(match, silent.pk)
    lines = decision_log.lines(control.seat.game_id, [control.seat.number])
    assert [line["strike"] for line in lines] == [Strike.Reason.TIMEOUT] * 3
    assert [line["answer"] for line in lines] == [None] * 3
    assert lines[0]["strike_detail"] == "no action within 200 ms"
    assert all(line["latency_ms"] >= 100 for line in lines)


def test_a_persons_debug_field_is_accepted_and_kept_nowhere(
    api_as: Callable[[User], APIClient], alice: User, bob: User
) -> None:
    game = people_game(alice, bob)
    person = alice if game.to_act == 0 else bob
    url = f"/api/v1/games/{game.pk}/"
    decision = api_as(person).get(url + "decision/").json()["decision"]
    body = {"action": decision["legal_actions"][0], "version": game.version, "debug": "mine"}
    response = api_as(person).post(url + "actions/", body, format="json")

    assert response.status_code == 201, response.content
    assert not DecisionLog.objects.exists()


def people_game(alice: User, bob: User) -> Game:
    game = game_services.game_create(by=alice, rules=RuleSet.preset("2021", seats=2))
    game_services.game_join(game=game, user=bob, start=False)
    return game_services.game_start(game=game, by=alice)


# --- shown to the owner, and to nobody else ---------------------------------------------


def test_the_owner_downloads_the_log_as_ndjson_through_the_api_and_the_page(
    played: tuple[Match, BotVersion, BotServer], alice: User
) -> None:
    match, version, _ = played
    game_id = control_of(match, version.pk).seat.game_id
    api = APIClient()
    api.force_authenticate(alice)
    response = api.get(f"/api/v1/bots/{version.bot_id}/decision-log/", {"game": game_id})
    assert response.status_code == 200
    assert response["Content-Type"] == "application/x-ndjson"
    assert response["Cache-Control"] == "private, no-store"
    lines = [json.loads(line) for line in response.content.splitlines()]
    seat = control_of(match, version.pk).seat.number
    assert lines == decision_log.lines(game_id, [seat])

    page = Client()
    page.force_login(alice)
    download = page.get(f"/bots/{version.bot.name}/games/{game_id}/decision-log/")
    assert download.status_code == 200
    assert download.content == response.content
    assert "attachment" in download["Content-Disposition"]


def test_the_owner_sees_each_decision_beside_its_step_in_the_replay(
    played: tuple[Match, BotVersion, BotServer], alice: User
) -> None:
    match, version, _ = played
    control = control_of(match, version.pk)
    game_id = control.seat.game_id
    lines = decision_log.lines(game_id, [control.seat.number])
    page = Client()
    page.force_login(alice)

    html = page.get(f"/games/{game_id}/replay/").content.decode()
    assert "trying a swap" in html
    assert "Strike: illegal" in html
    assert f"/bots/{version.bot.name}/games/{game_id}/decision-log/" in html
    assert html.count('class="decision-log"') == len(lines)

    step = lines[-1]["version"] + 1  # the move the last answer made
    board = page.get(f"/games/{game_id}/replay/board/", {"step": step}).content.decode()
    assert f"chose at {lines[-1]['version']}" in board
    assert f"in {lines[-1]['latency_ms']} ms" in board


def test_nobody_but_the_owner_ever_sees_the_log(
    transactional_db: None,  # the stream reads on a connection of its own
    played: tuple[Match, BotVersion, BotServer],
    alice: User,
    bob: User,
    staff: User,
) -> None:
    match, version, _ = played
    game_id = control_of(match, version.pk).seat.game_id
    secret = "trying a swap"
    log_url = f"/api/v1/bots/{version.bot_id}/decision-log/?game={game_id}"
    page_url = f"/bots/{version.bot.name}/games/{game_id}/decision-log/"

    for viewer in (None, bob, staff, version.bot.user):  # signed out, others, the bot itself
        api, page = APIClient(), Client()
        if viewer is not None:
            api.force_authenticate(viewer)
            page.force_login(viewer)
        for path in (
            f"/api/v1/games/{game_id}/",
            f"/api/v1/games/{game_id}/replay/",
            f"/api/v1/games/{game_id}/events/",
            f"/api/v1/games/{game_id}/observation/",
            f"/api/v1/games/{game_id}/replay/view/?step=3&seat=0",
            f"/api/v1/bots/{version.bot_id}/",
            f"/api/v1/bots/{version.bot_id}/strikes/",
            f"/games/{game_id}/replay/",
            f"/games/{game_id}/replay/?step=2&seat=0",
            f"/games/{game_id}/replay/board/?step=2",
            f"/games/{game_id}/",
        ):
            body = (api if path.startswith("/api/") else page).get(path).content.decode()
            assert secret not in body, (viewer, path)
            assert "decision-log" not in body or path.startswith("/api/"), (viewer, path)
        refused = api.get(log_url)
        assert refused.status_code in (401, 403)
        assert refused.json()["code"] in ("not_authenticated", "permission_denied")
        assert page.get(page_url).status_code in (302, 403)

    for viewer in (alice, bob):  # the stream, even the owner's, never carries it
        page = Client()
        page.force_login(viewer)
        stream = page.get(f"/api/v1/games/{game_id}/stream/")
        assert stream.status_code == 200, stream.content
        first = next(iter(stream.streaming_content))  # type: ignore[attr-defined]
        stream.close()
        assert json.loads(first)["type"] == "game"
        assert secret.encode() not in first


def test_bad_requests_for_a_log_get_a_clear_error(
    played: tuple[Match, BotVersion, BotServer], alice: User
) -> None:
    match, version, _ = played
    api = APIClient()
    api.force_authenticate(alice)
    url = f"/api/v1/bots/{version.bot_id}/decision-log/"

    missing = api.get(url)
    assert missing.status_code == 400
    assert missing.json()["code"] == "invalid"
    assert "game" in missing.json()["details"]
    assert api.get(url, {"game": "x"}).json()["code"] == "invalid"
    other = Game.objects.exclude(pk=control_of(match, version.pk).seat.game_id).first()
    none = api.get(url, {"game": other.pk if other else 999_999})
    assert none.status_code == 404
    assert none.json()["code"] == "no_decision_log"
    page = Client()
    page.force_login(alice)
    assert page.get(f"/bots/{version.bot.name}/games/999999/decision-log/").status_code == 404


# --- kept for DECISION_LOG_DAYS ---------------------------------------------------------------


def test_logs_older_than_the_retention_are_deleted_by_the_sweep(
    played: tuple[Match, BotVersion, BotServer], settings: Settings
) -> None:
    settings.DECISION_LOG_DAYS = 30
    kept = DecisionLog.objects.get()
    old = DecisionLog.objects.create(
        game_id=kept.game_id,
        seat=kept.seat,
        version_id=kept.version_id,
        first_version=0,
        decisions=1,
        raw_bytes=kept.raw_bytes,
        data=kept.data,
        created_at=timezone.now() - timedelta(days=30, minutes=1),
    )

    assert tasks.expire_decision_logs() == 1
    assert list(DecisionLog.objects.all()) == [kept]
    assert not DecisionLog.objects.filter(pk=old.pk).exists()
    assert tasks.expire_decision_logs() == 0  # a rerun finds nothing left
    settings.DECISION_LOG_DAYS = 1
    assert decision_log.expire(timezone.now() + timedelta(days=1, minutes=1)) == 1
    assert not DecisionLog.objects.exists()


def test_the_sweep_is_scheduled_and_routed(settings: Settings) -> None:
    beat = settings.CELERY_BEAT_SCHEDULE["decision_logs"]
    assert beat["task"] == "bots.expire_decision_logs"
    assert beat["schedule"] == float(settings.DECISION_LOG_SWEEP_SECONDS)
    assert queues.TASK_CLASSES["bots.expire_decision_logs"] == queues.BATCH


def test_the_owners_data_download_names_each_kept_log_and_where_to_fetch_it(
    played: tuple[Match, BotVersion, BotServer], alice: User, bob: User
) -> None:
    match, version, _ = played
    control = control_of(match, version.pk)

    mine = lifecycle.user_export(user=alice)
    theirs = lifecycle.user_export(user=bob)

    (bot,) = [b for b in mine["bots"] if b["name"] == version.bot.name]
    game = control.seat.game_id
    assert bot["decision_logs"] == [
        {
            "game": game,
            "seat": control.seat.number,
            "version": version.number,
            "decisions": len(decision_log.lines(game, [control.seat.number])),
            "download": f"/api/v1/bots/{version.bot_id}/decision-log/?game={game}",
        }
    ]
    assert all(b["decision_logs"] == [] for b in theirs["bots"])


def test_deleting_the_owners_account_deletes_their_bots_logs(
    played: tuple[Match, BotVersion, BotServer], alice: User
) -> None:
    for step in belongings.departure_steps():
        step(alice, "deleted-player")
    assert not DecisionLog.objects.exists()


def test_each_owner_sees_only_their_own_bots_seat_at_a_shared_table(alice: User, bob: User) -> None:
    with running(debugging_bot(), debugging_bot()) as (alices, bobs):
        mine = webhook_version(alice, "alices-bot", alices)
        theirs = webhook_version(bob, "bobs-bot", bobs)
        match = services.match_create(
            versions=[mine, theirs],
            rules=quick(2),
            duplicate=False,
            decision_ms=1000,
            time_bank_ms=2000,
        )
        runner.run_match(match)

    game_id = control_of(match, mine.pk).seat.game_id
    seats = {v.pk: control_of(match, v.pk).seat.number for v in (mine, theirs)}
    for owner, own, other in ((alice, mine, theirs), (bob, theirs, mine)):
        api, page = APIClient(), Client()
        api.force_authenticate(owner)
        page.force_login(owner)
        html = page.get(f"/games/{game_id}/replay/").content.decode()
        own_lines = decision_log.lines(game_id, [seats[own.pk]])
        marker = f'class="decision-log" data-seat="{seats[own.pk]}"'
        assert html.count(marker) == len(own_lines)
        assert f'class="decision-log" data-seat="{seats[other.pk]}"' not in html
        assert f"/bots/{other.bot.name}/games/" not in html
        refused = api.get(f"/api/v1/bots/{other.bot_id}/decision-log/", {"game": game_id})
        assert refused.status_code == 403
        assert refused.json()["code"] == "permission_denied"
        got = api.get(f"/api/v1/bots/{own.bot_id}/decision-log/", {"game": game_id})
        assert {json.loads(line)["seat"] for line in got.content.splitlines()} == {seats[own.pk]}
