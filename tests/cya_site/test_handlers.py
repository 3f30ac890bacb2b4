"""The ASGI handler (cya_site.handlers): a waiting view served with no thread of its own
(tests/games/test_waits.py, test_stream.py run it under uvicorn), and every URL resolved
once a request, its match remembered for the next."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from typing import Any

import pytest
from asgiref.sync import async_to_sync
from django.urls.resolvers import URLResolver

from cya_site import handlers
from cya_site.handlers import Handler

pytestmark = pytest.mark.django_db


def served(path: str) -> tuple[int, dict[bytes, bytes]]:
    """``path`` through the site's ASGI handler: its status and headers."""
    scope = {
        "type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": "GET",
        "scheme": "http", "path": path, "raw_path": path.encode(), "query_string": b"",
        "root_path": "", "headers": [(b"host", b"testserver")], "client": ("127.0.0.1", 5000),
        "server": ("testserver", 80),
    }  # fmt: skip
    sent: list[dict[str, Any]] = []
    bodies = [{"type": "http.request", "body": b"", "more_body": False}]

    async def receive() -> dict[str, Any]:
        if bodies:
            return bodies.pop()
        await asyncio.Event().wait()  # the client stays until the answer (never set)
        raise AssertionError("unreachable")

    async def send(message: Mapping[str, Any]) -> None:
        sent.append(dict(message))

    async_to_sync(Handler())(scope, receive, send)
    start = next(m for m in sent if m["type"] == "http.response.start")
    return start["status"], dict(start["headers"])


# paths answered without the database: Django's handler closes the connections when a
# request starts, the test's own among them
@pytest.mark.parametrize("path", ["/healthz", "/no-such-page/"])
def test_a_url_is_resolved_once_and_its_match_remembered(
    path: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    handlers._resolved_by.cache_clear()
    resolved: list[str] = []
    real = URLResolver.resolve

    def counted(self: URLResolver, path: str) -> Any:
        if self.pattern.describe() == "'^/'":  # the root resolver: one call a resolution
            resolved.append(path)
        return real(self, path)

    monkeypatch.setattr(URLResolver, "resolve", counted)

    status, headers = served(path)
    again, _ = served(path)

    assert status == again == (404 if path == "/no-such-page/" else 200)
    assert b"X-Request-ID" in headers
    assert resolved == [path]  # the first request's; the second's was remembered
