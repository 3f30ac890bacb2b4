"""The pull client against the real platform: a live server, a match runner, a real game.

The bot is an API-client entry seated with three built-ins; ``runner.run_game`` plays the
built-ins and waits for the bot's actions, as a Celery worker would, while the client
(the example process, or an in-process PullClient behind a flaky proxy) plays its seat.
"""

from __future__ import annotations

import json
import subprocess
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx
import pytest
from django.db import connection
from jsonschema import Draft202012Validator
from pytest_django.live_server_helper import LiveServer
from referencing import Registry, Resource

from accounts.models import User
from bots import decision_log, runner, services
from bots.models import Bot, BotVersion, Match, SeatControl
from bots.validation import builtin_versions
from cya_bot import PullClient
from games import services as game_services
from games.models import Event, Game

SCHEMAS = Path(__file__).resolve().parents[2] / "docs" / "schemas"
ENOUGH = 5  # decisions the bot's seat must have answered


@dataclass
class Table:
    """A running game: the bot's seat and token, and the runner's thread."""

    game: Game
    seat: int
    token: str
    errors: list[BaseException]
    thread: threading.Thread

    def answered(self) -> int:
        """Actions the bot submitted through the API so far."""
        return Event.objects.filter(game=self.game, seat=self.seat, origin="api").count()

    def wait_for(self, count: int, timeout: float = 30) -> None:
        deadline = time.monotonic() + timeout
        while self.answered() < count:
            assert not self.errors, self.errors
            assert time.monotonic() < deadline, f"the bot answered {self.answered()} in {timeout} s"
            time.sleep(0.05)


@pytest.fixture
def base_url(live_server: LiveServer) -> str:
    """The live server's address on 127.0.0.1 (it listens there as 'localhost')."""
    return live_server.url.replace("localhost", "127.0.0.1")


@pytest.fixture
def table(transactional_db: None, alice: User) -> Iterator[Table]:
    """An API-client bot of alice's at a four-seat table with the three built-ins."""
    bot = services.bot_create(owner=alice, name="puller", kind=Bot.Kind.API_CLIENT)
    version = BotVersion.objects.create(bot=bot, number=1, status=BotVersion.Status.READY)
    _, token = services.bot_token_create(bot=bot, by=alice, name="test")
    match = services.match_create(
        versions=[version, *builtin_versions()],
        kind=Match.Kind.FRIENDLY,
        seed=11,
        duplicate=False,
        decision_ms=5000,
        time_bank_ms=5000,
    )
    game = match.match_games.get().game
    seat = SeatControl.objects.get(seat__game=game, version=version).seat.number
    errors: list[BaseException] = []

    def run() -> None:
        try:
            runner.run_game(match, game)
        except BaseException as error:  # reported by the test, not lost in the thread
            errors.append(error)
        finally:
            connection.close()

    thread = threading.Thread(target=run, name="match-runner")
    thread.start()
    running = Table(game, seat, token, errors, thread)
    yield running
    # end the game so the runner returns at once instead of playing it out
    game.refresh_from_db()
    if game.status == Game.Status.ACTIVE:
        game_services.game_abort(game=game, by=services.platform_user(), reason="test over")
    thread.join(timeout=30)
    assert not thread.is_alive()
    assert not errors, errors


def test_the_example_pull_bot_plays_its_seat_with_idempotency_keys(
    base_url: str, table: Table, example: Callable[..., subprocess.Popen[str]]
) -> None:
    example("pull_bot", CYA_URL=base_url, CYA_TOKEN=table.token)
    table.wait_for(ENOUGH)
    events = Event.objects.filter(game=table.game, seat=table.seat, origin="api")
    assert all(e.idempotency_key for e in events)
    assert len({e.idempotency_key for e in events}) == events.count()
    assert not SeatControl.objects.get(seat__game=table.game, seat__number=table.seat).strikes


class _FlakyProxy(ThreadingHTTPServer):
    """Forwards to the platform, but drops the reply to the first action it forwards.

    The action is applied upstream and the client sees the connection close with no
    answer: exactly the case a retry with the same Idempotency-Key exists for.
    """

    daemon_threads = True

    def __init__(self, upstream: str) -> None:
        super().__init__(("127.0.0.1", 0), _ProxyHandler)
        self.upstream = httpx.Client(base_url=upstream, timeout=30)
        self.action_keys: list[str] = []
        self.dropped: str | None = None
        self.lock = threading.Lock()

    @property
    def url(self) -> str:
        host, port = self.server_address[:2]
        return f"http://{host!s}:{port}"


