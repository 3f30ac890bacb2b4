"""The game page, its act endpoint and the replay viewer, through Django's test client.

What each viewer gets (a seat its own hand and, on its turn, its legal actions as
controls; a spectator or a signed-out visitor the public table only), how the act
endpoint refuses what it must (stale, illegal, not seated, signed out, malformed), and
the replay at any step as any seat saw it.
"""

from __future__ import annotations

import html as html_lib
import json
import re
import uuid
from typing import Any

import pytest
from django.test import Client

from accounts.models import User
from games import selectors, services, store
from games.engine import RuleSet, action_to_json, legal_actions
from games.engine.cards import EDITIONS
from games.models import Event, Game
from games.seating import BotChoice
from tests.pages import BUDGET, text, transfer_size

pytestmark = pytest.mark.django_db

HAND = re.compile(r'<ul class="hand" id="hand"[^>]*>(.*?)</ul>', re.S)
CARD = re.compile(r'data-card="([a-z_]+)"')
ACT = re.compile(r'name="action" value="([^"]+)"')


def started_pair(alice: User, bob: User) -> Game:
    """A two-seat 2021 table (alice 0, bob 1), dealt: draft piles, as 2021 has for two.
    One round decides it (``quick``), so playing safe defaults ends it."""
    rules = RuleSet.preset("2021", seats=2, ending="quick")
    game = services.game_create(by=alice, rules=rules)
    services.game_join(game=game, user=bob)
    return services.game_start(game=game, by=alice)


def play(game: Game, users: dict[int, User], moves: int | None = None) -> Game:
    """The seats to act play their first legal action, ``moves`` times or to the end (safe
    defaults alone never score, so their rounds tie and are played again for ever)."""
    while moves is None or moves > 0:
        game.refresh_from_db()
        if game.status != Game.Status.ACTIVE:
            break
        state = store.load_state(game)
        action = action_to_json(legal_actions(state)[0], state.rules.edition)
        services.action_submit(
            game_id=game.pk, user=users[state.to_act], action=action, version=game.version
        )
        moves = None if moves is None else moves - 1
    game.refresh_from_db()
    return game


def hand_keys(html: bytes) -> list[str]:
    """The cards of the hand a page shows, by key, in order."""
    found = HAND.search(html.decode())
    return [] if found is None else CARD.findall(found.group(1))


def keys_of(game: Game, seat: int | None) -> list[str]:
    return list(selectors.observation(game, seat)["hand"])


# --- who sees what -------------------------------------------------------------------------


def test_a_seat_sees_its_own_hand_and_its_controls_only_on_its_turn(
    client: Client, alice: User, bob: User
) -> None:
    game = started_pair(alice, bob)
    to_act = game.to_act
    assert to_act is not None
    users = {0: alice, 1: bob}

    pages = {}
    for seat, user in users.items():
        client.force_login(user)
        pages[seat] = client.get(f"/games/{game.pk}/").content

    for seat, html in pages.items():
        assert hand_keys(html) == keys_of(game, seat)
        names = [EDITIONS["2021"].card(k).name for k in keys_of(game, seat)]
        assert all(name in text(html) for name in names)  # each card says what it is
    seat_obj = game.seats.get(number=to_act)
    legal = selectors.decision(game, seat_obj)
    assert legal is not None
    shown = [json.loads(html_lib.unescape(a)) for a in ACT.findall(pages[to_act].decode())]
    assert shown == legal["legal_actions"]
    assert ACT.findall(pages[1 - to_act].decode()) == []
    assert "Your turn." in text(pages[to_act])
    assert "Your turn." not in text(pages[1 - to_act])
    assert "<title>Your turn · Game" in pages[to_act].decode()
    assert "<title>Game" in pages[1 - to_act].decode()


def test_spectators_and_signed_out_visitors_see_the_public_table_only(
    client: Client, alice: User, bob: User, carol: User
) -> None:
    game = started_pair(alice, bob)
    anonymous = client.get(f"/games/{game.pk}/")
    client.force_login(carol)
    spectator = client.get(f"/games/{game.pk}/")

    for response in (anonymous, spectator):
        assert response.status_code == 200
        assert "Your hand" not in text(response.content)
        assert HAND.search(response.content.decode()) is None
        assert ACT.findall(response.content.decode()) == []
        page = text(response.content)
        assert "alice" in page
        assert "bob" in page
        assert "6 cards in hand" in page  # other hands are counts
        assert str(game.seed) not in response.content.decode()
    assert "Sign in" in text(anonymous.content)


