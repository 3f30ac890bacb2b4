"""Sign-in, register, sign-out and language pages: sessions on the API's accounts."""

from __future__ import annotations

import pytest
from django.test import Client
from pytest_django import Settings

from accounts.models import User
from tests.factories import DEFAULT_PASSWORD
from tests.pages import text

pytestmark = pytest.mark.django_db


def test_sign_in_takes_the_username_in_any_case_and_goes_back_where_it_came_from(
    client: Client, alice: User
) -> None:
    response = client.post(
        "/sign-in/", {"username": "ALICE", "password": DEFAULT_PASSWORD, "next": "/leagues/"}
    )

    assert response.status_code == 302
    assert response["Location"] == "/leagues/"
    assert client.get("/").context["user"] == alice


def test_a_wrong_password_is_said_on_the_page_and_the_username_is_kept(
    client: Client, alice: User
) -> None:
    response = client.post("/sign-in/", {"username": "alice", "password": "nope"})

    assert response.status_code == 400
    assert "Wrong username or password." in text(response.content)
    assert 'value="alice"' in response.content.decode()
    assert not client.get("/").context["user"].is_authenticated


def test_sign_in_never_sends_the_player_to_another_site(client: Client, alice: User) -> None:
    response = client.post(
        "/sign-in/",
        {"username": "alice", "password": DEFAULT_PASSWORD, "next": "https://evil.example/"},
    )

    assert response["Location"] == "/"


def test_sign_in_attempts_share_the_apis_auth_rate(
    client: Client, alice: User, settings: Settings
) -> None:
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {
            **settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"],
            "auth": "2/min",
        },
    }
    for _ in range(2):
        client.post("/sign-in/", {"username": "alice", "password": "nope"})
    response = client.post("/sign-in/", {"username": "alice", "password": DEFAULT_PASSWORD})

    assert response.status_code == 400
    assert "Too many attempts" in text(response.content)


def test_register_creates_the_account_signs_in_and_the_api_knows_it(client: Client) -> None:
    response = client.post(
        "/register/", {"username": "Dora", "email": "", "password": "a-long-passphrase"}
    )

    assert response.status_code == 302
    dora = User.objects.get(username="Dora")
    assert client.get("/api/v1/auth/me/").json()["username"] == dora.username


def test_register_says_what_is_wrong_beside_each_field_and_keeps_what_was_typed(
    client: Client, alice: User
) -> None:
    taken = client.post("/register/", {"username": "ALICE", "password": "a-long-passphrase"})
    weak = client.post("/register/", {"username": "dora", "password": "12345678"})

    assert taken.status_code == weak.status_code == 400
    assert 'id="id_username_error"' in taken.content.decode()
    assert "is taken" in text(taken.content)
    assert 'value="ALICE"' in taken.content.decode()
    assert 'id="id_password_error"' in weak.content.decode()
    assert 'aria-invalid="true"' in weak.content.decode()
    assert not User.objects.filter(username="dora").exists()


def test_sign_out_is_a_post_and_ends_the_session(client: Client, alice: User) -> None:
    client.force_login(alice)

    assert client.get("/sign-out/").status_code == 405
    assert client.post("/sign-out/").status_code == 302
    assert not client.get("/").context["user"].is_authenticated


def test_a_signed_in_players_language_is_kept_across_sessions(client: Client, alice: User) -> None:
    client.force_login(alice)
    client.post("/language/", {"language": "de", "next": "/leagues/"})
    alice.refresh_from_db()
    other_browser = Client()
    other_browser.force_login(alice)

    assert alice.language == "de"
    assert other_browser.get("/", HTTP_ACCEPT_LANGUAGE="en")["Content-Language"] == "de"


def test_a_visitors_language_choice_is_a_cookie_and_an_unknown_one_is_english(
    client: Client,
) -> None:
    client.post("/language/", {"language": "de"})
    assert client.get("/")["Content-Language"] == "de"

    client.post("/language/", {"language": "xx"})
    assert client.get("/")["Content-Language"] == "en"
