"""Lean answers (cya_site.lean): which requests may be answered lean, the headers a lean
answer learns from Django's, and a client that goes away. The wait answered lean, end to
end on uvicorn, is in tests/games/test_lean_waits.py."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from typing import Any

import pytest
from django.urls import ResolverMatch
from pytest_django import Settings

from cya_site import lean

JSON = (b"content-type", b"application/json")


def scope(*headers: tuple[bytes, bytes], method: str = "GET") -> dict[str, Any]:
    return {
        "type": "http",
        "method": method,
        "scheme": "http",
        "path": "/x/",
        "query_string": b"",
        "client": ("10.0.0.9", 5555),
        "headers": [(b"host", b"testserver"), *headers],
    }


def test_an_anonymous_get_is_of_a_kind_and_anything_else_is_never_lean(
    settings: Settings,
) -> None:
    settings.SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    plain = lean.kind_of(scope((b"accept", b"*/*")))
    behind_tls = lean.kind_of(scope((b"accept", b"*/*"), (b"x-forwarded-proto", b"https")))

    assert plain == ("http", "testserver", "*/*", "", "")
    assert behind_tls == ("http", "testserver", "*/*", "", "https")
    assert lean.kind_of(scope(method="POST")) is None
    assert lean.kind_of(scope((b"cookie", b"sessionid=abc"))) is None
    assert lean.kind_of(scope((b"authorization", b"Bearer x"))) is None
    assert lean.kind_of(scope((b"accept", b"*/*"), (b"accept", b"text/html"))) is None


class Sent:
    """What an answer sent, as the ASGI server would receive it."""

    def __init__(self) -> None:
        self.messages: list[Mapping[str, Any]] = []

    async def __call__(self, message: Mapping[str, Any]) -> None:
        self.messages.append(message)

    def headers(self) -> dict[bytes, bytes]:
        return dict(self.messages[0]["headers"])


async def _nothing_more() -> Mapping[str, Any]:
    await asyncio.sleep(3600)
    return {"type": "http.disconnect"}


def _view_answering(body: bytes) -> lean.Lean:
    async def answer(request: lean.LeanRequest) -> bool:
        await request.respond(200, body)
        return True

    return lean.Lean(answer)


def _serve(view: lean.Lean, request: dict[str, Any], send: Sent) -> Any:
    match = ResolverMatch(lambda r: None, (), {}, route="x/")
    return asyncio.run(view(request, _nothing_more, send, match))


def test_a_kind_is_answered_lean_only_once_django_answered_it_and_with_its_headers() -> None:
    view, request = _view_answering(b'{"lean":true}'), scope((b"x-request-id", b"req-7"))
    first, second = Sent(), Sent()

    onward = _serve(view, request, first)
    django_headers = [JSON, (b"Vary", b"Accept"), (b"X-Request-ID", b"theirs")]
    asyncio.run(onward({"type": "http.response.start", "status": 200, "headers": django_headers}))
    answered = _serve(view, request, second)

    assert onward is not first
    assert first.messages[0]["headers"] == django_headers
    assert answered is None
    assert second.messages[1] == {"type": "http.response.body", "body": b'{"lean":true}'}
    headers = second.headers()
    assert headers[b"vary"] == b"Accept"
    assert headers[b"content-type"] == b"application/json"
    assert headers[b"x-request-id"] == b"req-7"  # its own, never the one learned
    assert headers[b"content-length"] == b"13"
    assert headers[b"server-timing"].startswith(b"app;dur=")


@pytest.mark.parametrize(
    ("status", "headers"),
    [
        (200, [(b"content-type", b"text/html; charset=utf-8")]),  # a page, for a browser
        (200, [JSON, (b"set-cookie", b"csrftoken=abc")]),  # that client's alone
        (404, [JSON]),  # an error
    ],
)
def test_nothing_is_learned_from_an_answer_a_lean_one_could_not_be(
    status: int, headers: list[tuple[bytes, bytes]]
) -> None:
    view = _view_answering(b"{}")
    onward = _serve(view, scope(), Sent())
    asyncio.run(onward({"type": "http.response.start", "status": status, "headers": headers}))

    assert view.learned == {}
    assert _serve(view, scope(), Sent()) is not None  # still Django's


def test_the_kinds_remembered_are_bounded_the_oldest_forgotten_first() -> None:
    view = _view_answering(b"{}")
    kinds = [scope((b"accept-language", f"x-{n}".encode())) for n in range(lean.LEARNED_KINDS + 1)]
    for request in kinds:
        onward = _serve(view, request, Sent())
        asyncio.run(onward({"type": "http.response.start", "status": 200, "headers": [JSON]}))

    assert len(view.learned) == lean.LEARNED_KINDS
    assert lean.kind_of(kinds[0]) not in view.learned
    assert lean.kind_of(kinds[-1]) in view.learned


def test_lean_answers_turned_off_leave_every_request_to_django(settings: Settings) -> None:
    view = _view_answering(b"{}")
    onward = _serve(view, scope(), Sent())
    asyncio.run(onward({"type": "http.response.start", "status": 200, "headers": [JSON]}))
    settings.LEAN_ANSWERS = False
    send = Sent()

    assert _serve(view, scope(), send) is send


def test_a_client_that_goes_away_cancels_the_work_at_once() -> None:
    cancelled = asyncio.Event()

    async def work() -> str:
        try:
            await asyncio.sleep(3600)
        except asyncio.CancelledError:
            cancelled.set()
            raise
        return "never"

    async def scenario() -> tuple[Any, bool]:
        messages: list[Mapping[str, Any]] = [
            {"type": "http.request", "body": b""},
            {"type": "http.disconnect"},
        ]

        async def receive() -> Mapping[str, Any]:
            await asyncio.sleep(0.05)
            return messages.pop(0)

        match = ResolverMatch(lambda r: None, (), {}, route="x/")
        request = lean.LeanRequest(scope(), receive, Sent(), match, [])
        found = await asyncio.wait_for(request.while_connected(work()), 5)
        await asyncio.sleep(0)
        return found, cancelled.is_set()

    assert asyncio.run(scenario()) == (None, True)
