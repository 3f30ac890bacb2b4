"""Every error, from any layer, renders as {"code", "message", "details"}."""

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings
from django.core.cache import caches
from django.core.cache.backends.redis import RedisCache
from django.core.exceptions import PermissionDenied as DjangoPermissionDenied
from django.core.exceptions import RequestDataTooBig
from django.http import Http404
from pytest_django import Settings
from rest_framework import exceptions
from rest_framework.settings import api_settings
from rest_framework.test import APIClient

from cya_site.errors import DomainError, exception_handler

ROOT = Path(__file__).resolve().parents[2]


class CodedError(Exception):
    """Shaped like the engine's errors: a code and an HTTP status, no Django."""

    code = "not_your_turn"
    http_status = 409

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message
        self.field = "seat"


CASES: list[tuple[Exception, int, str]] = [
    (exceptions.ValidationError({"name": ["This field is required."]}), 400, "invalid"),
    (exceptions.ValidationError("Just wrong."), 400, "invalid"),
    (exceptions.ParseError("JSON parse error - Expecting value"), 400, "malformed_json"),
    (exceptions.NotAuthenticated(), 401, "not_authenticated"),
    (exceptions.AuthenticationFailed(), 401, "authentication_failed"),
    (exceptions.PermissionDenied(), 403, "permission_denied"),
    (exceptions.NotFound(), 404, "not_found"),
    (exceptions.MethodNotAllowed("PUT"), 405, "method_not_allowed"),
    (exceptions.NotAcceptable(), 406, "not_acceptable"),
    (exceptions.UnsupportedMediaType("text/plain"), 415, "unsupported_media_type"),
    (exceptions.Throttled(wait=3.2), 429, "throttled"),
    (Http404("No ApiToken matches the given query."), 404, "not_found"),
    (DjangoPermissionDenied(), 403, "permission_denied"),
    (RequestDataTooBig(), 413, "payload_too_large"),
    (DomainError("username_taken", "Taken.", {"username": "x"}, 409), 409, "username_taken"),
    (CodedError("Not your turn."), 409, "not_your_turn"),
]


@pytest.mark.parametrize(("exc", "status", "code"), CASES, ids=lambda value: repr(value)[:40])
def test_every_error_class_renders_the_one_shape(exc: Exception, status: int, code: str) -> None:
    response = exception_handler(exc, {})

    assert response is not None
    assert response.status_code == status
    assert response.data["code"] == code
    assert set(response.data) == {"code", "message", "details", "request_id"}
    assert isinstance(response.data["message"], str)
    assert response.data["message"]
    assert isinstance(response.data["details"], dict)


def test_validation_details_name_each_field_with_a_code() -> None:
    exc = exceptions.ValidationError({"name": [exceptions.ErrorDetail("Bad.", code="blank")]})

    response = exception_handler(exc, {})

    assert response is not None
    assert response.data["details"] == {"name": [{"message": "Bad.", "code": "blank"}]}


def test_throttled_says_when_to_retry() -> None:
    response = exception_handler(exceptions.Throttled(wait=3.2), {})

    assert response is not None
    assert response.headers["Retry-After"] == "4"
    assert response.data["details"] == {"wait_seconds": 4}


def test_coded_errors_keep_their_message_and_field() -> None:
    response = exception_handler(CodedError("Seat 2 is on turn."), {})

    assert response is not None
    assert response.data["message"] == "Seat 2 is on turn."
    assert response.data["details"] == {"field": "seat"}


def test_other_exceptions_are_left_to_become_a_500() -> None:
    assert exception_handler(RuntimeError("boom"), {}) is None


# --- Through HTTP ------------------------------------------------------------------------


def _assert_error(response: Any, status: int, code: str) -> dict[str, Any]:
    assert response.status_code == status
    assert response["Content-Type"] == "application/json"
    body: dict[str, Any] = response.json()
    assert set(body) == {"code", "message", "details", "request_id"}
    assert body["code"] == code
    return body


