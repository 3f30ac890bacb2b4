"""A forgotten password: a reset link by email (Django's views, the in-memory outbox),
the same answer for any address, rates, and the API twin."""

from __future__ import annotations

import re

import pytest
from django.core import mail
from django.test import Client
from pytest_django import Settings
from rest_framework.test import APIClient

from accounts.models import ApiToken, User
from tests.factories import DEFAULT_PASSWORD, ApiTokenFactory
from tests.pages import text

pytestmark = pytest.mark.django_db

NEW_PASSWORD = "a fresh and long passphrase"


def _link() -> str:
    (message,) = mail.outbox
    found = re.search(r"http://testserver(/password-reset/[^\s]+/)", str(message.body))
    assert found, message.body
    return found.group(1)


def test_a_reset_link_sets_a_new_password_and_ends_every_token(client: Client, alice: User) -> None:
    alice.email = "alice@example.org"
    alice.save()
    token: ApiToken = ApiTokenFactory.create(user=alice)

    response = client.post("/password-reset/", {"email": "ALICE@example.org"})
    assert response.status_code == 302
    assert response["Location"] == "/password-reset/sent/"
    assert mail.outbox[0].to == ["alice@example.org"]
    page = client.get(_link(), follow=True)
    assert "Choose a new password" in text(page.content)
    done = client.post(
        page.redirect_chain[-1][0],
        {"new_password1": NEW_PASSWORD, "new_password2": NEW_PASSWORD},
    )

    assert done.status_code == 302
    assert done["Location"] == "/password-reset/done/"
    alice.refresh_from_db()
    assert alice.check_password(NEW_PASSWORD)
    assert ApiToken.objects.get(pk=token.pk).revoked_at is not None


def test_a_used_link_is_refused_on_the_page(client: Client, alice: User) -> None:
    alice.email = "alice@example.org"
    alice.save()
    client.post("/password-reset/", {"email": "alice@example.org"})
    link = _link()
    confirm = client.get(link, follow=True).redirect_chain[-1][0]
    client.post(confirm, {"new_password1": NEW_PASSWORD, "new_password2": NEW_PASSWORD})

    again = client.get(link, follow=True)

    assert "This link has expired or was used already" in text(again.content)


def test_an_unknown_address_gets_the_same_answer_and_no_mail(client: Client, alice: User) -> None:
    known = client.post("/password-reset/", {"email": "nobody@example.org"})

    assert known.status_code == 302
    assert known["Location"] == "/password-reset/sent/"
    assert mail.outbox == []


def test_reset_requests_are_throttled_per_address(client: Client, settings: Settings) -> None:
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {
            **settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"],
            "mail": "2/hour",
        },
    }
    for _ in range(2):
        assert client.post("/password-reset/", {"email": "x@example.org"}).status_code == 302

    refused = client.post("/password-reset/", {"email": "x@example.org"})

    assert refused.status_code == 429
    assert "Too many attempts from here" in text(refused.content)


def test_one_address_receives_a_bounded_number_of_mails_whoever_asks(
    api: APIClient, alice: User, settings: Settings
) -> None:
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {
            **settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"],
            "mail_to": "2/hour",
        },
    }
    answers = []
    for n in range(4):  # four clients, each well within its own rate
        answers.append(
            Client(REMOTE_ADDR=f"10.0.0.{n}").post("/password-reset/", {"email": alice.email})
        )
    by_api = api.post("/api/v1/account/password-reset/", {"email": alice.email})

    assert [a["Location"] for a in answers] == ["/password-reset/sent/"] * 4  # the same answer
    assert by_api.status_code == 202
    assert [m.to for m in mail.outbox] == [[alice.email]] * 2  # and no more mails


def test_the_api_resets_a_password_with_the_links_uid_and_token(
    api: APIClient, alice: User
) -> None:
    alice.email = "alice@example.org"
    alice.save()

    asked = api.post("/api/v1/account/password-reset/", {"email": "alice@example.org"})
    assert asked.status_code == 202
    uid, token = _link().strip("/").split("/")[1:]
    weak = api.post(
        "/api/v1/account/password-reset/confirm/",
        {"uid": uid, "token": token, "password": "123"},
    )
    done = api.post(
        "/api/v1/account/password-reset/confirm/",
        {"uid": uid, "token": token, "password": NEW_PASSWORD},
    )
    reused = api.post(
        "/api/v1/account/password-reset/confirm/",
        {"uid": uid, "token": token, "password": NEW_PASSWORD + "!"},
    )

    assert weak.status_code == 422
    assert weak.json()["code"] == "weak_password"
    assert done.status_code == 204
    assert reused.status_code == 422
    assert reused.json()["code"] == "link_invalid"
    alice.refresh_from_db()
    assert alice.check_password(NEW_PASSWORD)


def test_the_api_answers_an_unknown_address_as_a_known_one(api: APIClient, alice: User) -> None:
    alice.email = "alice@example.org"
    alice.save()

    known = api.post("/api/v1/account/password-reset/", {"email": "alice@example.org"})
    unknown = api.post("/api/v1/account/password-reset/", {"email": "bob@example.org"})

    assert (known.status_code, known.json()) == (unknown.status_code, unknown.json())
    assert len(mail.outbox) == 1


def test_a_forged_reset_token_is_refused(api: APIClient, alice: User) -> None:
    response = api.post(
        "/api/v1/account/password-reset/confirm/",
        {"uid": "MQ", "token": "abc-def", "password": NEW_PASSWORD},
    )

    assert response.status_code == 422
    assert response.json()["code"] == "link_invalid"
    alice.refresh_from_db()
    assert alice.check_password(DEFAULT_PASSWORD)
