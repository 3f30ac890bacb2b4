"""The lobby (/play/): open a table against bots with the rules you like, or join one."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.test import Client

from accounts.models import User
from bots.models import SeatControl
from games import services as game_services
from games.engine import RuleSet
from games.models import Game
from games.seating import BotChoice
from tests.bots.bot_servers import webhook_version
from tests.bots.checks import play_to_the_end
from tests.factories import UserFactory
from tests.pages import BUDGET, text, transfer_size

pytestmark = pytest.mark.django_db

DEFAULTS = {
    "seats": "4",
    "opponent_0": "me",
    "opponent_1": "strategy:greedy",
    "opponent_2": "strategy:shark",
    "opponent_3": "strategy:random",
    "opponent_4": "person",
    "opponent_5": "person",
    "preset": "2021",
    "ending": "classic",
    "target": "1000000",
    "tie_policy": "extra_round",
    "no_rechallenge_after_loss": "on",
}


@pytest.fixture
def alice(client: Client) -> User:
    user = UserFactory.create(username="alice")
    client.force_login(user)
    return user


def test_a_visitor_plays_the_computer_as_a_guest_without_registering(client: Client) -> None:
    response = client.get("/play/")

    assert response.status_code == 200
    page = text(response.content)
    assert "Play at once as a guest, from this browser" in page
    assert "/register/?next=/play/" in response.content.decode()
    assert "Greedy (built-in: the best move now)" in page
    assert transfer_size(client, "/play/") < BUDGET

    posted = client.post("/play/", DEFAULTS)

    game = Game.objects.get()
    assert posted.status_code == 302
    assert posted["Location"] == f"/games/{game.pk}/"
    guest = game.seats.get(number=0).user
    assert guest is not None
    assert guest.is_guest
    assert guest.username.startswith("guest-")
    assert not guest.has_usable_password()
    assert game.status == Game.Status.ACTIVE  # against three bots: at once
    assert "You are playing as a guest." in text(client.get("/play/").content)


def test_guests_are_counted_per_address_and_refused_past_the_rate(
    client: Client, settings: Any
) -> None:
    rates = settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"]
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {**rates, "guest": "2/hour"},
    }
    for _ in range(2):
        assert Client(REMOTE_ADDR="203.0.113.9").post("/play/", DEFAULTS).status_code == 302

    refused = Client(REMOTE_ADDR="203.0.113.9").post("/play/", DEFAULTS)

    assert refused.status_code == 400
    assert "Too many guests from here" in text(refused.content)
    assert User.objects.filter(is_guest=True).count() == 2
    assert Game.objects.count() == 2


def test_opening_a_table_against_three_builtins_lands_on_the_game_playing(
    client: Client, alice: User
) -> None:
    response = client.post("/play/", DEFAULTS)

    game = Game.objects.get()
    assert response.status_code == 302
    assert response["Location"] == f"/games/{game.pk}/"
    assert game.status == Game.Status.ACTIVE
    assert game.bot_seats == [1, 2, 3]
    strategies = SeatControl.objects.filter(seat__game=game).order_by("seat__number")
    assert [c.version.strategy for c in strategies] == ["greedy", "shark", "random"]
    assert game.rules["seats"] == 4


def test_every_rule_option_typed_reaches_the_table(client: Client, alice: User) -> None:
    chosen = {
        **DEFAULTS,
        "seats": "2",
        "preset": "de2023",
        "ending": "first_to_n_round_wins",
        "ending_rounds": "3",
        "tie_policy": "shared_win",
        "penny_jar": "on",
        "action_cards": "on",
        "hand_six": "on",
        "two_actions": "on",
        "improve_set": "on",
        "second_set_challenge": "on",
        "decision_seconds": "45",
    }
    chosen.pop("no_rechallenge_after_loss")

    client.post("/play/", chosen)

    game = Game.objects.get()
    rules = RuleSet.from_json(game.rules)
    assert (rules.edition, rules.seats, rules.ending, rules.ending_rounds) == (
        "de2023",
        2,
        "first_to_n_round_wins",
        3,
    )
    assert rules.tie_policy == "shared_win"
    switches = ("penny_jar", "action_cards", "hand_six", "two_actions", "improve_set")
    assert all(getattr(rules.advanced, name) for name in (*switches, "second_set_challenge"))
    assert not rules.advanced.no_rechallenge_after_loss
    assert game.decision_seconds == 45
    assert game.bot_seats == [1]  # seats past the table's size are left out


@pytest.mark.parametrize(("switch", "swap", "move"), [("swap", True, False), ("move", False, True)])
def test_a_table_may_play_swap_or_move_cards_alone(
    client: Client, alice: User, switch: str, swap: bool, move: bool
) -> None:
    """RULES #30-32: each action card on its own switch, beside the grouped one."""
    client.post("/play/", {**DEFAULTS, switch: "on"})

    advanced = RuleSet.from_json(Game.objects.get().rules).advanced
    assert (advanced.has_swap, advanced.has_move, advanced.action_cards) == (swap, move, False)