class _ProxyHandler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _FlakyProxy

    def do_GET(self) -> None:
        self._forward(b"")

    def do_POST(self) -> None:
        self._forward(self.rfile.read(int(self.headers["Content-Length"])))

    def _forward(self, body: bytes) -> None:
        proxy = self.server
        headers = {k: v for k, v in self.headers.items() if k.lower() not in ("host", "connection")}
        reply = proxy.upstream.request(self.command, self.path, content=body, headers=headers)
        if self.command == "POST" and self.path.endswith("/actions/"):
            key = self.headers["Idempotency-Key"]
            with proxy.lock:
                proxy.action_keys.append(key)
                drop = proxy.dropped is None
                if drop:
                    proxy.dropped = key
            if drop:
                self.close_connection = True  # applied upstream; the client hears nothing
                return
        self.send_response(reply.status_code)
        self.send_header("Content-Type", reply.headers.get("Content-Type", "application/json"))
        self.send_header("Content-Length", str(len(reply.content)))
        self.end_headers()
        self.wfile.write(reply.content)

    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture
def proxy(base_url: str) -> Iterator[_FlakyProxy]:
    server = _FlakyProxy(base_url)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server
    server.shutdown()
    server.server_close()
    server.upstream.close()


def _api_decision_validator() -> Draft202012Validator:
    schemas = [json.loads(p.read_text()) for p in SCHEMAS.glob("*.schema.json")]
    registry: Registry[Any] = Registry().with_resources(
        (s["$id"], Resource.from_contents(s)) for s in schemas
    )
    decision = next(s for s in schemas if s["title"] == "Decision request")
    return Draft202012Validator(
        {"$ref": decision["$id"] + "#/$defs/api_decision"}, registry=registry
    )


def test_the_client_retries_a_lost_answer_with_its_key_and_stops_when_told(
    table: Table, proxy: _FlakyProxy
) -> None:
    decisions: list[dict[str, Any]] = []

    def decide(decision: dict[str, Any]) -> dict[str, Any]:
        decisions.append(decision)
        action: dict[str, Any] = decision["legal_actions"][0]
        return action

    client = PullClient(
        proxy.url, table.token, decide, wait_seconds=1, games_every=0.2, backoff=0.05
    )
    runner_thread = threading.Thread(target=client.run, name="pull-client")
    runner_thread.start()
    try:
        table.wait_for(ENOUGH)
    finally:
        client.stop()
        runner_thread.join(timeout=10)
        client.close()
    assert not runner_thread.is_alive()
    # the dropped answer was sent again with the same key and applied once
    assert proxy.dropped is not None
    assert proxy.action_keys.count(proxy.dropped) == 2
    assert Event.objects.filter(game=table.game, idempotency_key=proxy.dropped).count() == 1
    assert client.answered >= ENOUGH
    assert client.answered == table.answered()
    # what the API hands a pull bot is the documented decision object
    validator = _api_decision_validator()
    for decision in decisions:
        assert list(validator.iter_errors(decision)) == []
        assert decision["seat"] == table.seat


def test_the_client_finds_only_the_active_games_it_sits_in(base_url: str, table: Table) -> None:
    with PullClient(base_url, table.token, lambda d: d["legal_actions"][0]) as client:
        assert client.active_games() == [table.game.pk]


def test_the_clients_debug_notes_reach_its_owners_decision_log(base_url: str, table: Table) -> None:
    def decide(decision: dict[str, Any]) -> dict[str, Any]:
        return {"action": decision["legal_actions"][0], "debug": f"at {decision['version']}"}

    client = PullClient(base_url, table.token, decide, wait_seconds=1, games_every=0.2)
    runner_thread = threading.Thread(target=client.run, name="pull-client")
    runner_thread.start()
    try:
        table.wait_for(ENOUGH)
    finally:
        client.stop()
        runner_thread.join(timeout=10)
        client.close()
    lines = decision_log.lines(table.game.pk, [table.seat])
    assert len(lines) >= ENOUGH
    assert [line["debug"] for line in lines] == [f"at {line['version']}" for line in lines]
