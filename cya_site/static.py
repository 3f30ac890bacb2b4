"""WhiteNoise's middleware, able to run in the ASGI application's async chain.

WhiteNoise's middleware is synchronous only. In an async chain Django then runs it, and
everything below it (the view included), through a thread, which blocks for as long as
the response takes to make: a long-poll held one for its whole wait, and waits on the
ASGI server queued behind each other. Finding a static file is a dictionary lookup (a
``stat`` under ``WHITENOISE_AUTOREFRESH``, in development only), so it is done on the
event loop and the rest of the chain is awaited.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from asgiref.sync import iscoroutinefunction, markcoroutinefunction
from django.http import HttpRequest, HttpResponseBase
from whitenoise.middleware import WhiteNoiseMiddleware


class StaticFilesMiddleware(WhiteNoiseMiddleware):  # type: ignore[misc]
    """``whitenoise.middleware.WhiteNoiseMiddleware``, sync and async capable."""

    sync_capable = True
    async_capable = True

    def __init__(self, get_response: Callable[[HttpRequest], Any], **kwargs: Any) -> None:
        super().__init__(get_response, **kwargs)
        self.is_async = iscoroutinefunction(get_response)
        if self.is_async:
            markcoroutinefunction(self)

    def __call__(self, request: HttpRequest) -> Any:
        if self.is_async:
            return self._acall(request)
        return super().__call__(request)

    async def _acall(self, request: HttpRequest) -> HttpResponseBase:
        static_file = (
            self.find_file(request.path_info)
            if self.autorefresh
            else self.files.get(request.path_info)
        )
        if static_file is not None:
            return self.serve(static_file, request)  # type: ignore[no-any-return]
        get_response: Callable[[HttpRequest], Awaitable[HttpResponseBase]] = self.get_response
        return await get_response(request)