def test_bot_seats_carry_a_badge_and_their_names_lose_the_bot_prefix(
    client: Client, alice: User
) -> None:
    rules = RuleSet.preset("2021", seats=2, ending="quick")
    game = services.game_create(by=alice, rules=rules, bots=[BotChoice(seat=1, strategy="greedy")])
    client.force_login(alice)

    response = client.get(f"/games/{game.pk}/")

    game.refresh_from_db()
    bot = game.seats.get(number=1).user
    assert bot is not None
    assert bot.username.startswith("bot.")
    assert game.status == Game.Status.ACTIVE  # the bot filled the table: it started
    headings = re.findall(r'<h2 class="seat-name"[^>]*>(.*?)</h2>', response.content.decode(), re.S)
    name = bot.username.removeprefix("bot.")
    found = [re.split(r" (to act|thinking)", text(h))[0] for h in headings]
    assert found == [f"{name} bot", "alice you"]  # the others around, you at the bottom
    assert bot.username not in response.content.decode()


def test_the_game_page_is_light_and_its_queries_are_bounded(
    client: Client, alice: User, bob: User, django_assert_max_num_queries: Any
) -> None:
    game = play(started_pair(alice, bob), {0: alice, 1: bob}, moves=20)
    client.force_login(alice)

    with django_assert_max_num_queries(12):
        response = client.get(f"/games/{game.pk}/")
    with django_assert_max_num_queries(12):
        board = client.get(f"/games/{game.pk}/board/")

    assert response.status_code == board.status_code == 200
    assert 'id="board"' in board.content.decode()
    assert "<html" not in board.content.decode()
    assert transfer_size(client, f"/games/{game.pk}/") < BUDGET
    client.logout()
    assert transfer_size(client, f"/games/{game.pk}/") < BUDGET


def test_the_live_games_list_links_each_game_to_its_page(
    client: Client, alice: User, bob: User
) -> None:
    game = started_pair(alice, bob)

    response = client.get("/games/")

    assert f'href="/games/{game.pk}/"' in response.content.decode()


def test_a_game_that_is_not_digital_or_does_not_exist_is_404_with_a_page_that_says_so(
    client: Client, settings: Any
) -> None:
    settings.DEBUG = True  # even while debugging, never Django's technical page
    for path in (
        "/games/999999/",
        "/games/999999/board/",
        "/games/999999/replay/",
    ):
        response = client.get(path)
        assert response.status_code == 404
        assert "There is no game 999999." in text(response.content)
        assert "Django" not in text(response.content)
    assert client.get("/games/99999999999999999999999/").status_code == 404


# --- acting --------------------------------------------------------------------------------


def _first_legal(game: Game) -> tuple[int, dict[str, Any]]:
    state = store.load_state(game)
    return state.to_act, action_to_json(legal_actions(state)[0], state.rules.edition)


def test_a_control_plays_its_action_once_and_comes_back_to_the_page(
    client: Client, alice: User, bob: User
) -> None:
    game = started_pair(alice, bob)
    seat, action = _first_legal(game)
    client.force_login({0: alice, 1: bob}[seat])
    key = uuid.uuid4().hex
    data = {"action": json.dumps(action), "version": game.version, "key": key}
    first = client.post(f"/games/{game.pk}/act/", data)
    again = client.post(f"/games/{game.pk}/act/", data)  # a double tap: the same form

    assert first.status_code == again.status_code == 302
    assert first["Location"] == f"/games/{game.pk}/"
    before = game.version
    game.refresh_from_db()
    assert game.version == before + 1
    assert Event.objects.filter(game=game, idempotency_key=key).count() == 1
    assert Event.objects.get(game=game, idempotency_key=key).origin == "web"


def test_with_htmx_the_act_endpoint_answers_the_board(
    client: Client, alice: User, bob: User
) -> None:
    game = started_pair(alice, bob)
    seat, action = _first_legal(game)
    client.force_login({0: alice, 1: bob}[seat])
    response = client.post(
        f"/games/{game.pk}/act/",
        {"action": json.dumps(action), "version": game.version, "key": "k1"},
        headers={"HX-Request": "true"},
    )

    assert response.status_code == 200
    assert response.content.decode().lstrip().startswith('<section id="board"') or (
        'id="board"' in response.content.decode()
    )
    assert f'data-version="{game.version + 1}"' in response.content.decode()


