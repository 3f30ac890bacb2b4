"""A signed-in player's chosen language wins over the browser's (and the cookie's)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from asgiref.sync import iscoroutinefunction, markcoroutinefunction
from django.http import HttpRequest, HttpResponseBase
from django.utils import translation

from accounts.models import User


class UserLanguageMiddleware:
    """After LocaleMiddleware and authentication: activate ``User.language`` when set.

    Sync and async capable: a synchronous middleware in the ASGI application's chain
    makes Django run the rest of the chain, the view included, through a thread that
    blocks until the response is made (a long-poll's whole wait)."""

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
        _activate(request, getattr(request, "user", None))
        return self.get_response(request)

    async def _acall(self, request: HttpRequest) -> HttpResponseBase:
        auser = getattr(request, "auser", None)  # AuthenticationMiddleware's
        _activate(request, None if auser is None else await auser())
        get_response: Callable[[HttpRequest], Awaitable[HttpResponseBase]] = self.get_response
        return await get_response(request)


def _activate(request: HttpRequest, user: object) -> None:
    if isinstance(user, User) and user.language:
        translation.activate(user.language)
        request.LANGUAGE_CODE = user.language
