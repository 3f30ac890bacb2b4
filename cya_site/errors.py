"""The one error shape of the API: ``{"code", "message", "details", "request_id"}``.

``exception_handler`` is DRF's EXCEPTION_HANDLER and renders every error a view raises;
the Django-level views below render 404/400/500 for ``/api/`` paths that never reach a
DRF view. Codes are stable and documented in docs/errors.md: never rename one. Every
error body, and every HTML error page, carries the request's id (cya_site.tracing), the
one a user quotes and an operator finds the log line by.
"""

import math
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from asgiref.sync import iscoroutinefunction, markcoroutinefunction
from django.conf import settings
from django.core.exceptions import PermissionDenied as DjangoPermissionDenied
from django.core.exceptions import RequestDataTooBig
from django.db import InterfaceError, OperationalError
from django.http import (
    Http404,
    HttpRequest,
    HttpResponse,
    HttpResponsePermanentRedirect,
    JsonResponse,
)
from django.template import loader
from django.urls import Resolver404, resolve
from django.views import defaults
from django.views.decorators.csrf import csrf_exempt
from rest_framework import exceptions, status
from rest_framework.response import Response

from cya_site import tracing

API_PREFIX = "/api/"


class DomainError(Exception):
    """A business rule refused the request: raised by services, rendered by the handler.

    ``code`` is a stable snake_case identifier, ``message`` is for people, ``details``
    carries machine-readable specifics, and ``status`` is the HTTP status to answer with:
    422 by default, as the request was understood (it matches the schema) and the rules or
    the data here refuse it; 400 is for requests the schema itself refuses (docs/errors.md).
    """

    def __init__(
        self,
        code: str,
        message: str,
        details: Mapping[str, Any] | None = None,
        status: int = 422,
    ) -> None:
        self.code = code
        self.message = str(message)  # a lazy translation, made text: args must serialise
        self.details = dict(details or {})
        self.http_status = status
        # Every argument, as the result backend stores an exception (its class and args)
        # and rebuilds it by calling the class with them: a task's refusal comes back whole.
        super().__init__(code, self.message, self.details, status)

    def __str__(self) -> str:
        return self.message


@dataclass(frozen=True, slots=True)
class ApiError:
    """One rendered error: HTTP status, body fields and extra headers."""

    status: int
    code: str
    message: str
    details: dict[str, Any] = field(default_factory=dict)
    headers: dict[str, str] = field(default_factory=dict)

    def body(self) -> dict[str, Any]:
        """The JSON body every API error has."""
        return {
            "code": self.code,
            "message": self.message,
            "details": self.details,
            "request_id": tracing.current(),
        }


# DRF exceptions whose code differs from DRF's own default_code.
_API_EXCEPTION_CODES: dict[type[exceptions.APIException], str] = {
    exceptions.ParseError: "malformed_json",
}


def exception_handler(exc: Exception, context: Mapping[str, Any]) -> Response | None:
    """Render ``exc`` in the one error shape, or return None to let it become a 500."""
    error = _api_error(exc)
    if error is None:
        return None
    # Imported here: rest_framework.views loads the authentication classes, which import
    # services, which import DomainError from this module.
    from rest_framework.views import set_rollback

    set_rollback()
    return Response(error.body(), status=error.status, headers=error.headers)


def _api_error(exc: Exception) -> ApiError | None:
    if isinstance(exc, Http404):
        exc = exceptions.NotFound()
    elif isinstance(exc, DjangoPermissionDenied):
        exc = exceptions.PermissionDenied()
    if isinstance(exc, RequestDataTooBig):
        return _payload_too_large()
    if isinstance(exc, exceptions.ValidationError):
        return ApiError(400, "invalid", "Invalid input.", _validation_details(exc))
    if isinstance(exc, exceptions.APIException):
        return _from_api_exception(exc)
    return _from_coded_exception(exc)


