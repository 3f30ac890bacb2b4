"""One brute-force policy for every way in (django-axes; cya_site.settings.security).

The API's login, the sign-in page and the admin's login all sign in through Django's
``authenticate`` with the request, so axes counts every failure by account and by client
address, and refuses a locked-out sign-in before any password is checked. Our own two ways
in say so themselves (``locked_out``, 429, with how long it lasts): the API as JSON, the
sign-in page beside its form. Any other (the admin's login) gets ``lockout_response``.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.translation import gettext as _

from cya_site.errors import API_PREFIX, ApiError, DomainError, error_json

LOCKED_OUT = 429


def lockout_seconds() -> int:
    """How long a lockout lasts at most (``LOGIN_LOCKOUT_MINUTES``)."""
    return int(settings.AXES_COOLOFF_TIME.total_seconds())


def is_locked_out(request: HttpRequest) -> bool:
    """Whether axes refused this request's sign-in, or its failure started a lockout."""
    return bool(getattr(request, "axes_locked_out", False))


def message() -> str:
    """What a locked-out person is told (it names neither the account nor the address)."""
    return _(
        "Too many failed sign-ins for this account or from this address: signing in is "
        "locked for up to %(minutes)d minutes."
    ) % {"minutes": max(1, lockout_seconds() // 60)}


def locked_out_error() -> DomainError:
    """``locked_out`` (429), with ``wait_seconds`` (answered as Retry-After too)."""
    return DomainError("locked_out", message(), {"wait_seconds": lockout_seconds()}, LOCKED_OUT)


def lockout_response(
    request: HttpRequest, original_response: HttpResponse | None, credentials: Any = None
) -> HttpResponse:
    """axes' lockout answer (AXES_LOCKOUT_CALLABLE): our own ways in answered already."""
    if original_response is not None and original_response.status_code == LOCKED_OUT:
        return original_response
    error = locked_out_error()
    headers = {"Retry-After": str(lockout_seconds())}
    if request.path.startswith(API_PREFIX):
        return error_json(ApiError(LOCKED_OUT, error.code, error.message, error.details, headers))
    context = {"message": error.message}
    response = render(request, "accounts/locked_out.html", context, status=LOCKED_OUT)
    response["Retry-After"] = headers["Retry-After"]
    return response
