"""Real webhook bots for tests: small HTTP servers on 127.0.0.1 speaking the bot protocol.

Each bot is a standard-library ``ThreadingHTTPServer`` on a free port, served from a
daemon thread, that answers the handshake (``GET``) and decisions (``POST``) its own way
and records every request it received: method, headers, body, the connection it came
on, and whether its signature verified under the bot's secret. Use one as a context
manager::

    with good_bot() as bot:
        version = webhook_version(alice, "alices-bot", bot)
        ...
        assert bot.signatures_all_valid()

The behaviours are the faults the platform must survive: ``slow_bot`` (sleeps past the
deadline), ``trickle_bot`` (sends its answer in pieces, each in time, the whole late),
``http_error_bot`` (500), ``garbage_bot`` (not JSON), ``illegal_bot`` (a
well-formed action not among the legal ones), ``malformed_bot`` (an action that is not
well formed) and ``hangup_bot`` (closes the connection without answering).
"""

from __future__ import annotations

import json
import random
import socket
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import closing, contextmanager
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any

from accounts.models import User
from bots import services, webhook
from bots.models import Bot, BotVersion

SECRET = "test-secret-0123456789abcdef"


@dataclass(frozen=True)
class Received:
    """One request a bot received."""

    method: str
    headers: dict[str, str]
    body: bytes
    connection: int  # the n-th connection the server accepted (1, 2, ...)
    signature_ok: bool

    def decision(self) -> dict[str, Any]:
        """The decision a POST carried."""
        data: dict[str, Any] = json.loads(self.body)
        return data


@dataclass(frozen=True)
class Reply:
    """What a bot answers: a status and raw body, or ``hang_up`` (close without a word)."""

    status: int = 200
    body: bytes = b""
    hang_up: bool = False
    pause: float = 0.0  # seconds before each half of the body (the headers go at once)
    location: str = ""  # a Location header: with a 3xx, a redirect the platform must not follow

    @classmethod
    def json(cls, data: Any, status: int = 200) -> Reply:
        return cls(status, json.dumps(data).encode())