@pytest.mark.django_db
def test_an_unknown_api_path_is_a_json_404(api: APIClient) -> None:
    _assert_error(api.get("/api/v1/no-such-thing/"), 404, "not_found")


@pytest.mark.django_db
def test_an_unknown_api_path_is_a_json_404_with_debug_on(
    api: APIClient, settings: Settings
) -> None:
    settings.DEBUG = True

    _assert_error(api.get("/api/v2/anything/"), 404, "not_found")


@pytest.mark.django_db
def test_a_missing_trailing_slash_gets_a_hint(api: APIClient) -> None:
    body = _assert_error(api.post("/api/v1/auth/login", {}), 404, "not_found")

    assert "/api/v1/auth/login/" in body["details"]["hint"]


@pytest.mark.django_db
def test_pages_outside_the_api_keep_html_404s(api: APIClient) -> None:
    response = api.get("/no-such-page/")

    assert response.status_code == 404
    assert response["Content-Type"].startswith("text/html")


@pytest.mark.django_db
@pytest.mark.parametrize("path", ["/no-such-page/", "/games/999999/", "/games/999999/replay/"])
def test_no_page_shows_the_technical_404_with_debug_on(
    api: APIClient, settings: Settings, path: str
) -> None:
    """An unknown path and a page view's Http404 alike: the site's page, never Django's
    (which lists the site's routes), under `make run` too."""
    settings.DEBUG = True

    response = api.get(path)

    assert response.status_code == 404
    page = response.content.decode()
    assert "URLconf" not in page
    assert "Django tried these URL patterns" not in page
    assert '<html lang="' in page  # the site's own page, with its header and footer


@pytest.mark.django_db
def test_a_page_path_missing_its_slash_is_redirected(api: APIClient) -> None:
    response = api.get("/play", {"x": "1"})

    assert response.status_code == 301
    assert response["Location"] == "/play/?x=1"


@pytest.mark.django_db
def test_a_post_to_no_page_is_a_404_not_a_csrf_refusal(api: APIClient) -> None:
    assert api.post("/no-such-page/", {}).status_code == 404


@pytest.mark.django_db
def test_a_wrong_method_is_a_json_405(api: APIClient) -> None:
    _assert_error(api.put("/api/v1/auth/register/", {}), 405, "method_not_allowed")


@pytest.mark.django_db
def test_malformed_json_is_a_400(api: APIClient) -> None:
    response = api.post(
        "/api/v1/auth/register/", data='{"username": ', content_type="application/json"
    )

    _assert_error(response, 400, "malformed_json")


@pytest.mark.django_db
def test_a_non_json_body_is_a_415(api: APIClient) -> None:
    response = api.post("/api/v1/auth/register/", data="username=x", content_type="text/plain")

    _assert_error(response, 415, "unsupported_media_type")


@pytest.mark.django_db
def test_a_json_body_that_is_not_an_object_is_invalid(api: APIClient) -> None:
    response = api.post("/api/v1/auth/register/", data=[1, 2], format="json")

    body = _assert_error(response, 400, "invalid")
    assert "non_field_errors" in body["details"]


@pytest.mark.django_db
def test_wrong_types_are_invalid(api: APIClient) -> None:
    response = api.post("/api/v1/auth/register/", {"username": ["x"], "password": {"a": 1}})

    body = _assert_error(response, 400, "invalid")
    assert body["details"]["username"][0]["code"] == "invalid"
    assert body["details"]["password"][0]["code"] == "invalid"


@pytest.mark.django_db
def test_unknown_fields_are_rejected_by_name(api: APIClient) -> None:
    body_in = {"username": "dave", "password": "a sturdy passphrase 42", "is_staff": True}

    body = _assert_error(api.post("/api/v1/auth/register/", body_in), 400, "invalid")

    assert body["details"] == {"is_staff": [{"message": "Unknown field.", "code": "unknown_field"}]}


