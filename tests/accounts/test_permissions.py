"""Who may call each accounts endpoint: anonymous, another user, the owner, staff.

The "owner" is alice, whose token the endpoint is about where that applies; bob is the
other user. Each row is the status each actor gets.
"""

from collections.abc import Callable
from typing import NamedTuple

import pytest
from rest_framework.test import APIClient

from accounts.models import ApiToken, User
from tests.factories import DEFAULT_PASSWORD, ApiTokenFactory, UserFactory

ACTORS = ("anonymous", "other", "owner", "staff")


class Row(NamedTuple):
    method: str
    path: str  # "{token}" stands for alice's token id
    statuses: tuple[int, int, int, int]  # in ACTORS order


MATRIX = {
    "register": Row("post", "/api/v1/auth/register/", (201, 201, 201, 201)),
    "login": Row("post", "/api/v1/auth/login/", (201, 201, 201, 201)),
    "logout": Row("post", "/api/v1/auth/logout/", (401, 204, 204, 204)),
    "me": Row("get", "/api/v1/auth/me/", (401, 200, 200, 200)),
    "token list": Row("get", "/api/v1/tokens/", (401, 200, 200, 200)),
    "token create": Row("post", "/api/v1/tokens/", (401, 201, 201, 201)),
    "token revoke": Row("delete", "/api/v1/tokens/{token}/", (401, 404, 204, 404)),
    # one's own account (each signed-in actor acts on theirs); the open ones answer alike
    "password change": Row("post", "/api/v1/account/password/", (401, 204, 204, 204)),
    "email change": Row("post", "/api/v1/account/email/", (401, 202, 202, 202)),
    "email confirm": Row("post", "/api/v1/account/email/confirm/", (422, 422, 422, 422)),
    "password reset": Row("post", "/api/v1/account/password-reset/", (202, 202, 202, 202)),
    "reset confirm": Row("post", "/api/v1/account/password-reset/confirm/", (422, 422, 422, 422)),
    "data download": Row("get", "/api/v1/account/data/", (401, 200, 200, 200)),
    "account delete": Row("post", "/api/v1/account/delete/", (401, 204, 204, 204)),
    # a player's page is public, as every game is
    "player page": Row("get", "/api/v1/players/alice/", (200, 200, 200, 200)),
    "head to head": Row("get", "/api/v1/players/alice/head-to-head/", (200, 200, 200, 200)),
    "player games": Row("get", "/api/v1/players/alice/games/", (200, 200, 200, 200)),
    "player club games": Row("get", "/api/v1/players/alice/club-games/", (200, 200, 200, 200)),
}

BODIES = {
    "register": {"username": "newcomer", "password": "a sturdy passphrase 42"},
    "login": {"username": "alice", "password": DEFAULT_PASSWORD},
    "token create": {"name": "new"},
    "password change": {"current": DEFAULT_PASSWORD, "new": "a fresh and long passphrase"},
    "email change": {"email": "new@example.org"},
    "email confirm": {"token": "forged"},
    "password reset": {"email": "alice@example.org"},
    "reset confirm": {"uid": "MQ", "token": "forged", "password": "a fresh and long passphrase"},
    "account delete": {"password": DEFAULT_PASSWORD},
    "head to head": {"vs": "bob"},
}


@pytest.fixture
def client_of(
    api: APIClient, api_as: Callable[[User], APIClient], alice: User, bob: User, staff: User
) -> Callable[[str], APIClient]:
    """The client of an actor by name."""
    actors = {"anonymous": None, "other": bob, "owner": alice, "staff": staff}

    def build(actor: str) -> APIClient:
        user = actors[actor]
        return api if user is None else api_as(user)

    return build


@pytest.mark.parametrize("endpoint", MATRIX)
@pytest.mark.parametrize("actor", ACTORS)
def test_permission_matrix(
    client_of: Callable[[str], APIClient], alice: User, endpoint: str, actor: str
) -> None:
    method, path, statuses = MATRIX[endpoint]
    token = ApiTokenFactory.create(user=alice)
    client = client_of(actor)

    response = getattr(client, method)(path.format(token=token.pk), BODIES.get(endpoint))

    assert response.status_code == statuses[ACTORS.index(actor)]
    if response.status_code >= 400:
        assert set(response.json()) == {"code", "message", "details", "request_id"}


@pytest.mark.parametrize("actor", ["other", "staff"])
def test_nobody_else_sees_the_owners_tokens(
    client_of: Callable[[str], APIClient], alice: User, actor: str
) -> None:
    token = ApiTokenFactory.create(user=alice)

    listed = client_of(actor).get("/api/v1/tokens/").json()["results"]

    assert token.pk not in {item["id"] for item in listed}


def test_staff_sees_tokens_in_the_admin_without_their_keys(alice: User, staff: User) -> None:
    token = ApiTokenFactory.create(user=alice)
    admin = APIClient()
    admin.force_login(staff)

    changelist = admin.get("/admin/accounts/apitoken/")
    change = admin.get(f"/admin/accounts/apitoken/{token.pk}/change/")

    assert changelist.status_code == 200
    assert token.prefix in changelist.content.decode()
    assert change.status_code == 200
    assert token.key_hash in change.content.decode()
    assert 'name="key_hash"' not in change.content.decode()  # shown, never editable
    assert admin.get("/admin/accounts/apitoken/add/").status_code == 403


def test_staff_can_revoke_a_token_from_the_admin(alice: User, staff: User) -> None:
    token = ApiTokenFactory.create(user=alice)
    admin = APIClient()
    admin.force_login(staff)

    response = admin.post(
        "/admin/accounts/apitoken/",
        {"action": "revoke", "_selected_action": [token.pk]},
        format="multipart",
    )

    assert response.status_code == 302
    token.refresh_from_db()
    assert token.revoked_at is not None


def test_the_admin_is_closed_to_non_staff(alice: User) -> None:
    client = APIClient()
    client.force_login(alice)

    response = client.get("/admin/accounts/apitoken/")

    assert response.status_code == 302
    assert "/admin/login/" in response.headers["Location"]


def test_a_bot_user_cannot_log_in_with_a_password(api: APIClient, db: None) -> None:
    bot = UserFactory.create(username="randombot", is_bot=True)
    bot.set_unusable_password()
    bot.save()

    response = api.post("/api/v1/auth/login/", {"username": "randombot", "password": "guess"})

    assert response.status_code == 422
    assert response.json()["code"] == "invalid_credentials"
    assert not ApiToken.objects.filter(user=bot).exists()
