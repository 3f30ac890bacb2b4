"""Lean answers under the ASGI server: a request a crowd sends again and again, answered
on the event loop without Django's request, middleware or DRF.

An anonymous long-poll costs little itself (the hub already heard what it asks), but
Django's request object, its middleware chain and DRF's view machinery around it cost a
crowd's wait about 2 ms of CPU, and a crowd of 200 long-polls asking again at each change
saturated uvicorn (benchmarks/live.py, issue 25). A view marked ``@lean(answer)`` has
``answer`` try first: it answers what it can and says so, and leaves everything else
(a person's request, anything unusual, any refusal) to the view, through Django, as
before. So every error, every signed-in request and every first request is Django's.

What a lean answer must carry like Django's is kept with Django's own code:

- **Headers.** A lean answer carries the headers Django's middleware gave the last answer
  of the same view to the same *kind* of request (``kind_of``: the scheme, the host, and
  the request headers an answer's headers depend on), learned from Django's own answers:
  until Django has answered that kind once, answers of it are Django's. Only the
  request's own values (``X-Request-ID``, ``Server-Timing``, ``Content-Length``) are
  made here.
- **Only anonymous GETs without cookies** are lean: a cookie may carry a session (a
  person, their language), and ``Authorization`` a token.
- **The request id, the access line and the latency sample** (cya_site.tracing's
  ``begin`` and ``finished``), **the rate limits** on the same counters
  (cya_site.throttling's ``anonymous_spent``): a request it counted and then leaves to
  Django is not counted twice.
- **A client that goes away** cancels the answer within a moment, as Django's handler
  cancels a view (``LeanRequest.while_connected``).

``LEAN_ANSWERS`` (a setting, on by default) turns them off: every request is Django's.
tests/cya_site/test_lean.py compares a lean answer with Django's, header by header.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, TypeVar

from django.conf import settings
from django.http import HttpResponse
from django.urls import ResolverMatch

from cya_site import metrics, tracing

V = TypeVar("V", bound=Callable[..., Any])
T = TypeVar("T")
LEAN = "cya_site_lean"  # a view's attribute: its ``Lean``
LEARNED_KINDS = 64  # kinds of request whose headers a view remembers (a crowd sends one)
# made for each answer, never learned
_OWN = frozenset({b"x-request-id", b"server-timing", b"content-length", b"date", b"server"})
_NOT_LEAN = frozenset({b"cookie", b"authorization"})

Receive = Callable[[], Awaitable[Mapping[str, Any]]]
Send = Callable[[Mapping[str, Any]], Awaitable[None]]
Headers = list[tuple[bytes, bytes]]
Kind = tuple[str, ...]


def kind_of(scope: Mapping[str, Any]) -> Kind | None:
    """Which kind of request this is, as far as an answer's headers go: its scheme and
    the headers they depend on (the host, ``Accept``, ``Accept-Language``, and the
    proxy's HTTPS header if ``SECURE_PROXY_SSL_HEADER`` names one). None for a request
    no answer may be lean for: not a GET, with a cookie or ``Authorization``, or with
    one of those headers twice."""
    if scope["method"] != "GET":
        return None
    names = [b"host", b"accept", b"accept-language"]
    proxy = settings.SECURE_PROXY_SSL_HEADER
    if proxy:
        names.append(proxy[0].removeprefix("HTTP_").lower().replace("_", "-").encode())
    found: dict[bytes, str] = {}
    for name, value in scope["headers"]:
        if name in _NOT_LEAN:
            return None
        if name in names:
            if name in found:
                return None
            found[name] = value.decode("latin-1")
    return (scope["scheme"], *(found.get(name, "") for name in names))


class LeanRequest:
    """One request a lean answer serves: its scope, its URL's arguments, and the way to
    answer it with the learned headers (``respond``) or leave it to Django
    (``fall_back``)."""

    def __init__(
        self,
        scope: dict[str, Any],
        receive: Receive,
        send: Send,
        match: ResolverMatch,
        headers: Headers,
    ) -> None:
        self.scope = scope
        self.kwargs: dict[str, Any] = match.kwargs
        self.route = match.route
        self._receive = receive
        self._send = send
        self._headers = headers
        self.began: tracing.Began | None = None

    def header(self, name: bytes) -> str | None:
        """The request header ``name`` (lower case), its values joined as Django joins
        them; None if it was not sent."""
        values = [v.decode("latin-1") for n, v in self.scope["headers"] if n == name]
        return ",".join(values) if values else None

    def meta(self) -> dict[str, str]:
        """What the client's address is read from, as Django's request ``META`` has it."""
        client = self.scope.get("client")
        meta = {"REMOTE_ADDR": client[0] if client else ""}
        forwarded = self.header(b"x-forwarded-for")
        if forwarded is not None:
            meta["HTTP_X_FORWARDED_FOR"] = forwarded
        return meta

    def begin(self) -> tracing.Began:
        """Start the request's id and timing (cya_site.tracing), before any work."""
        if self.began is None:
            self.began = tracing.begin(self.header(b"x-request-id"))
        return self.began

    def fall_back(self, key: str, value: Any) -> None:
        """Leave the request to Django, telling it ``value`` under the scope's ``key``
        (for example the rate limits' verdict, so that it is not counted twice)."""
        self.scope[key] = value
        self._end()

    async def respond_with(self, response: HttpResponse) -> None:
        """Answer as a Django ``response`` made here says (an error in the one shape):
        its status, body and own headers (``Retry-After``, say) with the learned ones."""
        own = [
            (name.lower().encode("latin-1"), value.encode("latin-1"))
            for name, value in response.items()
            if name.lower() != "content-type"
        ]
        await self.respond(response.status_code, response.content, own)

    async def respond(self, status: int, body: bytes, more: Headers | None = None) -> None:
        """Answer ``status`` with ``body``, the learned headers and ``more``."""
        began = self.begin()
        answer = tracing.Finished("GET", self.route, status)
        timing = tracing.finished(answer, began.started, began.request_id, None, began.db_time)
        headers = [
            *self._headers,
            *(more or []),
            (b"content-length", str(len(body)).encode()),
            (tracing.HEADER.lower().encode(), began.request_id.encode()),
            (tracing.TIMING_HEADER.lower().encode(), timing.encode()),
        ]
        metrics.LEAN_ANSWERS.labels(self.route).inc()
        try:
            await self._send({"type": "http.response.start", "status": status, "headers": headers})
            await self._send({"type": "http.response.body", "body": body})
        finally:
            self._end()

    async def while_connected(self, work: Awaitable[T]) -> tuple[T] | None:
        """``work``'s result (in a 1-tuple), or None if the client went away first: then
        ``work`` is cancelled at once."""
        task = asyncio.ensure_future(work)
        gone = asyncio.ensure_future(self._disconnected())
        try:
            await asyncio.wait({task, gone}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for pending in (task, gone):
                if not pending.done():
                    pending.cancel()
        if not task.done() or task.cancelled():
            self._end()
            return None
        return (task.result(),)

    async def _disconnected(self) -> None:
        while (await self._receive())["type"] != "http.disconnect":
            pass  # the request's (empty) body

    def _end(self) -> None:
        if self.began is not None:
            self.began.reset()
            self.began = None


class Lean:
    """A view's lean answer (``answer``: True once it has answered) and the headers
    learned from Django's answers, by kind of request."""

    def __init__(self, answer: Callable[[LeanRequest], Awaitable[bool]]) -> None:
        self.answer = answer
        self.learned: dict[Kind, Headers] = {}

    async def __call__(
        self, scope: dict[str, Any], receive: Receive, send: Send, match: ResolverMatch
    ) -> Send | None:
        """None once the request is answered lean; else the ``send`` Django's answer goes
        through, which learns its headers."""
        kind = kind_of(scope) if settings.LEAN_ANSWERS else None
        if kind is None:
            return send
        headers = self.learned.get(kind)
        if headers is not None and await self.answer(
            LeanRequest(scope, receive, send, match, headers)
        ):
            return None

        async def learning(message: Mapping[str, Any]) -> None:
            if message["type"] == "http.response.start" and message["status"] == 200:
                self._learn(kind, list(message.get("headers", ())))
            await send(message)

        return learning

    def _learn(self, kind: Kind, headers: Headers) -> None:
        """Keep the headers of Django's answer to ``kind``: a JSON answer's only, which a
        lean answer is (a browser's ``Accept`` may have had DRF answer a page), and never
        one that sets a cookie, which is that client's alone."""
        named = [(n.lower(), v) for n, v in headers]
        json = (b"content-type", b"application/json") in named
        if not json or any(n == b"set-cookie" for n, _ in named):
            return
        if kind not in self.learned and len(self.learned) >= LEARNED_KINDS:
            del self.learned[next(iter(self.learned))]  # the oldest kind learned
        self.learned[kind] = [(n, v) for n, v in named if n not in _OWN]


def lean(answer: Callable[[LeanRequest], Awaitable[bool]]) -> Callable[[V], V]:
    """Mark a view as answered lean by ``answer`` when it can (see the module docstring);
    ``cya_site.handlers.Handler`` asks it first."""

    def mark(view: V) -> V:
        setattr(view, LEAN, Lean(answer))
        return view

    return mark
