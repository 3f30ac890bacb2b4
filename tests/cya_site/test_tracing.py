"""Request ids (cya_site.tracing): in every response, the access log line, every error
body and page, and the tasks a request sends; the time the application spent."""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Callable
from types import SimpleNamespace
from typing import Any

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from rest_framework.test import APIClient

from accounts.models import User
from cya_site import celery as cya_celery
from cya_site import tracing
from games import services
from games.engine import RuleSet

MADE = re.compile(r"[0-9a-f]{32}")


@pytest.mark.django_db
@pytest.mark.parametrize("path", ["/", "/api/v1/games/", "/api/v1/nowhere/", "/no-such-page/"])
def test_every_response_carries_a_made_id(path: str) -> None:
    response = Client().get(path)

    assert MADE.fullmatch(response["X-Request-ID"])


@pytest.mark.django_db
def test_two_requests_get_two_ids() -> None:
    client = Client()

    assert client.get("/")["X-Request-ID"] != client.get("/")["X-Request-ID"]


@pytest.mark.django_db
@pytest.mark.parametrize("sent", ["abc", "lb-7f3a:91.2_x", "A" * 64])
def test_a_sane_client_id_is_kept(sent: str) -> None:
    response = Client().get("/", headers={"X-Request-ID": sent})

    assert response["X-Request-ID"] == sent


@pytest.mark.django_db
@pytest.mark.parametrize(
    "sent", ["", "two words", "A" * 65, "<script>", "id\u00e9", "a/b", "x;rm -rf"]
)
def test_a_bad_client_id_is_replaced(sent: str) -> None:
    response = Client().get("/", headers={"X-Request-ID": sent})

    assert MADE.fullmatch(response["X-Request-ID"])


@pytest.mark.django_db
def test_the_access_log_line_is_json_with_id_user_route_and_duration(
    caplog: pytest.LogCaptureFixture, api_as: Callable[[User], APIClient], alice: User
) -> None:
    game = services.game_create(by=alice, rules=RuleSet.preset("2021", seats=2))
    caplog.set_level(logging.INFO, logger="cya_site.access")

    response = api_as(alice).get(f"/api/v1/games/{game.pk}/", headers={"X-Request-ID": "abc-1"})

    (record,) = [r for r in caplog.records if r.name == "cya_site.access"]
    line = _formatted(record)
    assert line["request_id"] == response["X-Request-ID"] == "abc-1"
    assert line["user"] == alice.pk
    assert line["route"] == "api/v1/games/<id:pk>/"
    assert line["status"] == 200
    assert line["method"] == "GET"
    assert line["duration_ms"] > 0
    assert line["level"] == "INFO"
    # the same duration, for the client: Server-Timing's app;dur= in milliseconds, and of
    # it the database's share and its queries
    timing = re.fullmatch(
        r'app;dur=(\d+\.\d), db;dur=(\d+\.\d);desc="(\d+) queries"', response["Server-Timing"]
    )
    assert timing is not None
    assert float(timing[1]) == pytest.approx(line["duration_ms"], abs=0.06)
    assert float(timing[2]) == pytest.approx(line["db_ms"], abs=0.06)
    assert 0 < line["db_ms"] < line["duration_ms"]
    assert int(timing[3]) == line["queries"] > 0


@pytest.mark.django_db
def test_server_timing_counts_each_query_of_the_request_once(client: Client) -> None:
    with CaptureQueriesContext(connection) as ran:
        response = client.get("/api/v1/ladder/")

    timing = re.search(r'desc="(\d+) queries"', response["Server-Timing"])
    assert timing is not None
    assert int(timing[1]) == len(ran.captured_queries) > 0


@pytest.mark.django_db
def test_an_anonymous_requests_line_has_no_user(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="cya_site.access")

    Client().get("/no-such-page/")

    (record,) = [r for r in caplog.records if r.name == "cya_site.access"]
    line = _formatted(record)
    assert line["user"] is None
    assert line["route"] == "unmatched"
    assert line["status"] == 404


@pytest.mark.django_db
def test_any_log_line_inside_a_request_carries_its_id() -> None:
    restore = tracing.bind("inside-1")
    try:
        record = logging.LogRecord("games", logging.WARNING, __file__, 1, "moved on", None, None)
        line = _formatted(record)
    finally:
        restore()

    assert line["request_id"] == "inside-1"
    assert line["message"] == "moved on"
    assert tracing.current() == ""


@pytest.mark.django_db
def test_an_api_error_body_carries_the_id() -> None:
    response = Client().get("/api/v1/games/999999999/", headers={"X-Request-ID": "quote-me"})

    body = response.json()
    assert response.status_code in (401, 404)
    assert body["request_id"] == "quote-me"


@pytest.mark.django_db
def test_an_html_error_page_carries_the_id() -> None:
    response = Client().get("/no-such-page/")

    assert response.status_code == 404
    assert response["X-Request-ID"] in response.content.decode()


@pytest.mark.urls("tests.cya_site.urls")
@pytest.mark.django_db
def test_the_html_500_page_carries_the_id() -> None:
    response = Client(raise_request_exception=False).get("/explode/")

    assert response.status_code == 500
    assert f"<code>{response['X-Request-ID']}</code>" in response.content.decode()


def test_a_task_sent_during_a_request_carries_its_id_and_logs_under_it() -> None:
    headers: dict[str, Any] = {}
    restore = tracing.bind("req-42")
    try:
        cya_celery._send_request_id(headers=headers)
    finally:
        restore()
    assert headers[cya_celery.REQUEST_ID_HEADER] == "req-42"  # beside the queue's sent-at

    task = SimpleNamespace(
        name="bots.sweep",
        request=SimpleNamespace(is_eager=False, **{cya_celery.REQUEST_ID_HEADER: "req-42"}),
    )
    cya_celery._task_started(task_id="t-1", task=task)  # type: ignore[arg-type]
    assert tracing.current() == "req-42"
    cya_celery._task_ended(task_id="t-1", task=task, state="SUCCESS")  # type: ignore[arg-type]
    assert tracing.current() == ""


def test_a_task_sent_outside_a_request_logs_under_its_own_id() -> None:
    task = SimpleNamespace(name="bots.sweep", request=SimpleNamespace(is_eager=False))

    cya_celery._task_started(task_id="beat-7", task=task)  # type: ignore[arg-type]
    assert tracing.current() == "beat-7"
    cya_celery._task_ended(task_id="beat-7", task=task, state="SUCCESS")  # type: ignore[arg-type]
    assert tracing.current() == ""


def _formatted(record: logging.LogRecord) -> dict[str, Any]:
    """The record as the configured stderr handler writes it: one JSON object."""
    tracing.RequestContext().filter(record)
    text = tracing.JsonFormatter().format(record)
    assert "\n" not in text
    line: dict[str, Any] = json.loads(text)
    return line
