"""A real webhook receiver for tests: an HTTP server on 127.0.0.1 that records deliveries.

It answers each POST with the next status of its script (then 200 for ever) and keeps
every request: headers, body, and whether the signature verified under its secret with
``bots.webhook.verify``, exactly as an organiser's endpoint would check it::

    with Receiver(statuses=[500]) as receiver:
        services.webhook_add(competition=comp, by=olga, url=receiver.url, secret=SECRET)
        ...
        receiver.wait_for(2)
"""

from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any

from bots import webhook

SECRET = "club-webhook-secret-0123456789"


@dataclass(frozen=True)
class Delivered:
    """One request the receiver got, and what it answered."""

    headers: dict[str, str]
    body: bytes
    signature_ok: bool
    answered: int

    def json(self) -> dict[str, Any]:
        data: dict[str, Any] = json.loads(self.body)
        return data


class _Handler(BaseHTTPRequestHandler):
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:
        pass  # keep test output clean

    def do_POST(self) -> None:
        receiver = self.server.receiver
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        headers = {k.lower(): v for k, v in self.headers.items()}
        ok = webhook.verify(
            receiver.secret,
            headers.get("x-cya-timestamp", ""),
            body,
            headers.get("x-cya-signature", ""),
        )
        status = receiver.next_status()
        receiver.record(Delivered(headers, body, ok, status))
        self.send_response(status)
        self.send_header("Content-Length", "0")
        self.end_headers()


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    receiver: Receiver


class Receiver:
    """An organiser's endpoint: scripted answers, every delivery recorded."""

    def __init__(self, statuses: list[int] | None = None, secret: str = SECRET) -> None:
        self.secret = secret
        self._statuses = list(statuses or [])
        self._lock = threading.Lock()
        self.received: list[Delivered] = []
        self._server = _Server(("127.0.0.1", 0), _Handler)
        self._server.receiver = self
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}/hooks/cya"
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    def next_status(self) -> int:
        with self._lock:
            return self._statuses.pop(0) if self._statuses else 200

    def record(self, delivered: Delivered) -> None:
        with self._lock:
            self.received.append(delivered)

    def events(self) -> list[str]:
        with self._lock:
            return [d.headers["x-cya-event"] for d in self.received]

    def wait_for(self, count: int, timeout: float = 30.0) -> list[Delivered]:
        """Block until ``count`` requests arrived; fail the test after ``timeout`` seconds."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            with self._lock:
                if len(self.received) >= count:
                    return list(self.received)
            time.sleep(0.05)
        raise AssertionError(f"{len(self.received)} of {count} deliveries within {timeout} s")

    def __enter__(self) -> Receiver:
        self._thread.start()
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)
