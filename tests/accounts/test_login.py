from rest_framework.test import APIClient

from accounts.keys import key_hash
from accounts.models import ApiToken, User
from tests.factories import DEFAULT_PASSWORD

URL = "/api/v1/auth/login/"


def test_login_issues_a_new_token_shown_once(api: APIClient, alice: User) -> None:
    response = api.post(URL, {"username": "alice", "password": DEFAULT_PASSWORD})

    assert response.status_code == 201
    body = response.json()
    assert body["user"]["username"] == "alice"
    key = body["token"]["key"]
    token = ApiToken.objects.get(pk=body["token"]["id"])
    assert token.user == alice
    assert token.name == "login"
    assert token.key_hash == key_hash(key)
    assert token.prefix == key[:8] == body["token"]["prefix"]
    listed = APIClient(HTTP_AUTHORIZATION=f"Bearer {key}").get("/api/v1/tokens/").json()
    assert "key" not in listed["results"][0]


def test_the_issued_token_authenticates(api: APIClient, alice: User) -> None:
    key = api.post(URL, {"username": "alice", "password": DEFAULT_PASSWORD}).json()["token"]["key"]

    response = APIClient(HTTP_AUTHORIZATION=f"Bearer {key}").get("/api/v1/auth/me/")

    assert response.status_code == 200
    assert response.json()["username"] == "alice"


def test_login_accepts_the_username_in_any_case(api: APIClient, alice: User) -> None:
    response = api.post(URL, {"username": "Alice", "password": DEFAULT_PASSWORD})

    assert response.status_code == 201
    assert response.json()["user"]["id"] == alice.pk


def test_login_names_the_token_when_asked(api: APIClient, alice: User) -> None:
    body = {"username": "alice", "password": DEFAULT_PASSWORD, "token_name": "laptop"}

    response = api.post(URL, body)

    assert response.json()["token"]["name"] == "laptop"


def test_login_starts_a_session_for_the_browsable_api(api: APIClient, alice: User) -> None:
    api.post(URL, {"username": "alice", "password": DEFAULT_PASSWORD})

    response = api.get("/api/v1/auth/me/")

    assert response.status_code == 200
    assert response.json()["username"] == "alice"


def test_rejects_a_wrong_password_without_issuing_a_token(api: APIClient, alice: User) -> None:
    response = api.post(URL, {"username": "alice", "password": "wrong"})

    assert response.status_code == 422
    assert response.json()["code"] == "invalid_credentials"
    assert not ApiToken.objects.exists()


def test_unknown_user_gets_the_same_answer_as_a_wrong_password(api: APIClient, alice: User) -> None:
    wrong_password = api.post(URL, {"username": "alice", "password": "wrong"}).json()

    unknown_user = api.post(URL, {"username": "nobody", "password": "wrong"}).json()

    del unknown_user["request_id"], wrong_password["request_id"]  # each request its own
    assert unknown_user == wrong_password


def test_rejects_an_inactive_user(api: APIClient, alice: User) -> None:
    alice.is_active = False
    alice.save()

    response = api.post(URL, {"username": "alice", "password": DEFAULT_PASSWORD})

    assert response.status_code == 422
    assert response.json()["code"] == "invalid_credentials"


def test_login_ignores_a_stale_bearer_header(api: APIClient, alice: User) -> None:
    api.credentials(HTTP_AUTHORIZATION="Bearer revoked-or-unknown")

    response = api.post(URL, {"username": "alice", "password": DEFAULT_PASSWORD})

    assert response.status_code == 201
