"""A webhook bot's HTTP server: the handshake, signed decisions and your ``decide``.

The platform calls the bot's URL (docs/bot-protocol.md):

- ``GET``: the handshake, answered with ``{"name": ..., "protocol_version": 1, ...}``.
- ``POST``: one decision. ``X-CYA-Timestamp`` carries the Unix time in seconds and
  ``X-CYA-Signature`` is ``sha256=`` + the hex HMAC-SHA256 of ``"<timestamp>.<body>"``
  under the version's secret. A request whose signature does not verify, or whose
  timestamp is further than ``tolerance`` seconds from now (a replayed request), gets
  401 before ``decide`` sees it. Otherwise the answer is ``{"action": <decide's
  choice>}``.

Standard library only: ``http.server`` with a thread per connection, keeping
connections alive between decisions as the platform does.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import logging
import os
import threading
import time
from collections.abc import Callable, Mapping
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

PROTOCOL_VERSION = 1
SIGNATURE_PREFIX = "sha256="
DEFAULT_TOLERANCE = 300  # seconds: older (or further future) timestamps are replays
MAX_BODY_BYTES = 1 << 20
MAX_DEBUG_BYTES = 1024  # the platform keeps this much of a debug note (bytes of UTF-8)

Decision = dict[str, Any]
Decide = Callable[[Decision], Mapping[str, Any]]

log = logging.getLogger("cya_bot.webhook")


def sign(secret: str, timestamp: str, body: bytes) -> str:
    """The ``X-CYA-Signature`` value of a request body sent at ``timestamp``."""
    digest = hmac.new(secret.encode(), timestamp.encode() + b"." + body, hashlib.sha256)
    return SIGNATURE_PREFIX + digest.hexdigest()


def verify(
    secret: str,
    timestamp: str,
    body: bytes,
    signature: str,
    *,
    tolerance: float = DEFAULT_TOLERANCE,
    now: float | None = None,
) -> bool:
    """Whether the platform signed this body, recently (compared in constant time)."""
    try:
        sent = int(timestamp)
    except ValueError:
        return False
    if abs((time.time() if now is None else now) - sent) > tolerance:
        return False
    return hmac.compare_digest(sign(secret, timestamp, body), signature)


def answer_of(choice: Mapping[str, Any]) -> dict[str, Any]:
    """The response body for what ``decide`` returned: an action, or a whole answer.

    ``decide`` may return the action itself (``{"type": "discard", ...}``) or the answer
    with a debug note for the bot's owner (``{"action": {...}, "debug": "why"}``), which
    the platform keeps in the bot's decision log, cut to 1 KiB (``note``, its older name,
    is sent as ``debug``).
    """
    if "type" in choice:
        return {"action": dict(choice)}
    if isinstance(choice.get("action"), Mapping):
        answer: dict[str, Any] = {"action": dict(choice["action"])}
        debug = choice.get("debug", choice.get("note"))
        if isinstance(debug, str):
            answer["debug"] = debug_note(debug)
        return answer
    raise TypeError('decide must return an action {"type": ...} or {"action": {...}}')


def debug_note(text: str) -> str:
    """A debug note cut to MAX_DEBUG_BYTES of UTF-8, never inside a character."""
    encoded = text.encode("utf-8", "surrogatepass")
    if len(encoded) <= MAX_DEBUG_BYTES:
        return text
    return encoded[:MAX_DEBUG_BYTES].decode("utf-8", "ignore")


class BotServer:
    """Serve a webhook bot: ``BotServer(decide, secret=...).serve_forever()``.

    ``secret`` defaults to the ``CYA_SECRET`` environment variable. ``port=0`` picks a
    free port; ``url`` names the one bound. ``start()`` serves from a background thread
    (for tests and embedding) and ``stop()`` ends it.
    """

    def __init__(
        self,
        decide: Decide,
        *,
        secret: str | None = None,
        name: str = "cya-bot",
        host: str = "127.0.0.1",
        port: int = 9001,
        tolerance: float = DEFAULT_TOLERANCE,
        info: Mapping[str, Any] | None = None,
    ) -> None:
        secret = os.environ.get("CYA_SECRET") if secret is None else secret
        if not secret:
            raise ValueError("BotServer needs the bot version's secret (secret= or CYA_SECRET)")
        self.decide = decide
        self.secret = secret
        self.tolerance = tolerance
        self.handshake_body = {"name": name, "protocol_version": PROTOCOL_VERSION, **(info or {})}
        self._server = _Server((host, port), _Handler)
        self._server.bot = self
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        """The URL the server answers on (enter it as the bot version's URL)."""
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}/"

    def serve_forever(self) -> None:
        """Serve until interrupted (Ctrl-C), printing the URL first."""
        print(f"cya-bot: listening on {self.url}", flush=True)
        try:
            self._server.serve_forever()
        except KeyboardInterrupt:
            pass
        finally:
            self._server.server_close()

    def start(self) -> BotServer:
        """Serve from a background thread; returns the server."""
        self._thread = threading.Thread(
            target=self._server.serve_forever,
            kwargs={"poll_interval": 0.05},  # stop() returns within 50 ms
            name="cya-bot-server",
            daemon=True,
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving and close the listening socket."""
        if self._thread is not None:
            self._server.shutdown()
            self._thread.join()
            self._thread = None
        self._server.server_close()

    def __enter__(self) -> BotServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def answer(self, decision: Decision) -> dict[str, Any]:
        """The answer to a verified decision."""
        return answer_of(self.decide(decision))


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    bot: BotServer

    def handle_error(self, request: Any, client_address: Any) -> None:
        # The platform gave up on a slow answer and closed the connection: not our fault.
        log.debug("connection from %s ended early", client_address, exc_info=True)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive: the platform reuses its connections
    disable_nagle_algorithm = True  # headers and body leave at once, not 40 ms apart
    server: _Server

    def do_GET(self) -> None:  # the handshake
        self._send(200, self.server.bot.handshake_body)

    def do_POST(self) -> None:  # a decision
        bot = self.server.bot
        try:
            length = int(self.headers.get("Content-Length", ""))
        except ValueError:
            self.close_connection = True  # the body was not read: the stream is lost
            self._send(411, {"error": "a decision needs a Content-Length"})
            return
        if not 0 <= length <= MAX_BODY_BYTES:
            self.close_connection = True
            self._send(413, {"error": f"bodies over {MAX_BODY_BYTES} bytes are refused"})
            return
        body = self.rfile.read(length)
        timestamp = self.headers.get("X-CYA-Timestamp", "")
        signature = self.headers.get("X-CYA-Signature", "")
        if not verify(bot.secret, timestamp, body, signature, tolerance=bot.tolerance):
            self._send(401, {"error": "bad or stale signature"})
            return
        try:
            decision = json.loads(body)
        except ValueError:
            self._send(400, {"error": "the body is not JSON"})
            return
        if not isinstance(decision, dict) or decision.get("type") != "decision":
            self._send(400, {"error": 'expected {"type": "decision", ...}'})
            return
        try:
            answer = bot.answer(decision)
        except Exception:
            log.exception("decide failed on decision %s", decision.get("decision_id"))
            self._send(500, {"error": "decide failed"})
            return
        self._send(200, answer)

    def _send(self, status: int, body: Mapping[str, Any]) -> None:
        data = json.dumps(body, separators=(",", ":")).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, format: str, *args: Any) -> None:
        log.debug("%s " + format, self.address_string(), *args)