def _from_api_exception(exc: exceptions.APIException) -> ApiError:
    code = _API_EXCEPTION_CODES.get(type(exc), exc.default_code)
    headers: dict[str, str] = {}
    details: dict[str, Any] = {}
    auth_header = getattr(exc, "auth_header", None)
    if auth_header:
        headers["WWW-Authenticate"] = auth_header
    if isinstance(exc, exceptions.Throttled):
        seconds = getattr(exc, "wait", None)  # set by DRF, missing from its stubs
        wait = math.ceil(seconds) if seconds is not None else 1
        headers["Retry-After"] = str(wait)
        details["wait_seconds"] = wait
        message = "Too many requests: try again later."
    else:
        message = str(exc.detail)
    return ApiError(exc.status_code, str(code), message, details, headers)


def _from_coded_exception(exc: Exception) -> ApiError | None:
    """Map any exception carrying ``code`` (str) and ``http_status`` (int) attributes.

    DomainError and the engine's errors both follow this protocol, so the engine can
    stay free of Django and still get its stable codes rendered.
    """
    code = getattr(exc, "code", None)
    http_status = getattr(exc, "http_status", None)
    if not isinstance(code, str) or not isinstance(http_status, int):
        return None
    message = getattr(exc, "message", None)
    details = getattr(exc, "details", None)
    details = dict(details) if isinstance(details, Mapping) else {}
    field_name = getattr(exc, "field", None)
    if isinstance(field_name, str):
        details.setdefault("field", field_name)
    headers = {}
    if http_status == 429 and isinstance(details.get("wait_seconds"), int):
        headers["Retry-After"] = str(details["wait_seconds"])  # as a throttled request's
    text = message if isinstance(message, str) else str(exc)
    return ApiError(http_status, code, text, details, headers)


def _validation_details(exc: exceptions.ValidationError) -> dict[str, Any]:
    """Field errors as ``{field: [{"message", "code"}, ...]}``; others under non_field_errors."""
    full: Any = exc.get_full_details()
    if isinstance(full, dict):
        return full
    return {"non_field_errors": full}


def _payload_too_large() -> ApiError:
    limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
    return ApiError(
        status.HTTP_413_REQUEST_ENTITY_TOO_LARGE,
        "payload_too_large",
        f"The request body is larger than {limit} bytes.",
        {"max_bytes": limit},
    )


def render_error(exc: Exception) -> HttpResponse:
    """``exc`` in the one error shape, for the few views outside DRF (the game stream).

    Anything without a code is raised again, to become a logged 500.
    """
    error = _api_error(exc)
    if error is None:
        raise exc
    return error_json(error)


# --- Django-level views: errors raised outside DRF views ------------------------------


def _is_api(request: HttpRequest) -> bool:
    return request.path.startswith(API_PREFIX)


def error_json(error: ApiError) -> JsonResponse:
    """``error`` in the one shape, as a plain Django response (outside DRF views)."""
    return JsonResponse(error.body(), status=error.status, headers=error.headers)


