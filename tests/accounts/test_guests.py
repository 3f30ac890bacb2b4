"""Guests: a visitor plays from this browser's session without registering, and keeps
their games by registering later (accounts.services, accounts.web.guests)."""

from __future__ import annotations

import pytest
from django.test import Client

from accounts import services
from accounts.models import User
from cya_site.errors import DomainError
from games import services as game_services
from games.engine import RuleSet
from games.models import Game
from games.seating import BotChoice
from tests.pages import text

pytestmark = pytest.mark.django_db
PASSWORD = "a long enough password"


def _guest_game(client: Client) -> tuple[User, Game]:
    """A guest made by the lobby, at a table against a bot."""
    client.post(
        "/play/",
        {
            "seats": "2",
            "opponent_0": "me",
            "opponent_1": "strategy:greedy",
            "preset": "2021",
            "ending": "quick",
            "target": "1000000",
            "tie_policy": "extra_round",
        },
    )
    game = Game.objects.get()
    guest = game.seats.get(number=0).user
    assert guest is not None
    assert guest.is_guest
    return guest, game


def test_a_guest_who_registers_becomes_the_account_and_keeps_their_games(
    client: Client,
) -> None:
    guest, game = _guest_game(client)
    form = client.get("/register/")

    response = client.post("/register/", {"username": "newcomer", "password": PASSWORD})

    assert "your games stay yours once you register" in text(form.content)
    assert response.status_code == 302
    user = User.objects.get(username="newcomer")
    assert user.pk == guest.pk
    assert not user.is_guest
    assert user.check_password(PASSWORD)
    assert game.seats.get(number=0).user == user
    assert client.get("/").context["user"] == user  # still signed in
    assert User.objects.filter(is_guest=True).count() == 0


def test_a_registered_player_who_registers_again_gets_a_new_account(
    client: Client, alice: User
) -> None:
    client.force_login(alice)

    client.post("/register/", {"username": "second", "password": PASSWORD})

    assert User.objects.get(username="second").pk != alice.pk
    alice.refresh_from_db()
    assert alice.username == "alice"


def test_guest_names_are_kept_for_guests_and_unique() -> None:
    first, second = services.user_guest_create(), services.user_guest_create()

    assert first.username != second.username
    assert first.is_guest
    assert second.is_guest
    with pytest.raises(DomainError) as refused:
        services.user_register(username="Guest-1234", password=PASSWORD)
    assert refused.value.code == "username_invalid"


def test_a_visitor_takes_a_seat_from_an_invite_link_as_a_guest(client: Client, alice: User) -> None:
    rules = RuleSet.preset("2021", seats=3, ending="quick")
    game = game_services.game_create(
        by=alice, rules=rules, bots=[BotChoice(seat=2, strategy="greedy")]
    )
    invite = client.get(f"/games/{game.pk}/")

    joined = client.post(f"/games/{game.pk}/join/", {"guest": "1"})
    without = Client().post(f"/games/{game.pk}/join/")

    assert "Take a seat as a guest" in text(invite.content)
    assert f'value="http://testserver/games/{game.pk}/"' in invite.content.decode()
    assert joined.status_code == 302
    game.refresh_from_db()
    assert game.status == Game.Status.ACTIVE  # the last free seat: it starts
    guest = game.seats.get(number=1).user
    assert guest is not None
    assert guest.is_guest
    assert without.status_code == 302
    assert without["Location"].startswith("/sign-in/")
