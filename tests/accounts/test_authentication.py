from datetime import timedelta

import pytest
import time_machine
from django.utils import timezone
from rest_framework.test import APIClient

from accounts.models import ApiToken, User
from accounts.services import token_create, token_mark_used, token_revoke

ME = "/api/v1/auth/me/"


def _bearer(key: str) -> APIClient:
    return APIClient(HTTP_AUTHORIZATION=f"Bearer {key}")


def test_accepts_a_valid_token(alice: User) -> None:
    _, key = token_create(user=alice, name="t")

    response = _bearer(key).get(ME)

    assert response.status_code == 200
    assert response.json()["username"] == "alice"


def test_the_scheme_name_is_case_insensitive(alice: User) -> None:
    _, key = token_create(user=alice, name="t")

    response = APIClient(HTTP_AUTHORIZATION=f"bearer {key}").get(ME)

    assert response.status_code == 200


@pytest.mark.django_db
def test_rejects_an_unknown_token() -> None:
    response = _bearer("not-a-token-anyone-was-given").get(ME)

    assert response.status_code == 401
    assert response.json()["code"] == "authentication_failed"
    assert response.headers["WWW-Authenticate"] == 'Bearer realm="api"'


def test_rejects_a_revoked_token(alice: User) -> None:
    token, key = token_create(user=alice, name="t")
    token_revoke(token=token, by=alice)

    response = _bearer(key).get(ME)

    assert response.status_code == 401
    assert response.json()["code"] == "authentication_failed"


def test_rejects_a_token_of_a_deactivated_user(alice: User) -> None:
    _, key = token_create(user=alice, name="t")
    alice.is_active = False
    alice.save()

    response = _bearer(key).get(ME)

    assert response.status_code == 401
    assert response.json()["code"] == "authentication_failed"


@pytest.mark.parametrize("header", ["Bearer", "Bearer two parts", "Bearer caf\u00e9"])
@pytest.mark.django_db
def test_rejects_a_malformed_bearer_header(header: str) -> None:
    response = APIClient(HTTP_AUTHORIZATION=header).get(ME)

    assert response.status_code == 401
    assert response.json()["code"] == "authentication_failed"


@pytest.mark.django_db
def test_ignores_other_schemes() -> None:
    response = APIClient(HTTP_AUTHORIZATION="Basic YWxpY2U6c2VjcmV0").get(ME)

    assert response.status_code == 401
    assert response.json()["code"] == "not_authenticated"


def test_records_last_use_at_most_once_a_minute(alice: User) -> None:
    token, key = token_create(user=alice, name="t")
    client = _bearer(key)
    start = timezone.now()

    with time_machine.travel(start, tick=False):
        client.get(ME)
    with time_machine.travel(start + timedelta(seconds=59), tick=False):
        client.get(ME)
    after_second_request = ApiToken.objects.get(pk=token.pk).last_used_at
    with time_machine.travel(start + timedelta(seconds=61), tick=False):
        client.get(ME)
    after_third_request = ApiToken.objects.get(pk=token.pk).last_used_at

    assert after_second_request == start
    assert after_third_request == start + timedelta(seconds=61)


def test_a_use_is_written_once_a_full_minute_has_passed_and_says_whether_it_wrote(
    alice: User,
) -> None:
    token, _ = token_create(user=alice, name="t")
    start = timezone.now()

    first = token_mark_used(token=token, now=start)
    within = token_mark_used(token=token, now=start + timedelta(seconds=59))
    on_the_minute = token_mark_used(token=token, now=start + timedelta(minutes=1))

    assert (first, within, on_the_minute) == (True, False, True)
    assert token.last_used_at == start + timedelta(minutes=1)
    assert ApiToken.objects.get(pk=token.pk).last_used_at == start + timedelta(minutes=1)


def test_a_use_another_request_wrote_meanwhile_is_not_written_again(alice: User) -> None:
    token, _ = token_create(user=alice, name="t")
    stale = ApiToken.objects.get(pk=token.pk)  # read before the other request wrote
    now = timezone.now()
    token_mark_used(token=token, now=now)

    assert token_mark_used(token=stale, now=now + timedelta(seconds=1)) is False
    assert ApiToken.objects.get(pk=token.pk).last_used_at == now
