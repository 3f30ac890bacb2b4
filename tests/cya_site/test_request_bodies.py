"""Every request body refuses the keys it does not declare, at any depth, naming each.

The operations and their bodies come from the served OpenAPI schema: every object it
closes (``additionalProperties: false``) is sent with one key too many, at the top and
inside each nested object (a table's ``rules``, their ``options``, ``options.advanced``).
Path ids name nothing: a handler validates its input before it looks anything up.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from drf_spectacular.generators import SchemaGenerator
from rest_framework.test import APIClient

from accounts.models import User
from games.models import Game
from tournaments.models import League

Clients = Callable[[User], APIClient]
EXTRA = "zzz"
UNKNOWN_CODE = "unknown_field"


def _schema() -> dict[str, Any]:
    generator = SchemaGenerator()  # type: ignore[no-untyped-call]  # drf-spectacular is untyped
    schema: dict[str, Any] = generator.get_schema(request=None, public=True)  # type: ignore[no-untyped-call]
    return schema


SCHEMA = _schema()


def resolve(schema: dict[str, Any]) -> dict[str, Any]:
    """A schema with its ``$ref`` (or a lone ``allOf``) followed to the component."""
    if "$ref" in schema:
        name = schema["$ref"].rsplit("/", 1)[-1]
        return resolve(SCHEMA["components"]["schemas"][name])
    if len(schema.get("allOf", ())) == 1:
        return resolve(schema["allOf"][0])
    return schema


def closed_paths(schema: dict[str, Any], path: tuple[str, ...] = ()) -> Iterator[tuple[str, ...]]:
    """The path of every closed object in a body schema: the body itself, then nested ones."""
    schema = resolve(schema)
    if schema.get("type") != "object" or schema.get("additionalProperties") is not False:
        return
    yield path
    for name, field in schema.get("properties", {}).items():
        yield from closed_paths(field, (*path, name))


def body_cases() -> list[tuple[str, str, tuple[str, ...]]]:
    cases = []
    for route, item in SCHEMA["paths"].items():
        for method, operation in item.items():
            content = operation.get("requestBody", {}).get("content", {})
            if "application/json" in content:
                body = content["application/json"]["schema"]
                cases += [(method.upper(), route, p) for p in closed_paths(body)]
    return cases


CASES = body_cases()


def nest(path: tuple[str, ...], leaf: Any) -> Any:
    for name in reversed(path):
        leaf = {name: leaf}
    return leaf


def url(route: str) -> str:
    return route.replace("{id}", "999999").replace("{number}", "1").replace("{member}", "1")


@pytest.fixture
def staff_api(staff: User, api_as: Clients) -> APIClient:
    return api_as(staff)


@pytest.mark.parametrize(
    ("method", "route", "path"), CASES, ids=[f"{m} {r} {'.'.join(p)}" for m, r, p in CASES]
)
def test_every_body_refuses_a_key_it_does_not_declare_at_any_depth(
    staff_api: APIClient, method: str, route: str, path: tuple[str, ...]
) -> None:
    response = staff_api.generic(
        method, url(route), json.dumps(nest(path, {EXTRA: 1})), content_type="application/json"
    )

    assert response.status_code == 400, response.content
    assert response.json()["code"] == "invalid"
    problems = response.json()["details"]
    for name in path:
        problems = problems[name]
    assert [p["code"] for p in problems[EXTRA]] == [UNKNOWN_CODE]


def test_the_schema_closes_the_nested_rule_objects() -> None:
    nested = {(r, ".".join(p)) for _, r, p in CASES if p}

    assert ("/api/v1/games/", "options") in nested
    assert ("/api/v1/games/", "options.advanced") in nested
    assert ("/api/v1/tournaments/", "rules.options.advanced") in nested
    assert ("/api/v1/leagues/", "rules.options") in nested


# --- a table's seats are not an option ----------------------------------------------------


@pytest.mark.django_db
def test_seats_among_a_games_options_is_refused_naming_it(alice: User, api_as: Clients) -> None:
    response = api_as(alice).post("/api/v1/games/", {"options": {"seats": 99}}, format="json")

    assert response.status_code == 400
    assert response.json()["code"] == "invalid"
    assert response.json()["details"] == {
        "options": {
            "seats": [
                {
                    "message": "seats is not an option: give it beside options.",
                    "code": "unknown_field",
                }
            ]
        }
    }
    assert not Game.objects.exists()


@pytest.mark.django_db
def test_seats_among_a_leagues_rule_options_is_refused_naming_it(
    alice: User, api_as: Clients
) -> None:
    body = {"name": "Club", "slug": "club", "rules": {"options": {"seats": 3}}}

    response = api_as(alice).post("/api/v1/leagues/", body, format="json")

    assert response.status_code == 400
    problems = response.json()["details"]["rules"]["options"]["seats"]
    assert problems == [
        {
            "message": "seats is not an option: each table seats its players.",
            "code": "unknown_field",
        }
    ]
    assert not League.objects.exists()


@pytest.mark.django_db
def test_unknown_options_and_advanced_switches_are_refused_together(
    alice: User, api_as: Clients
) -> None:
    body = {"options": {"colour": "red", "advanced": {"jokers": True, "penny_jar": True}}}

    response = api_as(alice).post("/api/v1/games/", body, format="json")

    assert response.status_code == 400
    assert response.json()["details"] == {
        "options": {
            "colour": [{"message": "Unknown option.", "code": "unknown_field"}],
            "advanced": {"jokers": [{"message": "Unknown option.", "code": "unknown_field"}]},
        }
    }


@pytest.mark.django_db
def test_known_options_still_reach_the_engine(alice: User, api_as: Clients) -> None:
    body = {"seats": 3, "options": {"ending": "quick", "advanced": {"penny_jar": True}}}

    response = api_as(alice).post("/api/v1/games/", body, format="json")

    assert response.status_code == 201, response.json()
    rules = response.json()["rules"]
    assert (rules["seats"], rules["ending"], rules["advanced"]["penny_jar"]) == (3, "quick", True)


# --- values of another JSON type -----------------------------------------------------------


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("body", "field", "code"),
    [
        ({"seats": "3"}, "seats", "invalid"),
        ({"seats": True}, "seats", "invalid"),
        ({"take_seat": 1}, "take_seat", "invalid"),
        ({"take_seat": "yes"}, "take_seat", "invalid"),
        ({"preset": 2021}, "preset", "invalid"),
        ({"options": []}, "options", "not_a_dict"),
    ],
)
def test_a_value_of_another_json_type_is_refused_not_converted(
    alice: User, api_as: Clients, body: dict[str, Any], field: str, code: str
) -> None:
    response = api_as(alice).post("/api/v1/games/", body, format="json")

    assert response.status_code == 400
    assert [p["code"] for p in response.json()["details"][field]] == [code]
    assert not Game.objects.exists()


@pytest.mark.django_db
def test_a_number_where_a_string_belongs_is_refused_naming_the_field(
    alice: User, api_as: Clients
) -> None:
    response = api_as(alice).post(
        "/api/v1/leagues/", {"name": 0, "slug": "club", "description": 7}, format="json"
    )

    assert response.status_code == 400
    details = response.json()["details"]
    assert (
        details["name"]
        == details["description"]
        == [{"message": "Expected a string.", "code": "invalid"}]
    )
    assert not League.objects.exists()


@pytest.mark.django_db
def test_a_list_names_each_item_of_another_type(alice: User, api_as: Clients) -> None:
    body = {"competitors": ["1", 2, None], "rules": None}

    response = api_as(alice).post("/api/v1/nights/1/recorded/", body, format="json")

    assert response.status_code == 400
    problems = response.json()["details"]["competitors"]
    assert problems["0"] == [{"message": "Expected a whole number.", "code": "invalid"}]
    assert "1" not in problems
