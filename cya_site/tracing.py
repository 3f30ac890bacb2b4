"""Request ids: every response carries ``X-Request-ID``, every log line and error body too.

``RequestMiddleware`` (first in MIDDLEWARE) takes the client's id when it is sane (1 to 64
of ``A-Z a-z 0-9 . _ : -``: it goes into logs and headers, so nothing else) and makes one
otherwise (uuid4 hex). It keeps the id in a context variable for the request's lifetime,
so the log filter, the error bodies (cya_site.errors) and the tasks the request sends
(cya_site.celery passes it in the task's headers) all read the same id without being
handed it. When the response is ready it logs one ``cya_site.access`` line (route,
status, user, duration), observes the request latency histogram (cya_site.metrics) and
says the time the application spent in ``Server-Timing`` (``app;dur=`` milliseconds), and
of it the time in database queries (``db;dur=``, with their number), so a client tells
the server's share of a slow request from the network's and queueing's, and the
database's from the Python's. The queries are timed by a wrapper every connection gets
when it opens (``time_queries``), counting for the request whose context runs them: its
own thread's, or a thread pool's that ``sync_to_async`` runs in its context.

Log lines are JSON objects, one a line (python-json-logger): ``JsonFormatter`` below,
with ``RequestContext`` adding ``request_id`` to every record, whatever logged it.
"""

from __future__ import annotations

import logging
import re
import time
import uuid
from collections.abc import Awaitable, Callable
from contextvars import ContextVar
from typing import Any, NamedTuple

from asgiref.sync import iscoroutinefunction, markcoroutinefunction
from django.db.backends.base.base import BaseDatabaseWrapper
from django.http import HttpRequest, HttpResponseBase
from django.utils.functional import empty
from pythonjsonlogger.json import JsonFormatter as _LibraryJsonFormatter

from cya_site import metrics

HEADER = "X-Request-ID"
TIMING_HEADER = "Server-Timing"
_META_KEY = "HTTP_X_REQUEST_ID"
_SANE = re.compile(r"[A-Za-z0-9._:-]{1,64}")

# The id of the request (or task) this code runs for; "" outside either.
_current: ContextVar[str] = ContextVar("request_id", default="")
# The current request's database time: [seconds, queries]; None outside a request.
_db_time: ContextVar[list[float] | None] = ContextVar("db_time", default=None)

access_log = logging.getLogger("cya_site.access")


def current() -> str:
    """The request id of the request or task running now, or "" outside one."""
    return _current.get()


def new_id() -> str:
    """A fresh id: 32 hex digits."""
    return uuid.uuid4().hex


def sane(value: str | None) -> str | None:
    """``value`` if it may serve as a request id (logged and echoed as it is), else None."""
    if value is not None and _SANE.fullmatch(value):
        return value
    return None


def bind(request_id: str) -> Callable[[], None]:
    """Make ``request_id`` the current id; returns the function that restores the last."""
    token = _current.set(request_id)
    return lambda: _current.reset(token)


# The name of the catch-all routes (cya_site.urls) that answer 404 for any other path.
NOT_FOUND = "not-found"


def route_of(request: HttpRequest) -> str:
    """The URL pattern the request matched (``api/v1/games/<id:pk>/``), never its path:
    ids in paths would make a label per game. "unmatched" when no pattern of the site's
    matched (the catch-all 404 routes included)."""
    match = request.resolver_match
    if match is None or not match.route or match.url_name == NOT_FOUND:
        return "unmatched"
    return match.route


def _user_of(request: HttpRequest) -> int | None:
    """The signed-in user's id, if the request already knows it: a user nobody looked at
    (a lazy object still empty) is not loaded just to log it, which would cost a query."""
    user: Any = getattr(request, "user", None)
    if user is None or getattr(user, "_wrapped", None) is empty:
        return None
    return user.pk if getattr(user, "is_authenticated", False) else None


def _timed(execute: Callable[..., Any], sql: str, params: Any, many: bool, context: Any) -> Any:
    spent = _db_time.get()
    if spent is None:  # a task's or a command's query: nobody to tell
        return execute(sql, params, many, context)
    began = time.perf_counter()
    try:
        return execute(sql, params, many, context)
    finally:
        spent[0] += time.perf_counter() - began
        spent[1] += 1


def time_queries(sender: object, connection: BaseDatabaseWrapper, **kwargs: object) -> None:
    """``connection_created``'s receiver (cya_site.apps): the new connection's queries are
    timed for the request running them."""
    if _timed not in connection.execute_wrappers:
        connection.execute_wrappers.append(_timed)


