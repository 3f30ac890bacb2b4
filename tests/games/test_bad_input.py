"""Malformed, mistyped, unknown, oversized and out-of-range input gets a clear 4xx.

Every refusal is the one error shape with a stable code, and writes nothing.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from django.conf import settings
from django.http import QueryDict
from rest_framework.test import APIClient

from accounts.models import User
from cya_site.parsers import MAX_JSON_DEPTH
from cya_site.routes import MAX_ID
from games import services
from games.api.serializers import ActionInputSerializer
from games.models import Event, Game, Seat
from tests.games.conftest import game_url, submit

Clients = Callable[[User], APIClient]


def assert_error(response: Any, status: int, code: str) -> dict[str, Any]:
    """The response is the one error shape with this status and code; returns its details."""
    assert response.status_code == status, response.content
    assert response["Content-Type"] == "application/json"
    body = response.json()
    assert set(body) == {"code", "message", "details", "request_id"}
    assert body["code"] == code, body
    assert body["message"]
    details: dict[str, Any] = body["details"]
    return details


@pytest.fixture
def alice_api(alice: User, api_as: Clients) -> APIClient:
    return api_as(alice)


# --- bodies ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "body",
    [
        '{"seats": 3',
        "{'seats': 3}",
        "seats=3",
        "[1, 2",
        "\x00",
        '{"seats": NaN}',  # numbers JSON has not (DRF's strict decoding)
        '{"seats": -Infinity}',
        '\ufeff{"seats": 3}',  # a byte order mark, as Python's json.loads refuses it
    ],
)
def test_refuses_malformed_json(alice_api: APIClient, body: str) -> None:
    response = alice_api.post("/api/v1/games/", body, content_type="application/json")

    assert_error(response, 400, "malformed_json")
    assert not Game.objects.exists()


def test_refuses_malformed_json_on_the_action_endpoint(
    started: Game, alice: User, api_as: Clients
) -> None:
    response = api_as(alice).post(
        game_url(started, "actions"), '{"action": {"type": ', content_type="application/json"
    )

    assert_error(response, 400, "malformed_json")
    assert Event.objects.filter(game=started).count() == 1


def test_refuses_a_body_nested_5000_levels_deep_before_decoding_it(alice_api: APIClient) -> None:
    body = '{"options": ' + "[" * 5000 + "]" * 5000 + "}"

    response = alice_api.post("/api/v1/games/", body, content_type="application/json")

    details = assert_error(response, 400, "json_too_deep")
    assert details == {"max_depth": MAX_JSON_DEPTH}
    assert not Game.objects.exists()


def test_refuses_an_action_nested_too_deep(started: Game, alice: User, api_as: Clients) -> None:
    action = (
        '{"type": "discard", "card": '
        + "[" * (MAX_JSON_DEPTH + 1)
        + "]" * (MAX_JSON_DEPTH + 1)
        + "}"
    )
    body = f'{{"action": {action}, "version": 0}}'

    response = api_as(alice).post(
        game_url(started, "actions"), body, content_type="application/json"
    )

    assert_error(response, 400, "json_too_deep")
    assert Event.objects.filter(game=started).count() == 1


@pytest.mark.parametrize(
    ("body", "field", "code"),
    [
        ({"seats": "many"}, "seats", "invalid"),
        ({"seats": 3.5}, "seats", "invalid"),
        ({"seats": 1}, "seats", "min_value"),
        ({"seats": 9}, "seats", "max_value"),
        ({"preset": "1999"}, "preset", "invalid_choice"),
        ({"take_seat": "perhaps"}, "take_seat", "invalid"),
        ({"options": ["ending", "quick"]}, "options", "not_a_dict"),
        ({"decision_seconds": 0}, "decision_seconds", "min_value"),
        ({"time_bank_seconds": -1}, "time_bank_seconds", "min_value"),
    ],
)
def test_refuses_wrong_types_naming_the_field(
    alice_api: APIClient, body: dict[str, Any], field: str, code: str
) -> None:
    response = alice_api.post("/api/v1/games/", body, format="json")

    details = assert_error(response, 400, "invalid")
    assert details[field][0]["code"] == code
    assert not Game.objects.exists()


def test_refuses_a_body_that_is_not_an_object(alice_api: APIClient) -> None:
    response = alice_api.post("/api/v1/games/", [1, 2], format="json")

    details = assert_error(response, 400, "invalid")
    assert "non_field_errors" in details


def test_refuses_unknown_fields_naming_each(alice_api: APIClient) -> None:
    response = alice_api.post(
        "/api/v1/games/", {"seats": 3, "colour": "red", "sets": 2}, format="json"
    )

    details = assert_error(response, 400, "invalid")
    assert details == {
        "colour": [{"message": "Unknown field.", "code": "unknown_field"}],
        "sets": [{"message": "Unknown field.", "code": "unknown_field"}],
    }
    assert not Game.objects.exists()


def test_reports_unknown_and_invalid_fields_together(alice_api: APIClient) -> None:
    response = alice_api.post("/api/v1/games/", {"seats": "x", "colour": "red"}, format="json")

    details = assert_error(response, 400, "invalid")
    assert details["seats"][0]["code"] == "invalid"
    assert details["colour"][0]["code"] == "unknown_field"


def test_refuses_unknown_fields_in_an_action_submission(
    started: Game, alice: User, api_as: Clients
) -> None:
    response = api_as(alice).post(
        game_url(started, "actions"),
        {"action": {"type": "discard", "card": "cabin"}, "version": 0, "seat": 0},
        format="json",
    )

    details = assert_error(response, 400, "invalid")
    assert details["seat"][0]["code"] == "unknown_field"
    assert Event.objects.filter(game=started).count() == 1


@pytest.mark.parametrize(
    ("body", "field", "code"),
    [
        ({"action": {"type": "discard", "card": "cabin"}}, "version", "required"),
        ({"version": 0}, "action", "required"),
        ({"action": {"type": "discard", "card": "cabin"}, "version": "zero"}, "version", "invalid"),
        ({"action": {"type": "discard", "card": "cabin"}, "version": -1}, "version", "min_value"),
        ({"action": {"type": "discard", "card": "cabin"}, "version": None}, "version", "null"),
        ({"action": None, "version": 0}, "action", "null"),
    ],
)
def test_refuses_a_submission_with_a_missing_or_mistyped_version_or_action(
    started: Game, alice: User, api_as: Clients, body: dict[str, Any], field: str, code: str
) -> None:
    response = api_as(alice).post(game_url(started, "actions"), body, format="json")

    details = assert_error(response, 400, "invalid")
    assert details[field][0]["code"] == code
    assert Event.objects.filter(game=started).count() == 1


# --- rule options ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"seats": 7}, "seats"),  # over max_players (6) unless the table allows 8
        ({"preset": "2011", "options": {"advanced": {"penny_jar": True}}}, "advanced.penny_jar"),
        ({"options": {"ending": "sudden_death"}}, "ending"),
        ({"options": {"target": 5}}, "target"),
        ({"options": {"target": "lots"}}, "target"),
        ({"options": {"ending": "classic", "ending_rounds": 3}}, "ending_rounds"),
        ({"seats": 4, "options": {"draft_piles": True}}, "draft_piles"),
        ({"options": {"advanced": {"penny_jar": "yes"}}}, "advanced.penny_jar"),
        ({"options": {"hand_size": True}}, "hand_size"),
    ],
)
def test_refuses_rule_options_that_cannot_be_played_naming_the_option(
    alice_api: APIClient, body: dict[str, Any], field: str
) -> None:
    response = alice_api.post("/api/v1/games/", body, format="json")

    details = assert_error(response, 422, "invalid_rules")
    assert details["field"] == field
    assert not Game.objects.exists()


def test_refuses_advanced_options_that_are_not_an_object(alice_api: APIClient) -> None:
    response = alice_api.post("/api/v1/games/", {"options": {"advanced": [1]}}, format="json")

    details = assert_error(response, 400, "invalid")
    assert "options" in details


def test_allows_eight_seats_when_the_table_allows_eight_players(alice_api: APIClient) -> None:
    response = alice_api.post(
        "/api/v1/games/", {"seats": 8, "options": {"max_players": 8}}, format="json"
    )

    assert response.status_code == 201, response.json()
    assert Seat.objects.filter(game_id=response.json()["id"]).count() == 8


# --- actions --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "action",
    [
        {"type": "fold"},
        {"type": None},
        {"card": "cabin"},
        {"type": "discard", "card": "joker"},
        {"type": "discard", "card": 9},
        {"type": "discard"},
        {"type": "discard", "card": "cabin", "face": "down"},
        {"type": "pair", "cards": ["cabin"]},
        {"type": "pair", "cards": "cabin,silver"},
        {"type": "challenge", "target": "bob", "cards": ["silver"]},
        {"type": "challenge", "target": 1, "cards": ["silver"], "depth": "bottom"},
        {"type": "draft", "card": "silver", "piles": []},
        {"type": "draft", "card": "silver", "piles": [3]},
        {"type": "move", "target": 1, "direction": "sideways"},
        "discard cabin",
        ["discard", "cabin"],
        17,
    ],
)
def test_refuses_a_malformed_action(
    started: Game, alice: User, api_as: Clients, action: Any
) -> None:
    response = submit(api_as(alice), started, action, version=0)

    assert_error(response, 422, "malformed_action")
    started.refresh_from_db()
    assert started.version == 0
    assert Event.objects.filter(game=started).count() == 1


def test_an_action_is_taken_as_the_json_body_carried_it_and_a_forms_json_text_decoded() -> None:
    action = {"type": "discard", "card": "piano"}
    form = QueryDict(mutable=True)
    form.update({"action": json.dumps(action), "version": "3"})

    from_json = ActionInputSerializer(data={"action": action, "version": 3})
    from_form = ActionInputSerializer(data=form)

    assert from_json.is_valid()
    assert from_form.is_valid()
    assert from_json.validated_data["action"] == from_form.validated_data["action"] == action


# --- transport ------------------------------------------------------------------------


def test_refuses_a_body_over_the_size_limit(started: Game, alice: User, api_as: Clients) -> None:
    padding = "x" * (settings.DATA_UPLOAD_MAX_MEMORY_SIZE + 1)
    body = json.dumps({"action": {"type": "discard", "card": "cabin"}, "version": 0, "p": padding})

    response = api_as(alice).post(
        game_url(started, "actions"), body, content_type="application/json"
    )

    details = assert_error(response, 413, "payload_too_large")
    assert details == {"max_bytes": settings.DATA_UPLOAD_MAX_MEMORY_SIZE}
    assert Event.objects.filter(game=started).count() == 1


def test_refuses_a_huge_create_body(alice_api: APIClient) -> None:
    options = {f"option_{n}": n for n in range(30_000)}

    response = alice_api.post("/api/v1/games/", {"options": options}, format="json")

    assert_error(response, 413, "payload_too_large")
    assert not Game.objects.exists()


@pytest.mark.parametrize(
    ("body", "content_type"),
    [
        ("action=discard&version=0", "application/x-www-form-urlencoded"),
        ('{"action": {"type": "discard", "card": "cabin"}, "version": 0}', "text/plain"),
        ("<action/>", "application/xml"),
    ],
)
def test_refuses_a_body_that_is_not_json(
    started: Game, alice: User, api_as: Clients, body: str, content_type: str
) -> None:
    response = api_as(alice).post(game_url(started, "actions"), body, content_type=content_type)

    assert_error(response, 415, "unsupported_media_type")
    assert Event.objects.filter(game=started).count() == 1


@pytest.mark.parametrize("endpoint", ["actions", "join", "leave", "start", "abort", "resign"])
def test_get_on_a_post_only_endpoint_is_a_json_405(
    started: Game, alice: User, api_as: Clients, endpoint: str
) -> None:
    response = api_as(alice).get(game_url(started, endpoint))

    assert_error(response, 405, "method_not_allowed")
    assert "POST" in response["Allow"]


@pytest.mark.parametrize("method", ["put", "patch", "delete"])
def test_writing_a_game_directly_is_a_json_405(
    started: Game, alice: User, api_as: Clients, method: str
) -> None:
    response = getattr(api_as(alice), method)(game_url(started), {}, format="json")

    assert_error(response, 405, "method_not_allowed")
    assert Game.objects.get(pk=started.pk).status == "active"


@pytest.mark.parametrize(
    ("method", "endpoint", "data"),
    [
        ("get", "", {}),
        ("get", "observation", {}),
        ("get", "decision", {}),
        ("get", "events", {}),
        ("get", "wait", {"after": 0, "timeout": 0}),
        ("get", "replay", {}),
        ("get", "replay/view", {"step": 0}),
        ("post", "actions", {"action": {"type": "concede"}, "version": 0}),
        ("post", "join", {}),
        ("post", "leave", {}),
        ("post", "start", {}),
        ("post", "abort", {}),
        ("post", "resign", {}),
    ],
)
@pytest.mark.parametrize(
    "game_id",
    [
        "999999",
        "abc",
        "0",
        str(MAX_ID),  # the largest id a row can have
        str(MAX_ID + 1),  # past it: once a 500, the driver could not bind it
        "99999999999999999999999",
    ],
)
def test_an_unknown_game_is_a_json_404(
    staff: User,
    api_as: Clients,
    method: str,
    endpoint: str,
    data: dict[str, Any],
    game_id: str,
) -> None:
    url = f"/api/v1/games/{game_id}/" + (f"{endpoint}/" if endpoint else "")
    if method == "get":
        response = api_as(staff).get(url, data)
    else:
        response = api_as(staff).post(url, data, format="json")

    assert_error(response, 404, "not_found")


def test_an_unknown_games_path_is_a_json_404(alice_api: APIClient, started: Game) -> None:
    response = alice_api.get(f"/api/v1/games/{started.pk}/hands/")

    details = assert_error(response, 404, "not_found")
    assert details["path"] == f"/api/v1/games/{started.pk}/hands/"


# --- query parameters -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("query", "field", "code"),
    [
        ({}, "after", "required"),
        ({"after": -1}, "after", "min_value"),
        ({"after": "latest"}, "after", "invalid"),
        ({"after": 0, "timeout": 31}, "timeout", "max_value"),
        ({"after": 0, "timeout": -0.5}, "timeout", "min_value"),
        ({"after": 0, "timeout": "soon"}, "timeout", "invalid"),
        ({"after": 0, "timeout": "nan"}, "timeout", "invalid"),
        ({"after": 0, "timeout": "inf"}, "timeout", "invalid"),
        ({"after": 0, "colour": "red"}, "colour", "unknown_field"),
    ],
)
def test_refuses_wait_parameters_out_of_range(
    started: Game, alice: User, api_as: Clients, query: dict[str, Any], field: str, code: str
) -> None:
    response = api_as(alice).get(game_url(started, "wait"), query)

    details = assert_error(response, 400, "invalid")
    assert details[field][0]["code"] == code


@pytest.mark.parametrize(
    ("query", "field", "code"),
    [
        ({"after": -2}, "after", "min_value"),
        ({"after": "x"}, "after", "invalid"),
        ({"limit": 0}, "limit", "min_value"),
        ({"limit": 501}, "limit", "max_value"),
        ({"limit": 2.5}, "limit", "invalid"),
    ],
)
def test_refuses_events_parameters_out_of_range(
    started: Game, api: APIClient, query: dict[str, Any], field: str, code: str
) -> None:
    response = api.get(game_url(started, "events"), query)

    details = assert_error(response, 400, "invalid")
    assert details[field][0]["code"] == code


@pytest.fixture
def ended(started: Game, alice: User, staff: User) -> Game:
    """The started game, aborted by staff after one action: its replay is open."""
    services.action_submit(
        game_id=started.pk, user=alice, action={"type": "discard", "card": "cabin"}, version=0
    )
    return services.game_abort(game=started, by=staff, reason="test")


@pytest.mark.parametrize(
    ("query", "field", "code"),
    [
        ({}, "step", "required"),
        ({"step": -1}, "step", "min_value"),
        ({"step": "last"}, "step", "invalid"),
        ({"step": 0, "seat": 8}, "seat", "max_value"),
        ({"step": 0, "seat": -1}, "seat", "min_value"),
    ],
)
def test_refuses_replay_view_parameters_out_of_range(
    ended: Game, api: APIClient, query: dict[str, Any], field: str, code: str
) -> None:
    response = api.get(game_url(ended, "replay/view"), query)

    details = assert_error(response, 400, "invalid")
    assert details[field][0]["code"] == code


def test_refuses_a_replay_step_past_the_end(ended: Game, api: APIClient) -> None:
    response = api.get(game_url(ended, "replay/view"), {"step": 2})

    assert assert_error(response, 422, "no_such_step") == {"steps": 1}


def test_refuses_a_replay_seat_the_table_does_not_have(ended: Game, api: APIClient) -> None:
    response = api.get(game_url(ended, "replay/view"), {"step": 1, "seat": 3})

    assert_error(response, 422, "no_such_seat")


def test_refuses_list_filters_out_of_range(alice_api: APIClient) -> None:
    response = alice_api.get("/api/v1/games/", {"status": "paused"})

    details = assert_error(response, 400, "invalid")
    assert details["status"][0]["code"] == "invalid_choice"


def test_a_page_past_the_end_is_a_json_404(alice_api: APIClient) -> None:
    response = alice_api.get("/api/v1/games/", {"page": 99})

    assert_error(response, 404, "not_found")


@pytest.mark.parametrize("seat", [3, 7])
def test_refuses_joining_a_seat_the_table_does_not_have(
    open_table: Game, carol: User, api_as: Clients, seat: int
) -> None:
    response = api_as(carol).post(game_url(open_table, "join"), {"seat": seat}, format="json")

    assert assert_error(response, 422, "no_such_seat") == {"seat": seat}
    assert not Seat.objects.filter(game=open_table, user=carol).exists()


def test_refuses_a_seat_number_out_of_any_range(
    open_table: Game, carol: User, api_as: Clients
) -> None:
    response = api_as(carol).post(game_url(open_table, "join"), {"seat": 8}, format="json")

    details = assert_error(response, 400, "invalid")
    assert details["seat"][0]["code"] == "max_value"


def test_refuses_an_abort_reason_over_20_characters(
    started: Game, staff: User, api_as: Clients
) -> None:
    response = api_as(staff).post(game_url(started, "abort"), {"reason": "r" * 21}, format="json")

    details = assert_error(response, 400, "invalid")
    assert details["reason"][0]["code"] == "max_length"
    assert Game.objects.get(pk=started.pk).status == "active"


@pytest.mark.parametrize("endpoint", ["actions", "join", "leave", "start", "abort", "resign"])
def test_a_post_to_a_game_id_no_route_matches_is_a_json_404_under_csrf_checks(
    endpoint: str,
) -> None:
    # CSRF-checked like a browser session: the catch-all used to answer CSRF's HTML 403
    client = APIClient(enforce_csrf_checks=True)

    response = client.post(f"/api/v1/games/0.5/{endpoint}/", {}, format="json")

    assert_error(response, 404, "not_found")


def test_the_schema_says_request_bodies_refuse_unknown_fields(api: APIClient) -> None:
    schema = api.get("/api/v1/schema/", HTTP_ACCEPT="application/json").json()
    bodies = [
        operation["requestBody"]["content"]["application/json"]["schema"]["$ref"]
        for path, item in schema["paths"].items()
        if path.startswith("/api/v1/games/")
        for operation in item.values()
        if "requestBody" in operation
    ]
    components = schema["components"]["schemas"]

    assert len(bodies) >= 5
    for ref in bodies:
        assert components[ref.rsplit("/", 1)[1]]["additionalProperties"] is False, ref


def test_the_schema_documents_the_public_log_as_a_plain_list(api: APIClient) -> None:
    schema = api.get("/api/v1/schema/", HTTP_ACCEPT="application/json").json()
    events = schema["paths"]["/api/v1/games/{id}/events/"]["get"]

    body = events["responses"]["200"]["content"]["application/json"]["schema"]
    assert body == {"type": "array", "items": {"$ref": "#/components/schemas/LogEntry"}}
    assert {p["name"] for p in events["parameters"]} == {"id", "after", "limit"}
