from collections.abc import Callable
from typing import Any

import jsonschema
import pytest
from rest_framework.test import APIClient

from accounts.models import User
from accounts.services import user_register

URL = "/api/v1/auth/me/"


def test_me_describes_the_authenticated_user(
    api_as: Callable[[User], APIClient], alice: User
) -> None:
    response = api_as(alice).get(URL)

    assert response.status_code == 200
    assert response.json() == {
        "id": alice.pk,
        "username": "alice",
        "email": "alice@example.com",
        "is_bot": False,
        "is_staff": False,
        "date_joined": response.json()["date_joined"],
    }


def test_me_asks_anonymous_clients_for_a_bearer_token(api: APIClient) -> None:
    response = api.get(URL)

    assert response.status_code == 401
    assert response.json()["code"] == "not_authenticated"
    assert response.headers["WWW-Authenticate"] == 'Bearer realm="api"'


@pytest.fixture
def user_schema(api: APIClient) -> dict[str, Any]:
    """The served schema's User component, as a JSON Schema of its own."""
    schema = api.get("/api/v1/schema/", HTTP_ACCEPT="application/json").json()
    component: dict[str, Any] = schema["components"]["schemas"]["User"]
    return component


@pytest.mark.parametrize("email", ["", "dora@example.com"])
def test_me_answers_the_email_given_at_registration_or_an_empty_one_as_the_schema_says(
    api_as: Callable[[User], APIClient], user_schema: dict[str, Any], email: str
) -> None:
    dora = user_register(username="dora", password="correct horse battery", email=email)

    body = api_as(dora).get(URL).json()

    assert body["email"] == email
    checker = jsonschema.Draft4Validator.FORMAT_CHECKER
    jsonschema.Draft4Validator(user_schema, format_checker=checker).validate(body)
    jsonschema.Draft4Validator(user_schema).validate(body)  # formats unchecked, as many do
