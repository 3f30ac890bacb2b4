"""Every endpoint reads exactly the query parameters its schema documents, and refuses any other.

The operations come from the served OpenAPI schema, so a new endpoint is checked the day it
is added. Path ids name nothing: an unknown parameter is refused before the object is
looked up, and a documented one is read (refused for its value, or answered with a 404),
never refused as unknown.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from drf_spectacular.generators import SchemaGenerator
from rest_framework.test import APIClient

from accounts.models import User

Clients = Callable[[User], APIClient]
UNKNOWN = {"message": "Unknown query parameter.", "code": "unknown_field"}
# Outside DRF: the stream validates its own query (tests/games/test_stream.py).
NOT_DRF = ("/api/v1/games/{id}/stream/",)
# DRF reads it on every request to choose the renderer (docs/api.md).
EVERYWHERE = "format"


def _operations() -> list[tuple[str, str, dict[str, Any]]]:
    generator = SchemaGenerator()  # type: ignore[no-untyped-call]  # drf-spectacular is untyped
    schema = generator.get_schema(request=None, public=True)  # type: ignore[no-untyped-call]
    return [
        (method.upper(), path, operation)
        for path, item in schema["paths"].items()
        if path not in NOT_DRF
        for method, operation in item.items()
    ]


OPERATIONS = _operations()
IDS = [f"{method} {path}" for method, path, _ in OPERATIONS]


def documented(operation: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """The operation's query parameters by name, with their schemas."""
    params = operation.get("parameters", [])
    return {p["name"]: p["schema"] for p in params if p["in"] == "query"}


# Every query parameter any operation documents, and one no operation does.
EVERY_NAME = {name for _, _, op in OPERATIONS for name in documented(op)} | {"ordering", "zzz"}


def url(path: str) -> str:
    return path.replace("{id}", "999999").replace("{number}", "1").replace("{member}", "999999")


def value(schema: dict[str, Any]) -> str:
    """A value of the parameter's type, as a query string carries it."""
    if "enum" in schema:
        return str(schema["enum"][0])
    kind = schema.get("type")
    if schema.get("format") == "date-time":
        return "2026-03-04T21:00:00Z"
    return {"integer": "1", "number": "1", "boolean": "true"}.get(kind or "", "x")


def call(client: APIClient, method: str, path: str, query: dict[str, str]) -> Any:
    target = url(path)
    if query:
        target += "?" + "&".join(f"{name}={v}" for name, v in sorted(query.items()))
    return client.generic(method, target, "{}", content_type="application/json")


@pytest.fixture
def staff_api(staff: User, api_as: Clients) -> APIClient:
    """Staff pass every endpoint's permission classes, so the parameters are what is checked."""
    return api_as(staff)


@pytest.mark.parametrize(("method", "path", "operation"), OPERATIONS, ids=IDS)
def test_every_operation_refuses_each_query_parameter_it_does_not_document(
    staff_api: APIClient, method: str, path: str, operation: dict[str, Any]
) -> None:
    others = EVERY_NAME - set(documented(operation)) - {EVERYWHERE}

    response = call(staff_api, method, path, dict.fromkeys(others, "1"))

    assert response.status_code == 400, response.content
    body = response.json()
    assert body["code"] == "invalid"
    assert body["details"] == {name: [UNKNOWN] for name in others}


READS = [(m, p, op) for m, p, op in OPERATIONS if documented(op)]


@pytest.mark.parametrize(
    ("method", "path", "operation"), READS, ids=[f"{m} {p}" for m, p, _ in READS]
)
def test_every_documented_query_parameter_is_read(
    staff_api: APIClient, method: str, path: str, operation: dict[str, Any]
) -> None:
    params = {name: value(schema) for name, schema in documented(operation).items()}

    response = call(staff_api, method, path, params)

    assert response.status_code in (200, 400, 404), response.content
    if response.status_code != 200:
        details = response.json()["details"]
        assert not any(
            UNKNOWN in problems for problems in details.values() if isinstance(problems, list)
        )


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("query", "name"),
    [
        ("ordering=password", "ordering"),
        ("stauts=active", "stauts"),
        ("sort=-created_at", "sort"),
    ],
)
def test_the_games_list_refuses_what_it_does_not_read_as_the_events_do(
    api: APIClient, query: str, name: str
) -> None:
    listed = api.get(f"/api/v1/games/?{query}")
    events = api.get(f"/api/v1/games/999999/events/?{query}")

    for response in (listed, events):
        assert response.status_code == 400
        refusal = response.json()
        assert refusal.pop("request_id") == response["X-Request-ID"]
        assert refusal == {
            "code": "invalid",
            "message": "Invalid input.",
            "details": {name: [UNKNOWN]},
        }


@pytest.mark.django_db
def test_a_filter_with_a_bad_value_is_refused_naming_it(api: APIClient) -> None:
    response = api.get("/api/v1/games/?status=sleeping")

    assert response.status_code == 400
    assert response.json()["code"] == "invalid"
    assert response.json()["details"]["status"][0]["code"] == "invalid_choice"


@pytest.mark.django_db
def test_the_format_parameter_is_read_everywhere(api: APIClient) -> None:
    assert api.get("/api/v1/ladder/?format=json").status_code == 200


# --- values: pages, filters, blanks ---------------------------------------------------------


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("query", "name", "code"),
    [
        ("page_size=lots", "page_size", "invalid"),
        ("page_size=0", "page_size", "min_value"),
        ("page_size=101", "page_size", "max_value"),
        ("page=last", "page", "invalid"),
        ("page=0", "page", "min_value"),
        ("seats=0.5", "seats", "invalid"),
        ("mine=perhaps", "mine", "invalid"),
        ("status=", "status", "blank"),
        ("player=", "player", "blank"),
    ],
)
def test_a_list_refuses_a_page_or_filter_value_it_cannot_read_naming_it(
    api: APIClient, query: str, name: str, code: str
) -> None:
    response = api.get(f"/api/v1/games/?{query}")

    assert response.status_code == 400
    assert response.json()["code"] == "invalid"
    assert [p["code"] for p in response.json()["details"][name]] == [code]


@pytest.mark.django_db
def test_a_page_past_the_end_is_not_found_and_a_full_page_is_served(api: APIClient) -> None:
    assert api.get("/api/v1/games/?page=2").json()["code"] == "not_found"
    assert api.get("/api/v1/games/?page=1&page_size=100").json()["count"] == 0


@pytest.mark.django_db
def test_a_token_list_refuses_an_active_filter_that_is_not_true_or_false(
    alice: User, api_as: Clients
) -> None:
    client = api_as(alice)

    refused = client.get("/api/v1/tokens/?active=maybe")
    active = client.get("/api/v1/tokens/?active=true")

    assert refused.status_code == 400
    assert refused.json()["details"]["active"][0]["code"] == "invalid"
    assert [t["is_active"] for t in active.json()["results"]] == [True]
