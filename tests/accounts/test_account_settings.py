"""A person's own account: a new password signs out the other sessions, a new address is
confirmed from that address, the data download, and deleting keeps games and standings."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

import pytest
from django.core import mail
from django.test import Client
from rest_framework.test import APIClient

from accounts import services
from accounts.models import ApiToken, User
from games import services as game_services
from games.engine import RuleSet
from games.models import Seat
from tests.factories import DEFAULT_PASSWORD, ApiTokenFactory
from tests.pages import text
from tournaments.models import Member
from tournaments.services import league_create

pytestmark = pytest.mark.django_db

NEW_PASSWORD = "a fresh and long passphrase"


def _signed_in(user: User) -> Client:
    client = Client()
    client.force_login(user)
    return client


def test_a_new_password_signs_out_every_other_session_and_token(alice: User) -> None:
    here, elsewhere = _signed_in(alice), _signed_in(alice)
    token: ApiToken = ApiTokenFactory.create(user=alice)

    response = here.post("/account/password/", {"current": DEFAULT_PASSWORD, "new": NEW_PASSWORD})

    assert response.status_code == 302
    assert here.get("/account/").status_code == 200
    assert elsewhere.get("/account/").status_code == 302  # to sign-in
    assert ApiToken.objects.get(pk=token.pk).revoked_at is not None


def test_a_wrong_current_password_is_said_beside_its_field(alice: User) -> None:
    client = _signed_in(alice)

    response = client.post("/account/password/", {"current": "nope", "new": NEW_PASSWORD})

    assert response.status_code == 400
    assert 'id="id_current_error"' in response.content.decode()
    assert "That is not your current password." in text(response.content)


def test_the_api_keeps_the_token_that_changed_the_password(
    api_as: Callable[[User], APIClient], alice: User
) -> None:
    other, _ = services.token_create(user=alice, name="other")
    client = api_as(alice)

    response = client.post(
        "/api/v1/account/password/", {"current": DEFAULT_PASSWORD, "new": NEW_PASSWORD}
    )
    wrong = client.post("/api/v1/account/password/", {"current": "x", "new": NEW_PASSWORD})

    assert response.status_code == 204
    assert client.get("/api/v1/auth/me/").status_code == 200
    assert ApiToken.objects.get(pk=other.pk).revoked_at is not None
    assert wrong.status_code == 403
    assert wrong.json()["code"] == "wrong_password"


def test_a_new_address_replaces_the_old_only_once_confirmed_and_the_old_one_is_told(
    alice: User, django_capture_on_commit_callbacks: Callable[..., Any]
) -> None:
    alice.email = "old@example.org"
    alice.save()
    client = _signed_in(alice)

    client.post("/account/email/", {"email": "new@example.org"})
    alice.refresh_from_db()
    assert alice.email == "old@example.org"
    (message,) = mail.outbox
    assert message.to == ["new@example.org"]
    link = re.search(r"http://testserver(/account/email/confirm/\S+/)", str(message.body))
    assert link
    assert "Confirm the address" in text(client.get(link.group(1)).content)
    with django_capture_on_commit_callbacks(execute=True):
        confirmed = client.post(link.group(1))
    again = client.post(link.group(1))

    assert confirmed.status_code == 302
    alice.refresh_from_db()
    assert alice.email == "new@example.org"
    assert again.status_code == 400
    assert "expired or was used already" in text(again.content)
    told = mail.outbox[1]  # the old address: a stolen session cannot move it quietly
    assert told.to == ["old@example.org"]
    assert "was changed to new@example.org" in str(told.body)


def test_the_api_confirms_an_address_with_the_links_token(
    api_as: Callable[[User], APIClient], api: APIClient, alice: User
) -> None:
    asked = api_as(alice).post("/api/v1/account/email/", {"email": "new@example.org"})
    token = re.search(r"/account/email/confirm/(\S+)/", str(mail.outbox[0].body))
    assert token
    forged = api.post("/api/v1/account/email/confirm/", {"token": token.group(1) + "x"})
    confirmed = api.post("/api/v1/account/email/confirm/", {"token": token.group(1)})

    assert asked.status_code == 202
    assert forged.status_code == 422
    assert forged.json()["code"] == "link_invalid"
    assert confirmed.status_code == 204
    alice.refresh_from_db()
    assert alice.email == "new@example.org"


def test_the_data_download_holds_the_account_games_and_clubs_but_no_key(
    alice: User, bob: User
) -> None:
    game = game_services.game_create(by=alice, rules=RuleSet.preset("2021", seats=2))
    game_services.game_join(game=game, user=bob)
    league = league_create(
        by=bob, name="Tuesday Club", slug="tuesday", rules=RuleSet.preset("2021", seats=4)
    )
    Member.objects.create(league=league, name="Alice A.", user=alice)
    token: ApiToken = ApiTokenFactory.create(user=alice)

    response = _signed_in(alice).get("/account/data/")

    assert response.status_code == 200
    assert "attachment" in response["Content-Disposition"]
    data = json.loads(response.content)
    assert data["account"]["username"] == "alice"
    assert [g["game"] for g in data["games"]] == [game.pk]
    assert data["league_memberships"] == [{"league": "Tuesday Club", "name": "Alice A."}]
    assert data["tokens"][0]["prefix"] == token.prefix
    assert str(token.key_hash) not in response.content.decode()


def test_deleting_keeps_the_games_and_rosters_under_a_deleted_player(
    alice: User, bob: User
) -> None:
    game = game_services.game_create(by=alice, rules=RuleSet.preset("2021", seats=2))
    game_services.game_join(game=game, user=bob)
    league = league_create(
        by=bob, name="Tuesday Club", slug="tuesday", rules=RuleSet.preset("2021", seats=4)
    )
    member = Member.objects.create(league=league, name="Alice A.", user=alice)
    client = _signed_in(alice)

    wrong = client.post("/account/delete/", {"password": "nope", "confirm": "on"})
    response = client.post("/account/delete/", {"password": DEFAULT_PASSWORD, "confirm": "on"})

    assert wrong.status_code == 400
    assert response.status_code == 302
    alice.refresh_from_db()
    assert alice.username.startswith("deleted-player-")
    assert (alice.email, alice.is_active, alice.has_usable_password()) == ("", False, False)
    assert alice.deleted_at is not None
    assert Seat.objects.get(game=game, number=0).user == alice
    member.refresh_from_db()
    assert member.name == alice.username
    assert not client.get("/").context["user"].is_authenticated
    assert services.user_register(username="alice", password=NEW_PASSWORD).pk != alice.pk


def test_the_api_deletes_the_account_with_its_password(
    api_as: Callable[[User], APIClient], alice: User
) -> None:
    client = api_as(alice)

    wrong = client.post("/api/v1/account/delete/", {"password": "nope"})
    response = client.post("/api/v1/account/delete/", {"password": DEFAULT_PASSWORD})

    assert wrong.status_code == 403
    assert wrong.json()["code"] == "wrong_password"
    assert response.status_code == 204
    assert client.get("/api/v1/auth/me/").status_code == 401


def test_nobody_registers_under_the_deleted_prefix(api: APIClient) -> None:
    response = api.post(
        "/api/v1/auth/register/", {"username": "deleted-player-1", "password": NEW_PASSWORD}
    )

    assert response.status_code == 422
    assert response.json()["code"] == "username_invalid"


def test_the_account_page_needs_a_signed_in_person(client: Client) -> None:
    response = client.get("/account/")

    assert response.status_code == 302
    assert response["Location"].startswith("/sign-in/")
