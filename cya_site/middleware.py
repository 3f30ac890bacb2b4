"""Django's own middleware, run on the event loop under the ASGI server.

Django's middleware (``MiddlewareMixin``) runs each hook through ``sync_to_async`` when it
serves an async request: a hop to a thread and back for every ``process_request``,
``process_view`` and ``process_response``, and a new thread for each request to hop to
(asgiref's ``ThreadSensitiveContext``). With the chain in settings that was seventeen hops
a request, 5 ms of CPU for ``/healthz`` on uvicorn, where a crowd of long-polls comes
(benchmarks/live.py, docs/operations.md "Waits").

The hooks of the middleware below do no I/O (headers, cookies, the language, the CSRF
check, lazy objects), so under ASGI they run here inline, on the event loop; under WSGI
they run as Django runs them. Two save to the database when there is something to save:
the session's ``process_response`` (a session changed) and the messages' (messages added
or read), and they hop to a thread only then. A hook that touched the database on the
event loop would raise Django's ``SynchronousOnlyOperation``, never block the loop
quietly (tests/cya_site/test_middleware.py walks the pages that do).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from asgiref.sync import sync_to_async
from csp import middleware as csp
from django.conf import settings
from django.contrib.auth import middleware as auth
from django.contrib.messages import middleware as messages
from django.contrib.sessions import middleware as sessions
from django.http import HttpRequest
from django.middleware import clickjacking, common, csrf, locale, security
from django.utils.deprecation import MiddlewareMixin
from django.utils.module_loading import import_string

M = TypeVar("M", bound=type[MiddlewareMixin])


def _inline(base: M) -> M:
    """``base`` with its hooks run inline under ASGI (``process_response`` through
    ``_respond``, which a subclass may send to a thread when it must save)."""

    class Inline(base):  # type: ignore[valid-type,misc]
        def __init__(self, get_response: Callable[[HttpRequest], Any]) -> None:
            super().__init__(get_response)
            if self.async_mode and hasattr(self, "process_view"):
                view_hook: Callable[..., Any] = getattr(self, "process_view")  # noqa: B009

                async def process_view(request: HttpRequest, *view: Any) -> Any:
                    return view_hook(request, *view)

                # Django adapts a coroutine as it is, without a thread
                setattr(self, "process_view", process_view)  # noqa: B010

        async def __acall__(self, request: HttpRequest) -> Any:
            response = None
            if hasattr(self, "process_request"):
                response = self.process_request(request)
            response = response or await self.get_response(request)
            if hasattr(self, "process_response"):
                response = await self._respond(request, response)
            return response

        async def _respond(self, request: HttpRequest, response: Any) -> Any:
            if self._saves(request):
                hook = sync_to_async(self.process_response, thread_sensitive=True)
                return await hook(request, response)
            return self.process_response(request, response)

        def _saves(self, request: HttpRequest) -> bool:
            """Whether ``process_response`` writes to the database for ``request``."""
            return False

    Inline.__name__ = Inline.__qualname__ = base.__name__
    Inline.__doc__ = base.__doc__
    return Inline  # type: ignore[return-value]


SecurityMiddleware = _inline(security.SecurityMiddleware)
CSPMiddleware = _inline(csp.CSPMiddleware)
LocaleMiddleware = _inline(locale.LocaleMiddleware)
CommonMiddleware = _inline(common.CommonMiddleware)
CsrfViewMiddleware = _inline(csrf.CsrfViewMiddleware)  # the secret is in a cookie
AuthenticationMiddleware = _inline(auth.AuthenticationMiddleware)  # the user is lazy
XFrameOptionsMiddleware = _inline(clickjacking.XFrameOptionsMiddleware)


class SessionMiddleware(_inline(sessions.SessionMiddleware)):  # type: ignore[misc]
    """The session, loaded lazily (by the view, in its thread); saved in a thread when it
    changed (Django's ``process_response`` saves it then)."""

    def _saves(self, request: HttpRequest) -> bool:
        session = getattr(request, "session", None)
        if session is None:
            return False
        changed = session.modified or settings.SESSION_SAVE_EVERY_REQUEST
        return bool(changed and not session.is_empty())


class MessageMiddleware(_inline(messages.MessageMiddleware)):  # type: ignore[misc]
    """The messages, stored in a thread when some were added or read (their storage
    falls back on the session, which may load from the database)."""

    def _saves(self, request: HttpRequest) -> bool:
        storage = getattr(request, "_messages", None)
        return storage is not None and bool(storage.used or storage.added_new)


def count_in_security_checks() -> None:
    """Django's security checks find its middleware by dotted path in MIDDLEWARE, and skip
    the checks that depend on one they do not find (HSTS, nosniff, the frame header, the
    CSRF and session cookies): let them count a subclass, as the admin's checks do. Run
    once the apps are ready (cya_site.apps); tests/cya_site/test_deploy_check.py runs
    them."""
    from django.core.checks.security import base
    from django.core.checks.security import csrf as csrf_checks
    from django.core.checks.security import sessions as session_checks

    def present(path: str) -> Callable[[], bool]:
        wanted = import_string(path)
        return lambda: any(issubclass(import_string(m), wanted) for m in settings.MIDDLEWARE)

    checks: Any = base  # the helpers are private: untyped
    checks._security_middleware = present("django.middleware.security.SecurityMiddleware")
    checks._xframe_middleware = present("django.middleware.clickjacking.XFrameOptionsMiddleware")
    checks = csrf_checks
    checks._csrf_middleware = present("django.middleware.csrf.CsrfViewMiddleware")
    checks = session_checks
    checks._session_middleware = present("django.contrib.sessions.middleware.SessionMiddleware")