@pytest.mark.django_db
def test_unknown_fields_are_reported_with_the_other_field_errors(api: APIClient) -> None:
    body = _assert_error(api.post("/api/v1/auth/register/", {"nmae": "x"}), 400, "invalid")

    assert set(body["details"]) == {"nmae", "username", "password"}


@pytest.mark.django_db
def test_a_huge_body_is_a_413(api: APIClient) -> None:
    padding = "x" * (settings.DATA_UPLOAD_MAX_MEMORY_SIZE + 1)
    response = api.post(
        "/api/v1/auth/register/",
        data=json.dumps({"username": "dave", "password": padding}),
        content_type="application/json",
    )

    body = _assert_error(response, 413, "payload_too_large")
    assert body["details"]["max_bytes"] == settings.DATA_UPLOAD_MAX_MEMORY_SIZE


@pytest.mark.urls("tests.cya_site.urls")
@pytest.mark.django_db
def test_a_crash_under_the_api_is_a_json_500() -> None:
    client = APIClient(raise_request_exception=False)

    _assert_error(client.get("/api/v1/explode/"), 500, "server_error")


@pytest.mark.urls("tests.cya_site.urls")
@pytest.mark.django_db
def test_a_crash_outside_the_api_keeps_the_html_500() -> None:
    response = APIClient(raise_request_exception=False).get("/explode/")

    assert response.status_code == 500
    assert response["Content-Type"].startswith("text/html")


def test_a_crash_with_debug_off_leaves_its_traceback_on_stderr(tmp_path: Path) -> None:
    # Django's own logging would only mail it to ADMINS: a production 500 left no trace
    crash = (
        "import django; django.setup()\n"
        "from django.test import Client, override_settings\n"
        "with override_settings(ROOT_URLCONF='tests.cya_site.urls'):\n"
        "    response = Client(raise_request_exception=False).get('/api/v1/explode/')\n"
        "print(response.status_code, response['X-Request-ID'])\n"
    )
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "cya_site.settings",
        "DEBUG": "false",
        "SECRET_KEY": "test-only",
        "ALLOWED_HOSTS": "testserver",
        "DATABASE_URL": f"sqlite:///{tmp_path / 'db.sqlite3'}",
        "VAR_DIR": str(tmp_path),
    }
    env.pop("REDIS_URL", None)

    done = subprocess.run(
        [sys.executable, "-c", crash], cwd=ROOT, env=env, capture_output=True, text=True
    )

    status, request_id = done.stdout.split()
    assert status == "500", done.stderr
    lines = [json.loads(line) for line in done.stderr.splitlines() if line.startswith("{")]
    (error,) = [line for line in lines if line["logger"] == "django.request"]
    assert error["level"] == "ERROR"
    assert error["message"] == "Internal Server Error: /api/v1/explode/"
    assert "RuntimeError: boom" in error["exc_info"]
    assert error["request_id"] == request_id  # the id the user was shown finds the traceback


@pytest.mark.django_db
def test_login_is_throttled_with_retry_after_in_redis(api: APIClient, settings: Settings) -> None:
    assert isinstance(caches["default"], RedisCache)
    # per hour: the counters are per window, and no test should straddle the end of one
    framework = dict(settings.REST_FRAMEWORK)
    framework["DEFAULT_THROTTLE_RATES"] = {**framework["DEFAULT_THROTTLE_RATES"], "auth": "10/hour"}
    settings.REST_FRAMEWORK = framework
    rate = str(api_settings.DEFAULT_THROTTLE_RATES["auth"])
    allowed = int(rate.split("/")[0])
    settings.AXES_FAILURE_LIMIT = allowed + 10  # the rate, not the sign-in lockout, is tested
    for _ in range(allowed):
        response = api.post("/api/v1/auth/login/", {"username": "nobody", "password": "x"})
        assert response.status_code == 422  # invalid_credentials

    response = api.post("/api/v1/auth/login/", {"username": "nobody", "password": "x"})

    body = _assert_error(response, 429, "throttled")
    assert int(response["Retry-After"]) >= 1
    assert body["details"]["wait_seconds"] == int(response["Retry-After"])