Behaviour = Callable[["BotServer", dict[str, Any]], Reply]


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on (at the moment of asking)."""
    with closing(socket.socket(socket.AF_INET, socket.SOCK_STREAM)) as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive: the platform reuses connections
    disable_nagle_algorithm = True  # no delayed-ACK stall between headers and body
    wbufsize = 64 * 1024  # the reply leaves in one write, flushed after each request
    server: _Server

    def setup(self) -> None:
        super().setup()
        self.connection_number = self.server.bot.connection_opened()

    def log_message(self, format: str, *args: Any) -> None:
        pass  # keep test output clean

    def _receive(self) -> Received:
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        timestamp = self.headers.get("X-CYA-Timestamp", "")
        signature = self.headers.get("X-CYA-Signature", "")
        received = Received(
            method=self.command,
            headers={k.lower(): v for k, v in self.headers.items()},
            body=body,
            connection=self.connection_number,
            signature_ok=webhook.verify(self.server.bot.secret, timestamp, body, signature),
        )
        self.server.bot.record(received)
        return received

    def _send(self, reply: Reply) -> None:
        if reply.hang_up:
            self.close_connection = True
            return
        try:
            self.send_response(reply.status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(reply.body)))
            if reply.location:
                self.send_header("Location", reply.location)
            self.end_headers()
            if reply.pause:
                half = len(reply.body) // 2
                for piece in (reply.body[:half], reply.body[half:]):
                    self.wfile.flush()
                    time.sleep(reply.pause)
                    self.wfile.write(piece)
            else:
                self.wfile.write(reply.body)
        except OSError:  # the platform gave up waiting (a slow bot): nobody to answer
            self.close_connection = True

    def do_GET(self) -> None:
        self._receive()
        self._send(self.server.bot.handshake())

    def do_POST(self) -> None:
        received = self._receive()
        bot = self.server.bot
        if bot.check_signatures and not received.signature_ok:
            self._send(Reply.json({"error": "bad signature"}, status=401))
            return
        try:
            decision = received.decision()
        except ValueError:
            self._send(Reply.json({"error": "not JSON"}, status=400))
            return
        self._send(bot.behaviour(bot, decision))


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    bot: BotServer

    def handle_error(self, request: Any, client_address: Any) -> None:
        pass  # a dropped connection is part of what these bots do


class BotServer:
    """A running webhook bot: its URL, secret, and every request it received."""

    def __init__(
        self,
        name: str,
        behaviour: Behaviour,
        *,
        secret: str = SECRET,
        check_signatures: bool = False,
        handshake: Reply | None = None,
    ) -> None:
        self.name = name
        self.behaviour = behaviour
        self.secret = secret
        self.check_signatures = check_signatures
        self._handshake = handshake
        self._saved: tuple[Behaviour, Reply | None] = (behaviour, handshake)
        self._lock = threading.Lock()
        self._requests: list[Received] = []
        self._connections = 0
        self._server = _Server(("127.0.0.1", 0), _Handler)
        self._server.bot = self
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}/bot"

    def handshake(self) -> Reply:
        if self._handshake is not None:
            return self._handshake
        return Reply.json({"name": self.name, "protocol_version": webhook.PROTOCOL_VERSION})

    def stop_answering(self) -> None:
        """From now on hang up on every request, the handshake too: a bot whose process
        died behind a proxy that still takes connections."""
        self._saved = (self.behaviour, self._handshake)
        self.behaviour, self._handshake = hang_up, Reply(hang_up=True)

    def answer_again(self) -> None:
        """Answer as before ``stop_answering``."""
        self.behaviour, self._handshake = self._saved

    def connection_opened(self) -> int:
        with self._lock:
            self._connections += 1
            return self._connections

    def record(self, received: Received) -> None:
        with self._lock:
            self._requests.append(received)

    @property
    def requests(self) -> list[Received]:
        with self._lock:
            return list(self._requests)

    @property
    def connections(self) -> int:
        """How many TCP connections the platform opened to this bot."""
        with self._lock:
            return self._connections

    def decisions(self) -> list[dict[str, Any]]:
        """The decisions the bot was sent, in order."""
        return [r.decision() for r in self.requests if r.method == "POST"]

    def signatures_all_valid(self) -> bool:
        requests = self.requests
        return bool(requests) and all(r.signature_ok for r in requests)

    def start(self) -> BotServer:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)
        drop_webhook_connections()

    def __enter__(self) -> BotServer:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()


def drop_webhook_connections() -> None:
    """Close this thread's pooled webhook connections (their servers are going away)."""
    client = getattr(webhook._local, "client", None)
    if client is not None:
        client.close()
        webhook._local.client = None


# --- behaviours ---------------------------------------------------------------------------


def legal_choice(decision: dict[str, Any]) -> dict[str, Any]:
    """A legal action, chosen at random but the same every time for one decision."""
    action: dict[str, Any] = random.Random(decision["decision_id"]).choice(
        decision["legal_actions"]
    )
    return action


def answer_legal(delay: float = 0.0) -> Behaviour:
    def behave(bot: BotServer, decision: dict[str, Any]) -> Reply:
        if delay:
            time.sleep(delay)
        return Reply.json({"action": legal_choice(decision), "debug": "good"})

    return behave


def sleep_past_deadline(bot: BotServer, decision: dict[str, Any]) -> Reply:
    budget_ms = decision["decision_ms"] + decision["time_bank_ms"]
    time.sleep(budget_ms / 1000 + 0.3)
    return Reply.json({"action": legal_choice(decision)})


def trickle_past_deadline(bot: BotServer, decision: dict[str, Any]) -> Reply:
    """A legal action sent in two halves, each well within the deadline, both past it."""
    budget_ms = decision["decision_ms"] + decision["time_bank_ms"]
    return Reply(
        200,
        json.dumps({"action": legal_choice(decision)}).encode(),
        pause=0.7 * budget_ms / 1000,
    )