def test_a_seat_left_to_a_person_makes_a_table_others_can_join(client: Client, alice: User) -> None:
    client.post("/play/", {**DEFAULTS, "seats": "3", "opponent_2": "person"})
    game = Game.objects.get()
    assert game.status == Game.Status.OPEN
    bob = Client()
    bob.force_login(UserFactory.create(username="bob"))
    assert f"Game {game.pk}" in text(bob.get("/play/").content)

    joined = bob.post(f"/play/{game.pk}/join/")

    assert joined["Location"] == f"/games/{game.pk}/"
    game.refresh_from_db()
    assert game.status == Game.Status.ACTIVE  # the last person sat down


def test_joining_a_table_that_filled_meanwhile_says_so(client: Client, alice: User) -> None:
    bob = UserFactory.create(username="bob")
    game = game_services.game_create(by=bob, rules=RuleSet.preset("2021", seats=2))
    game_services.game_join(game=game, user=UserFactory.create(username="carol"))

    response = client.post(f"/play/{game.pk}/join/")

    assert response.status_code == 409
    assert "Every seat at this table is taken." in text(response.content)


def test_a_bad_rule_or_seat_choice_is_shown_beside_its_field_with_the_input_kept(
    client: Client, alice: User
) -> None:
    response = client.post("/play/", {**DEFAULTS, "ending_rounds": "0", "opponent_1": "bogus"})

    assert response.status_code == 400
    page = response.content.decode()
    assert 'id="id_ending_rounds_error"' in page
    assert 'id="id_opponent_1_error"' in page
    assert 'value="0"' in page
    assert not Game.objects.exists()


def test_rules_the_engine_refuses_are_shown_beside_the_option(client: Client, alice: User) -> None:
    response = client.post("/play/", {**DEFAULTS, "preset": "2011", "penny_jar": "on"})

    assert response.status_code == 400
    assert 'id="id_penny_jar_error"' in response.content.decode()
    assert "the 2011 edition has no Penny Jar" in text(response.content)
    assert not Game.objects.exists()


def test_a_bot_version_withdrawn_meanwhile_is_refused_beside_its_seat(
    client: Client, alice: User
) -> None:
    version = webhook_version(UserFactory.create(), "hooky", "http://127.0.0.1:9/")
    assert "hooky v1" in text(client.get("/play/").content)
    version.bot.is_active = False
    version.bot.save()

    # the form no longer offers it: the choice is refused as not one of the choices
    response = client.post("/play/", {**DEFAULTS, "opponent_1": f"version:{version.pk}"})

    assert response.status_code == 400
    assert 'id="id_opponent_1_error"' in response.content.decode()
    assert not Game.objects.exists()