@csrf_exempt  # it changes nothing; else a POST gets CSRF's HTML 403 instead of this 404
def api_not_found(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
    """Catch-all for ``/api/`` paths no route matched: a JSON 404 whatever DEBUG says."""
    details: dict[str, Any] = {"path": request.path}
    if not request.path.endswith("/"):
        try:
            resolved = resolve(request.path + "/")
        except Resolver404:
            pass
        else:
            if resolved.func is not api_not_found:
                details["hint"] = f"Did you mean {request.path}/ (with a trailing slash)?"
    return error_json(ApiError(404, "not_found", "No API endpoint at this path.", details))


def _page(
    template: str,
    status: int,
    request: HttpRequest | None = None,
    context: dict[str, Any] | None = None,
    headers: dict[str, str] | None = None,
) -> HttpResponse:
    """An HTML error page with the request id on it. The 400, 500 and 503 pages render
    without the request, as Django's own do: a broken request or database must not
    break the error page (no context processors, no user)."""
    context = {**(context or {}), "request_id": tracing.current()}
    page = loader.render_to_string(template, context, request)
    return HttpResponse(page, status=status, headers=headers)


def not_found(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    """handler404: JSON under /api/, the HTML page elsewhere."""
    if _is_api(request):
        return error_json(ApiError(404, "not_found", "Not found."))
    return _page(defaults.ERROR_404_TEMPLATE_NAME, 404, request)


@csrf_exempt  # it changes nothing; a POST to no page gets this 404, not CSRF's 403
def page_not_found(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
    """Catch-all for page paths no route matched: the site's 404 page whatever DEBUG says
    (never Django's technical page), or, for a GET of a page path missing only its
    trailing slash, a redirect there (as APPEND_SLASH would, which a catch-all disables)."""
    path = request.path_info
    if request.method in ("GET", "HEAD") and not path.endswith("/"):
        try:
            resolved = resolve(path + "/")
        except Resolver404:
            pass
        else:
            if resolved.func is not page_not_found:
                query = request.META.get("QUERY_STRING", "")
                target = request.path + "/" + (f"?{query}" if query else "")
                return HttpResponsePermanentRedirect(target)
    return not_found(request)


class PageNotFoundMiddleware:
    """A page view's Http404 becomes the site's 404 page, also with DEBUG on (under
    ``make run``), where Django would show its technical page with the site's routes."""

    sync_capable = True
    async_capable = True  # synchronous only, it would hold a thread per async request

    def __init__(self, get_response: Callable[[HttpRequest], Any]) -> None:
        self.get_response = get_response
        if iscoroutinefunction(get_response):
            markcoroutinefunction(self)

    def __call__(self, request: HttpRequest) -> Any:
        return self.get_response(request)  # a coroutine in an async chain

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        """The 404 page for a page's Http404; anything else (and the API) as before."""
        if isinstance(exception, Http404) and not _is_api(request):
            return not_found(request, exception)
        return None


def bad_request(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    """handler400: JSON under /api/, the HTML page elsewhere."""
    if _is_api(request):
        if isinstance(exception, RequestDataTooBig):
            return error_json(_payload_too_large())
        return error_json(ApiError(400, "bad_request", "The request could not be understood."))
    return _page(defaults.ERROR_400_TEMPLATE_NAME, 400)


def permission_denied(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    """handler403: JSON under /api/, the HTML page elsewhere (with the refusal's reason)."""
    if _is_api(request):
        return error_json(ApiError(403, "permission_denied", "Permission denied."))
    reason = str(exception) if exception is not None else ""
    return _page(defaults.ERROR_403_TEMPLATE_NAME, 403, request, {"exception": reason})


RETRY_AFTER_SECONDS = 5  # what a client is told to wait while the database is away


def server_error(request: HttpRequest) -> HttpResponse:
    """handler500: JSON under /api/, Django's HTML page elsewhere.

    Django calls it while handling the uncaught exception, so that exception is at hand:
    a database that is restarting or out of reach is no bug of the request's, and is
    answered 503 ``service_unavailable`` with ``Retry-After`` instead.
    """
    if _is_api(request):
        return api_server_error()
    if isinstance(sys.exc_info()[1], (OperationalError, InterfaceError)):
        headers = {"Retry-After": str(RETRY_AFTER_SECONDS)}
        return _page("503.html", 503, headers=headers)
    return _page(defaults.ERROR_500_TEMPLATE_NAME, 500)


def api_server_error() -> JsonResponse:
    """The API's answer to the uncaught exception being handled now: 503
    ``service_unavailable`` with ``Retry-After`` for a database out of reach, else 500
    ``server_error`` (``server_error``, and the lean answers, cya_site.lean)."""
    if isinstance(sys.exc_info()[1], (OperationalError, InterfaceError)):
        headers = {"Retry-After": str(RETRY_AFTER_SECONDS)}
        message = "The service cannot reach its database; try again shortly."
        return error_json(ApiError(503, "service_unavailable", message, {}, headers))
    return error_json(ApiError(500, "server_error", "Internal server error."))