def test_a_stale_version_is_refused_and_shows_the_game_as_it_now_stands(
    client: Client, alice: User, bob: User
) -> None:
    game = started_pair(alice, bob)
    seat, action = _first_legal(game)
    old = game.version
    game = play(game, {0: alice, 1: bob}, moves=1)  # another tab acted first
    client.force_login({0: alice, 1: bob}[seat])
    response = client.post(
        f"/games/{game.pk}/act/",
        {"action": json.dumps(action), "version": old, "key": uuid.uuid4().hex},
    )

    assert response.status_code == 409
    assert "nothing was played" in text(response.content)
    assert f'data-version="{game.version}"' in response.content.decode()
    version = game.version
    game.refresh_from_db()
    assert game.version == version


def test_an_illegal_or_malformed_action_is_refused_with_its_reason(
    client: Client, alice: User, bob: User
) -> None:
    game = started_pair(alice, bob)
    seat, _ = _first_legal(game)
    client.force_login({0: alice, 1: bob}[seat])
    illegal = client.post(
        f"/games/{game.pk}/act/",
        {"action": json.dumps({"type": "end_turn"}), "version": game.version, "key": "a"},
    )
    unknown = client.post(
        f"/games/{game.pk}/act/",
        {"action": json.dumps({"type": "fly"}), "version": game.version, "key": "b"},
    )
    garbage = client.post(
        f"/games/{game.pk}/act/", {"action": "{not json", "version": game.version}
    )
    no_version = client.post(f"/games/{game.pk}/act/", {"action": '{"type": "pass"}'})

    assert illegal.status_code == 422
    assert unknown.status_code == 422  # malformed_action, as the API says
    assert garbage.status_code == 400
    assert "This is not an action." in text(garbage.content)
    assert no_version.status_code == 400
    assert "This field is required." in text(no_version.content)
    before = game.version
    game.refresh_from_db()
    assert game.version == before


def test_only_the_seat_to_act_and_only_seated_players_may_act(
    client: Client, alice: User, bob: User, carol: User
) -> None:
    game = started_pair(alice, bob)
    seat, action = _first_legal(game)
    data = {"action": json.dumps(action), "version": game.version, "key": "x"}
    anonymous = client.post(f"/games/{game.pk}/act/", data)
    client.force_login(carol)
    stranger = client.post(f"/games/{game.pk}/act/", data)
    client.force_login({0: bob, 1: alice}[seat])
    other_seat = client.post(f"/games/{game.pk}/act/", data)
    looked = client.get(f"/games/{game.pk}/act/")

    assert anonymous.status_code == 302
    assert anonymous["Location"].startswith("/sign-in/")
    assert stranger.status_code == 403
    assert "You have no seat at this table." in text(stranger.content)
    assert other_seat.status_code == 409
    assert looked.status_code == 405
    before = game.version
    game.refresh_from_db()
    assert game.version == before


def test_a_player_resigns_after_confirming(client: Client, alice: User, bob: User) -> None:
    game = started_pair(alice, bob)
    client.force_login(alice)

    page = client.get(f"/games/{game.pk}/")
    response = client.post(f"/games/{game.pk}/resign/")

    assert "Yes, resign" in text(page.content)
    assert response.status_code == 302
    game.refresh_from_db()
    assert game.seats.get(number=0).resigned_at is not None
    assert "Yes, resign" not in text(client.get(f"/games/{game.pk}/").content)


def test_the_creator_starts_a_table_others_join(
    client: Client, alice: User, bob: User, carol: User
) -> None:
    game = services.game_create(by=alice, rules=RuleSet.preset("2021", seats=2))
    client.force_login(bob)
    lobby = client.get(f"/games/{game.pk}/")
    joined = client.post(f"/games/{game.pk}/join/")
    client.force_login(carol)
    full = client.post(f"/games/{game.pk}/join/", follow=True)
    refused = client.post(f"/games/{game.pk}/start/", follow=True)
    client.force_login(alice)
    started = client.post(f"/games/{game.pk}/start/")

    assert "Take a seat" in text(lobby.content)
    assert f"/games/{game.pk}/" in lobby.content.decode()  # the invite link to share
    assert joined.status_code == 302
    assert full.status_code == 200
    assert "Start the game" not in text(full.content)
    assert refused.redirect_chain
    assert refused.status_code == 200
    assert started.status_code == 302
    game.refresh_from_db()
    assert game.status == Game.Status.ACTIVE
    assert [s.user for s in game.seats.order_by("number")] == [alice, bob]