def answer_500(bot: BotServer, decision: dict[str, Any]) -> Reply:
    return Reply.json({"error": "boom"}, status=500)


def answer_garbage(bot: BotServer, decision: dict[str, Any]) -> Reply:
    return Reply(200, b"<html>this is not JSON</html>")


# Well-formed actions (parsed without complaint by the engine); one is never legal now.
WELL_FORMED = (
    {"type": "swap", "target": 0},
    {"type": "end_turn"},
    {"type": "pass"},
    {"type": "concede"},
    {"type": "choose_move", "direction": "top_to_bottom"},
)


def illegal_action(decision: dict[str, Any]) -> dict[str, Any]:
    """A well-formed action that is not among the decision's legal actions."""
    legal = decision["legal_actions"]
    return next(dict(a) for a in WELL_FORMED if a not in legal)


def answer_illegal(bot: BotServer, decision: dict[str, Any]) -> Reply:
    return Reply.json({"action": illegal_action(decision)})


def answer_malformed(bot: BotServer, decision: dict[str, Any]) -> Reply:
    return Reply.json({"action": {"type": "bribe", "dollars": 1000}})


def hang_up(bot: BotServer, decision: dict[str, Any]) -> Reply:
    return Reply(hang_up=True)


def good_bot(name: str = "good", delay: float = 0.0) -> BotServer:
    """Verifies every signature (401 otherwise) and answers a legal action."""
    return BotServer(name, answer_legal(delay), check_signatures=True)


def slow_bot() -> BotServer:
    return BotServer("slow", sleep_past_deadline)


def trickle_bot() -> BotServer:
    return BotServer("trickle", trickle_past_deadline)


def http_error_bot() -> BotServer:
    return BotServer("http500", answer_500)


def garbage_bot() -> BotServer:
    return BotServer("garbage", answer_garbage)


def illegal_bot() -> BotServer:
    return BotServer("illegal", answer_illegal)


def malformed_bot() -> BotServer:
    return BotServer("malformed", answer_malformed)


def hangup_bot() -> BotServer:
    return BotServer("hangup", hang_up)


@contextmanager
def running(*bots: BotServer) -> Iterator[tuple[BotServer, ...]]:
    """Start several bots; stop them all afterwards."""
    for bot in bots:
        bot.start()
    try:
        yield bots
    finally:
        for bot in bots:
            bot.stop()


# --- versions -----------------------------------------------------------------------------


def webhook_version(
    owner: User, name: str, bot: BotServer | str, *, status: str = BotVersion.Status.READY
) -> BotVersion:
    """A webhook bot entry of ``owner`` calling ``bot`` (a server or a URL), one version.

    The version is created directly with ``status`` (ready unless told), so no
    validation task is queued: tests that are about validation create versions through
    ``bots.services.version_create`` instead.
    """
    entry = services.bot_create(owner=owner, name=name, kind=Bot.Kind.WEBHOOK)
    url = bot if isinstance(bot, str) else bot.url
    secret = SECRET if isinstance(bot, str) else bot.secret
    return BotVersion.objects.create(bot=entry, number=1, url=url, secret=secret, status=status)


def api_client_version(owner: User, name: str) -> BotVersion:
    """An API-client bot entry of ``owner`` with one ready version."""
    entry = services.bot_create(owner=owner, name=name, kind=Bot.Kind.API_CLIENT)
    return BotVersion.objects.create(bot=entry, number=1, status=BotVersion.Status.READY)


def builtin_version(owner: User, name: str, strategy: str) -> BotVersion:
    """A built-in strategy entry owned by ``owner`` (not the platform), one ready version.

    ``bot_create`` lets only staff register built-ins, so it is made by the platform user
    and handed over: tests need built-ins of different owners to fill ladder tables.
    """
    entry = services.bot_create(owner=services.platform_user(), name=name, kind=Bot.Kind.BUILTIN)
    entry.owner = owner
    entry.save(update_fields=["owner"])
    return BotVersion.objects.create(
        bot=entry, number=1, strategy=strategy, status=BotVersion.Status.READY
    )
