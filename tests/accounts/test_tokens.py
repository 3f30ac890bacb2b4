from collections.abc import Callable

import pytest
from rest_framework.test import APIClient

from accounts.keys import key_hash
from accounts.models import ApiToken, User
from accounts.services import token_revoke
from cya_site.errors import DomainError
from tests.factories import ApiTokenFactory

URL = "/api/v1/tokens/"

ClientFor = Callable[[User], APIClient]


def test_creates_a_token_and_shows_its_key_only_in_that_response(
    api_as: ClientFor, alice: User
) -> None:
    client = api_as(alice)

    response = client.post(URL, {"name": "ladder bot"})

    assert response.status_code == 201
    body = response.json()
    token = ApiToken.objects.get(pk=body["id"])
    assert token.user == alice
    assert token.name == "ladder bot"
    assert token.key_hash == key_hash(body["key"])
    assert body["key"] not in {token.key_hash, token.prefix}
    listed = client.get(URL).json()["results"]
    assert all("key" not in item for item in listed)


def test_lists_only_the_callers_tokens_newest_first(
    api_as: ClientFor, alice: User, bob: User
) -> None:
    ApiTokenFactory.create(user=bob)
    older = ApiTokenFactory.create(user=alice, name="older")
    client = api_as(alice)  # creates alice's newest token, "test"

    response = client.get(URL)

    assert response.status_code == 200
    names = [item["name"] for item in response.json()["results"]]
    assert names == ["test", "older"]
    assert response.json()["count"] == 2
    assert older.pk in {item["id"] for item in response.json()["results"]}


def test_list_is_paginated_with_a_client_page_size(api_as: ClientFor, alice: User) -> None:
    ApiTokenFactory.create_batch(4, user=alice)
    client = api_as(alice)

    first = client.get(URL, {"page_size": 2}).json()
    last = client.get(URL, {"page_size": 2, "page": 3}).json()

    assert first["count"] == 5
    assert len(first["results"]) == 2
    assert first["next"] is not None
    assert len(last["results"]) == 1
    assert last["next"] is None


def test_a_page_past_the_end_is_not_found(api_as: ClientFor, alice: User) -> None:
    response = api_as(alice).get(URL, {"page": 9})

    assert response.status_code == 404
    assert response.json()["code"] == "not_found"


def test_filters_tokens_by_whether_they_are_active(api_as: ClientFor, alice: User) -> None:
    revoked = ApiTokenFactory.create(user=alice, revoked=True)
    client = api_as(alice)

    active = client.get(URL, {"active": "true"}).json()["results"]
    inactive = client.get(URL, {"active": "false"}).json()["results"]

    assert [item["name"] for item in active] == ["test"]
    assert [item["id"] for item in inactive] == [revoked.pk]
    assert inactive[0]["is_active"] is False


def test_revokes_an_own_token(api_as: ClientFor, alice: User) -> None:
    token = ApiTokenFactory.create(user=alice)

    response = api_as(alice).delete(f"{URL}{token.pk}/")

    assert response.status_code == 204
    token.refresh_from_db()
    assert token.revoked_at is not None


def test_revoking_twice_changes_nothing_the_second_time(api_as: ClientFor, alice: User) -> None:
    token = ApiTokenFactory.create(user=alice)
    client = api_as(alice)
    client.delete(f"{URL}{token.pk}/")
    token.refresh_from_db()
    first_revocation = token.revoked_at

    response = client.delete(f"{URL}{token.pk}/")

    assert response.status_code == 204
    token.refresh_from_db()
    assert token.revoked_at == first_revocation


def test_cannot_see_or_revoke_another_users_token(
    api_as: ClientFor, alice: User, bob: User
) -> None:
    token = ApiTokenFactory.create(user=alice)

    response = api_as(bob).delete(f"{URL}{token.pk}/")

    assert response.status_code == 404
    assert response.json()["code"] == "not_found"
    token.refresh_from_db()
    assert token.revoked_at is None


def test_a_non_numeric_token_id_is_not_found(api_as: ClientFor, alice: User) -> None:
    response = api_as(alice).delete(f"{URL}abc/")

    assert response.status_code == 404
    assert response.json()["code"] == "not_found"


@pytest.mark.parametrize(
    ("body", "field", "code"),
    [
        ({}, "name", "required"),
        ({"name": ""}, "name", "blank"),
        ({"name": "x" * 101}, "name", "max_length"),
        ({"name": "ok", "scope": "admin"}, "scope", "unknown_field"),
    ],
)
def test_rejects_bad_token_input(
    api_as: ClientFor, alice: User, body: dict[str, str], field: str, code: str
) -> None:
    response = api_as(alice).post(URL, body)

    assert response.status_code == 400
    assert response.json()["code"] == "invalid"
    assert response.json()["details"][field][0]["code"] == code
    assert ApiToken.objects.filter(user=alice).count() == 1  # only the client's own


def test_only_the_owner_or_staff_may_revoke_through_the_service(
    alice: User, bob: User, staff: User
) -> None:
    token = ApiTokenFactory.create(user=alice)

    with pytest.raises(DomainError) as raised:
        token_revoke(token=token, by=bob)
    assert raised.value.code == "permission_denied"
    assert token.revoked_at is None

    token_revoke(token=token, by=staff)
    assert token.revoked_at is not None
