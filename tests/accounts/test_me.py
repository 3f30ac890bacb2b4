from collections.abc import Callable

from rest_framework.test import APIClient

from accounts.models import User

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
