from collections.abc import Callable

from rest_framework.test import APIClient

from accounts.models import ApiToken, User
from accounts.services import token_create
from tests.clients import authenticate
from tests.factories import DEFAULT_PASSWORD

URL = "/api/v1/auth/logout/"


def test_logout_revokes_the_calling_token(api: APIClient, alice: User) -> None:
    authenticate(api, alice)

    response = api.post(URL)

    assert response.status_code == 204
    assert ApiToken.objects.get(user=alice).revoked_at is not None
    after = api.get("/api/v1/auth/me/")
    assert after.status_code == 401
    assert after.json()["code"] == "authentication_failed"


def test_logout_leaves_the_users_other_tokens_active(
    api_as: Callable[[User], APIClient], alice: User
) -> None:
    other, _ = token_create(user=alice, name="other device")

    api_as(alice).post(URL)

    other.refresh_from_db()
    assert other.revoked_at is None


def test_logout_ends_the_session(api: APIClient, alice: User) -> None:
    api.post("/api/v1/auth/login/", {"username": "alice", "password": DEFAULT_PASSWORD})
    api.credentials()  # from here on only the session cookie identifies alice

    response = api.post(URL)

    assert response.status_code == 204
    assert api.get("/api/v1/auth/me/").status_code == 401


def test_logout_requires_authentication(api: APIClient) -> None:
    response = api.post(URL)

    assert response.status_code == 401
    assert response.json()["code"] == "not_authenticated"