def test_the_lobby_lists_your_tables_and_costs_few_queries(
    client: Client, alice: User, django_assert_max_num_queries: Any
) -> None:
    for _ in range(5):
        client.post("/play/", DEFAULTS)
    with django_assert_max_num_queries(10):
        response = client.get("/play/")
    page = text(response.content)
    for game in Game.objects.all():
        assert f"Game {game.pk}" in page
    assert "builtin-shark bot" in page


def test_a_person_may_open_a_table_of_bots_only_to_watch(client: Client, alice: User) -> None:
    response = client.post("/play/", {**DEFAULTS, "seats": "3", "opponent_0": "strategy:shark"})

    game = Game.objects.get()
    assert response["Location"] == f"/games/{game.pk}/"
    assert (game.status, game.bot_seats) == (Game.Status.ACTIVE, [0, 1, 2])
    assert not game.seats.filter(user=alice).exists()


# --- playing on from a replay (fork) ------------------------------------------------------------


@pytest.fixture
def finished(alice: User) -> Game:
    """A finished quick game of alice against a greedy and a shark."""
    game = game_services.game_create(
        by=alice,
        rules=RuleSet.preset("2021", seats=3, ending="quick"),
        bots=[BotChoice(1, "greedy"), BotChoice(2, "shark")],
    )
    return play_to_the_end(game, alice)


def test_the_replay_offers_to_play_on_from_each_step_but_the_last(
    client: Client, finished: Game
) -> None:
    mid = client.get(f"/games/{finished.pk}/replay/?step=4")
    last = client.get(f"/games/{finished.pk}/replay/?step={finished.version}")

    assert f'href="/play/fork/{finished.pk}/?step=4"' in mid.content.decode()
    assert "/play/fork/" not in last.content.decode()  # the game was over by then


def test_the_fork_form_starts_with_the_seats_as_they_were(client: Client, finished: Game) -> None:
    response = client.get(f"/play/fork/{finished.pk}/?step=4")

    assert response.status_code == 200
    page = response.content.decode()
    assert re.search(r'<option value="me" selected>You</option>', page)
    assert 'value="strategy:greedy" selected' in page
    assert 'value="strategy:shark" selected' in page
    assert 'name="step" value="4"' in page


def test_playing_on_with_a_redeal_opens_a_table_against_the_same_bots(
    client: Client, alice: User, finished: Game
) -> None:
    response = client.post(
        f"/play/fork/{finished.pk}/",
        {
            "step": "4",
            "cards": "redeal",
            "opponent_0": "me",
            "opponent_1": "strategy:greedy",
            "opponent_2": "strategy:random",
        },
    )

    forked = Game.objects.get(forked_from=finished)
    assert response["Location"] == f"/games/{forked.pk}/"
    assert (forked.fork_step, forked.fork_redeal) == (4, True)
    assert (forked.status, forked.bot_seats) == (Game.Status.ACTIVE, [1, 2])
    assert forked.seats.get(number=0).user == alice


def test_a_fork_refused_is_said_beside_its_field_with_the_input_kept(
    client: Client, finished: Game
) -> None:
    too_far = finished.version + 5
    response = client.post(
        f"/play/fork/{finished.pk}/",
        {"step": str(too_far), "cards": "same", "opponent_0": "me", "opponent_1": "me"},
    )

    assert response.status_code == 400
    page = response.content.decode()
    assert 'id="id_opponent_1_error"' in page  # one seat only
    assert f'value="{too_far}"' in page
    assert not Game.objects.filter(forked_from=finished).exists()

    refused = client.post(
        f"/play/fork/{finished.pk}/",
        {"step": str(too_far), "cards": "same", "opponent_0": "me", "opponent_1": "person"},
    )
    assert refused.status_code == 400
    assert 'id="id_step_error"' in refused.content.decode()
    assert f"The game has {finished.version} steps." in text(refused.content)


def test_a_visitor_is_asked_to_sign_in_before_playing_on(finished: Game) -> None:
    response = Client().get(f"/play/fork/{finished.pk}/?step=3")

    assert response.status_code == 302
    assert response["Location"].startswith("/sign-in/")