class RequestMiddleware:
    """Request id in, ``X-Request-ID`` out; one access log line and one latency sample."""

    sync_capable = True
    async_capable = True

    def __init__(self, get_response: Callable[[HttpRequest], Any]) -> None:
        self.get_response = get_response
        self.is_async = iscoroutinefunction(get_response)
        if self.is_async:
            markcoroutinefunction(self)

    def __call__(self, request: HttpRequest) -> Any:
        if self.is_async:
            return self._acall(request)
        started, reset = self._begin(request)
        try:
            response: HttpResponseBase = self.get_response(request)
        finally:
            reset()
        return self._end(request, response, started)

    async def _acall(self, request: HttpRequest) -> HttpResponseBase:
        started, reset = self._begin(request)
        try:
            get_response: Callable[[HttpRequest], Awaitable[HttpResponseBase]] = self.get_response
            response: HttpResponseBase = await get_response(request)
        finally:
            reset()
        return self._end(request, response, started)

    @staticmethod
    def _begin(request: HttpRequest) -> tuple[float, Callable[[], None]]:
        began = begin(request.META.get(_META_KEY))
        request.request_id = began.request_id  # type: ignore[attr-defined]
        request.db_time = began.db_time  # type: ignore[attr-defined]
        return began.started, began.reset

    @staticmethod
    def _end(request: HttpRequest, response: HttpResponseBase, started: float) -> HttpResponseBase:
        request_id: str = request.request_id  # type: ignore[attr-defined]
        response[HEADER] = request_id
        response[TIMING_HEADER] = finished(
            Finished(request.method or "", route_of(request), response.status_code),
            started,
            request_id,
            _user_of(request),
            request.db_time,  # type: ignore[attr-defined]
        )
        return response


class Began(NamedTuple):
    """A request under way: its id, when it came, its database time so far ([seconds,
    queries]), and the function that restores the context when it is answered."""

    request_id: str
    started: float
    db_time: list[float]
    reset: Callable[[], None]


def begin(client_id: str | None) -> Began:
    """Start timing a request that came with ``client_id`` in ``X-Request-ID`` (kept when
    sane, else a new id), its id and database time made the context's."""
    request_id = sane(client_id) or new_id()
    spent: list[float] = [0.0, 0]
    timing = _db_time.set(spent)
    unbind = bind(request_id)

    def reset() -> None:
        unbind()
        _db_time.reset(timing)

    return Began(request_id, time.perf_counter(), spent, reset)


class Finished(NamedTuple):
    """What one answered request's access line and latency sample are labelled with."""

    method: str
    route: str
    status: int


def finished(
    answer: Finished, started: float, request_id: str, user: int | None, db_time: list[float]
) -> str:
    """Log the access line of a request answered now (``started``: its
    ``time.perf_counter()`` on arrival; ``db_time``: its [seconds, queries] in the
    database) and observe its latency; the value of its ``Server-Timing`` header.
    ``RequestMiddleware`` and the lean answers (cya_site.lean) both end here."""
    seconds = time.perf_counter() - started
    db_seconds, queries = db_time
    app, db = f"app;dur={seconds * 1000:.1f}", f"db;dur={db_seconds * 1000:.1f}"
    metrics.observe_request(answer.method, answer.route, answer.status, seconds)
    if access_log.isEnabledFor(logging.INFO):
        access_log.info(
            "%s %s %s",
            answer.method,
            answer.route,
            answer.status,
            extra={
                "request_id": request_id,
                "method": answer.method,
                "route": answer.route,
                "status": answer.status,
                "user": user,
                "duration_ms": round(seconds * 1000, 3),
                "db_ms": round(db_seconds * 1000, 3),
                "queries": int(queries),
            },
        )
    return f'{app}, {db};desc="{queries:.0f} queries"'


class RequestContext(logging.Filter):
    """Adds ``request_id`` to every record that has none: the current request's or task's."""

    def filter(self, record: logging.LogRecord) -> bool:
        if not hasattr(record, "request_id"):
            record.request_id = _current.get() or None
        return True


class JsonFormatter(_LibraryJsonFormatter):
    """One JSON object a line: time, level, logger, message, request id, and any extras
    (an exception's traceback under ``exc_info``)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("fmt", "%(asctime)s %(levelname)s %(name)s %(message)s")
        kwargs.setdefault("rename_fields", {"levelname": "level", "name": "logger"})
        kwargs.setdefault("timestamp", False)
        super().__init__(*args, **kwargs)
