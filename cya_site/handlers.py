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

The URL is resolved once a request: the match found to choose the path is kept in the
ASGI scope, and Django's own resolution takes it from there. (A profile of long-polls put
the two resolutions at about 5 % of uvicorn's CPU; benchmarks/wait_cost.py's figures
before and after were within its noise, 3.7 ms a pushed answer both.) And the match of
each of the last RESOLVED_PATHS paths is remembered, under the resolver it came from (a
new URLconf, as tests set, has a resolver of its own): the crowd of benchmarks/live.py
asks the same few paths again and again, and their resolution was still a tenth of
uvicorn's CPU there. A match is read, never changed, by what serves the request.

A view marked ``@lean`` (cya_site.lean) is asked first whether it answers the request
itself, without Django's request, middleware or view; Django answers what it leaves.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from functools import lru_cache
from typing import Any, TypeVar

from django.core.handlers.asgi import ASGIHandler
from django.http import HttpRequest
from django.urls import Resolver404, ResolverMatch, URLResolver, get_resolver, get_urlconf

from cya_site.lean import LEAN, Lean

V = TypeVar("V", bound=Callable[..., Any])
HOLDS_CONNECTION = "holds_connection"
RESOLVED = "cya_site.resolved"  # the scope's key for (path, match) found by Handler
RESOLVED_PATHS = 4096  # the paths whose match is remembered (a crowd asks of a few)

Receive = Callable[[], Awaitable[Mapping[str, Any]]]
Send = Callable[[Mapping[str, Any]], Awaitable[None]]


def holds_connection(view: V) -> V:
    """Mark an async view whose response stays open while it waits (a stream, a wait)."""
    setattr(view, HOLDS_CONNECTION, True)
    return view


def _resolved(path: str) -> ResolverMatch | None:
    """The URLconf's match for ``path`` (None: no page), remembered for the last
    RESOLVED_PATHS paths under the current resolver."""
    return _resolved_by(get_resolver(get_urlconf()), path)


@lru_cache(maxsize=RESOLVED_PATHS)
def _resolved_by(resolver: URLResolver, path: str) -> ResolverMatch | None:
    try:
        return resolver.resolve(path)
    except Resolver404:
        return None


class Handler(ASGIHandler):
    """Django's ASGI handler, serving ``@holds_connection`` views with no thread of
    their own, and resolving each URL once (see the module docstring)."""

    async def __call__(self, scope: dict[str, Any], receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await super().__call__(scope, receive, send)
            return
        match = _resolved(scope["path"])
        scope[RESOLVED] = (scope["path"], match)
        lean: Lean | None = getattr(match.func, LEAN, None) if match is not None else None
        if lean is not None and match is not None:
            onward = await lean(scope, receive, send, match)
            if onward is None:
                return
            send = onward
        if match is not None and getattr(match.func, HOLDS_CONNECTION, False):
            await self.handle(scope, receive, send)
        else:
            await super().__call__(scope, receive, send)

    def resolve_request(self, request: HttpRequest) -> ResolverMatch:
        """The match ``__call__`` found, when it is for this request's path and no
        middleware changed its URLconf; Django's resolution otherwise."""
        kept: tuple[str, ResolverMatch | None] = getattr(request, "scope", {}).get(
            RESOLVED, ("", None)
        )
        path, match = kept
        if match is None or path != request.path_info or hasattr(request, "urlconf"):
            resolved: ResolverMatch = super().resolve_request(request)
            return resolved
        request.resolver_match = match
        return match
