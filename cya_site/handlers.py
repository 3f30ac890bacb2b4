"""The ASGI handler: Django's, with no thread held by a request that stays open.

Django serves each ASGI request inside asgiref's ``ThreadSensitiveContext``: the first
piece of synchronous code the request runs (its middleware's ``process_request``, through
``MiddlewareMixin``) starts a thread of the request's own, which then idles until the
request ends. For a stream or a long-poll that is as long as the client stays: a thread
(and its stack and bookkeeping, about 80 KB of resident memory) per open stream, most of
what a stream cost (issue 25's ``kb_per_stream``, benchmarks/live.py).

A view marked ``@holds_connection`` is served outside that context: the synchronous parts
of its middleware run on asgiref's one shared thread, briefly, while the request opens
and when it ends; the wait itself runs on the event loop (games.api.stream,
games.api.waits). Every other request keeps a thread of its own, as Django serves it.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from typing import Any, TypeVar

from django.core.handlers.asgi import ASGIHandler
from django.urls import Resolver404, resolve

V = TypeVar("V", bound=Callable[..., Any])
HOLDS_CONNECTION = "holds_connection"

Receive = Callable[[], Awaitable[Mapping[str, Any]]]
Send = Callable[[Mapping[str, Any]], Awaitable[None]]


def holds_connection(view: V) -> V:
    """Mark an async view whose response stays open while it waits (a stream, a wait)."""
    setattr(view, HOLDS_CONNECTION, True)
    return view


def _holds_connection(path: str) -> bool:
    try:
        match = resolve(path)
    except Resolver404:
        return False
    return bool(getattr(match.func, HOLDS_CONNECTION, False))


class Handler(ASGIHandler):
    """Django's ASGI handler, serving ``@holds_connection`` views with no thread of
    their own (see the module docstring)."""

    async def __call__(self, scope: dict[str, Any], receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and _holds_connection(scope["path"]):
            await self.handle(scope, receive, send)
        else:
            await super().__call__(scope, receive, send)