# --- the replay viewer ---------------------------------------------------------------------


def test_an_ended_game_links_its_replay_which_shows_any_step_as_any_seat_saw_it(
    client: Client, alice: User, bob: User
) -> None:
    game = play(started_pair(alice, bob), {0: alice, 1: bob})
    page = client.get(f"/games/{game.pk}/")
    step = game.version // 2

    replays = {
        seat: client.get(f"/games/{game.pk}/replay/", {"step": step, "seat": seat})
        for seat in (0, 1)
    }
    spectator = client.get(f"/games/{game.pk}/replay/", {"step": step})
    board = client.get(f"/games/{game.pk}/replay/board/", {"step": step, "seat": 1})
    start = client.get(f"/games/{game.pk}/replay/")

    assert f'href="/games/{game.pk}/replay/"' in page.content.decode()
    for seat, response in replays.items():
        assert response.status_code == 200
        edition = EDITIONS["2021"]
        view = selectors.replay_view(game, seat, step)
        assert hand_keys(response.content) == view["hand"]
        assert all(edition.card(k).name in text(response.content) for k in view["hand"])
        assert f'value="{step}"' in response.content.decode()
    assert HAND.search(spectator.content.decode()) is None
    assert "this view" in text(replays[0].content)  # whose view, not "you"
    assert "this view" not in text(spectator.content)
    assert board.status_code == 200
    assert "<html" not in board.content.decode()
    assert hand_keys(board.content) == hand_keys(replays[1].content)
    assert f"Step {step} of {game.version}" in text(board.content)
    assert "Step 0 of" in text(start.content)
    assert "Round 1 is dealt" in text(start.content)  # the events of step 0: the deal


def test_bad_replay_steps_and_seats_are_refused_beside_the_field(
    client: Client, alice: User, bob: User
) -> None:
    game = play(started_pair(alice, bob), {0: alice, 1: bob})

    past = client.get(f"/games/{game.pk}/replay/", {"step": game.version + 5})
    word = client.get(f"/games/{game.pk}/replay/", {"step": "soon"})
    seat = client.get(f"/games/{game.pk}/replay/", {"step": 1, "seat": 7})
    partial = client.get(f"/games/{game.pk}/replay/board/", {"step": -1})

    assert past.status_code == 400
    assert f"The game has {game.version} steps" in text(past.content)
    assert 'id="id_step_error"' in past.content.decode()
    assert word.status_code == 400
    assert "Enter a whole number." in text(word.content)
    assert seat.status_code == 400
    assert "Select a valid choice. 7 is not one of the available choices." in text(seat.content)
    assert partial.status_code == 400


def test_the_replay_of_a_game_still_being_played_says_when_it_will_be_ready(
    client: Client, alice: User, bob: User
) -> None:
    game = play(started_pair(alice, bob), {0: alice, 1: bob}, moves=3)

    page = client.get(f"/games/{game.pk}/replay/")
    board = client.get(f"/games/{game.pk}/replay/board/", {"step": 1})

    for response in (page, board):
        assert response.status_code == 200
        words = text(response.content)
        assert "This game is being played (round 1, 3 moves so far)." in words
        assert "Its replay will be ready as soon as it ends" in words
        assert str(game.seed) not in response.content.decode()
    assert f'href="/games/{game.pk}/"' in page.content.decode()  # watch it live
    assert "Watch the replay" not in text(client.get(f"/games/{game.pk}/").content)


def test_an_aborted_game_says_so_instead_of_whose_turn_it_was(client: Client) -> None:
    staff = User.objects.create_user(username="staff-aborter", is_staff=True)
    alice = User.objects.create_user(username="alice-aborted")
    game = services.game_create(by=alice, rules=RuleSet.preset("2021", seats=2), auto_start=True)
    services.game_join(game=game, user=User.objects.create_user(username="bob-aborted"))
    services.game_abort(game=game, by=staff, reason="test")

    page = text(client.get(f"/games/{game.pk}/").content)

    assert page.count("The game was aborted.") == 1
    assert "'s turn." not in page
