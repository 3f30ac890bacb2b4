"""One brute-force policy for every way in (accounts.lockout, issue 26).

The API's login, the sign-in page and the admin's login share one count of failed
sign-ins (django-axes): ``LOGIN_FAILURE_LIMIT`` failures for one account (from any
address), or from one client address (for any accounts), lock it out for
``LOGIN_LOCKOUT_MINUTES``, and while the lockout lasts the right password is refused too.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable

import pytest
import time_machine
from django.conf import settings
from django.test import Client
from django.utils import timezone
from rest_framework.test import APIClient

from accounts.models import ApiToken, User
from tests.factories import DEFAULT_PASSWORD, UserFactory

API = "/api/v1/auth/login/"
PAGE = "/sign-in/"
ADMIN = "/admin/login/"
WRONG = "not-the-password"

SignIn = Callable[[str, str, str], int]  # (username, password, client address) -> status


def _api(username: str, password: str, address: str) -> int:
    body = {"username": username, "password": password}
    return APIClient(REMOTE_ADDR=address).post(API, body).status_code


def _page(username: str, password: str, address: str) -> int:
    body = {"username": username, "password": password}
    return Client(REMOTE_ADDR=address).post(PAGE, body).status_code


def _admin(username: str, password: str, address: str) -> int:
    body = {"username": username, "password": password, "next": "/admin/"}
    return Client(REMOTE_ADDR=address).post(ADMIN, body).status_code


WAYS_IN: dict[str, SignIn] = {"api": _api, "page": _page, "admin": _admin}
SIGNED_IN = {"api": 201, "page": 302, "admin": 302}


@pytest.fixture
def boss(db: None) -> User:
    """Staff, so that the admin's login lets them in too."""
    return UserFactory.create(username="boss", is_staff=True, is_superuser=True)


def limit() -> int:
    return int(settings.AXES_FAILURE_LIMIT)


@pytest.mark.parametrize("way", sorted(WAYS_IN))
def test_failures_for_one_account_lock_it_out_from_everywhere_even_with_the_right_password(
    way: str, boss: User
) -> None:
    sign_in = WAYS_IN[way]
    for n in range(limit()):  # each failure from another address
        sign_in("boss", WRONG, f"10.0.0.{n + 1}")

    assert sign_in("boss", DEFAULT_PASSWORD, "10.9.9.9") == 429
    for other in WAYS_IN.values():  # one policy: every way in is locked for the account
        assert other("boss", DEFAULT_PASSWORD, "10.9.9.8") == 429
    assert not ApiToken.objects.filter(user=boss).exists()


@pytest.mark.parametrize("way", sorted(WAYS_IN))
def test_failures_from_one_address_lock_it_out_whatever_the_account(way: str, boss: User) -> None:
    sign_in = WAYS_IN[way]
    for n in range(limit()):  # each failure against another (or no) account
        sign_in(f"nobody{n}", WRONG, "10.1.1.1")

    assert sign_in("boss", DEFAULT_PASSWORD, "10.1.1.1") == 429
    assert sign_in("boss", DEFAULT_PASSWORD, "10.1.1.2") == SIGNED_IN[way]  # elsewhere: fine


def test_the_api_says_locked_out_with_a_stable_code_and_when_to_retry(boss: User) -> None:
    for _ in range(limit()):
        _api("boss", WRONG, "10.0.0.1")

    response = APIClient(REMOTE_ADDR="10.0.0.1").post(
        API, {"username": "boss", "password": DEFAULT_PASSWORD}
    )

    body = response.json()
    assert (response.status_code, body["code"]) == (429, "locked_out")
    minutes = int(settings.AXES_COOLOFF_TIME.total_seconds())
    assert body["details"] == {"wait_seconds": minutes}
    assert response["Retry-After"] == str(minutes)
    assert "locked" in body["message"]


def test_the_sign_in_page_says_so_beside_its_form_and_keeps_the_username(boss: User) -> None:
    for _ in range(limit()):
        _page("boss", WRONG, "10.0.0.1")

    response = Client(REMOTE_ADDR="10.0.0.1").post(
        PAGE, {"username": "boss", "password": DEFAULT_PASSWORD}
    )

    assert response.status_code == 429
    assert response["Retry-After"]
    page = response.content.decode()
    assert "locked for up to" in page
    assert 'value="boss"' in page
    assert "_auth_user_id" not in Client().session


def test_the_admin_login_is_locked_too(boss: User) -> None:
    """Issue 26: 20 wrong passwords answered 200 each, then the right one signed in."""
    client = Client(REMOTE_ADDR="10.0.0.7")
    for _ in range(20):
        response = client.post(ADMIN, {"username": "boss", "password": WRONG})
    assert response.status_code == 429

    response = client.post(ADMIN, {"username": "boss", "password": DEFAULT_PASSWORD})

    assert response.status_code == 429
    assert "locked for up to" in response.content.decode()
    assert client.get("/admin/").status_code == 302  # still signed out: sent to the login


def test_a_lockout_ends_after_its_time(boss: User) -> None:
    for _ in range(limit()):
        _api("boss", WRONG, "10.0.0.1")
    assert _api("boss", DEFAULT_PASSWORD, "10.0.0.1") == 429

    later = timezone.now() + settings.AXES_COOLOFF_TIME + dt.timedelta(seconds=1)
    with time_machine.travel(later):
        assert _api("boss", DEFAULT_PASSWORD, "10.0.0.1") == 201


def test_a_successful_sign_in_starts_the_count_again(boss: User) -> None:
    for _ in range(limit() - 1):
        _api("boss", WRONG, "10.0.0.1")
    assert _api("boss", DEFAULT_PASSWORD, "10.0.0.1") == 201

    for _ in range(limit() - 1):
        assert _api("boss", WRONG, "10.0.0.1") == 422
    assert _api("boss", DEFAULT_PASSWORD, "10.0.0.1") == 201
