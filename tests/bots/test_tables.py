"""Bots at people's tables: ``POST /api/v1/games/`` with ``bots``, the turns they play,
and the turns a lost task leaves, found by the sweep.

The turns are played here in process (``runner.play_turn``, what the ``bots.play_turn``
task runs) so a whole game takes seconds; tests/bots/test_tables_worker.py plays one
through the real worker.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from accounts.models import User
from bots import recovery, runner, timecontrol
from bots.models import BotVersion, SeatControl, Strike
from bots.validation import BUILTIN_OPPONENTS, SEATABLE_BUILTINS
from games import services as game_services
from games import store
from games.engine import RuleSet, action_to_json, default_action
from games.models import Event, Game, Seat
from games.seating import BotChoice
from tests.bots.bot_servers import (
    BotServer,
    answer_garbage,
    api_client_version,
    good_bot,
    webhook_version,
)
from tests.bots.checks import play_to_the_end
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db
THREE_BUILTINS = [
    {"seat": 1, "strategy": "greedy"},
    {"seat": 2, "strategy": "shark"},
    {"seat": 3, "strategy": "random"},
]


@pytest.fixture
def alice() -> User:
    return UserFactory.create(username="alice")


@pytest.fixture
def client(alice: User, api_as: Callable[[User], APIClient]) -> APIClient:
    return api_as(alice)


def create(client: APIClient, **body: Any) -> Any:
    return client.post("/api/v1/games/", body, format="json")


def join_as_bob(api_as: Callable[[User], APIClient], game_id: int) -> Any:
    return api_as(UserFactory.create(username="bob")).post(f"/api/v1/games/{game_id}/join/", {})


# --- seating ----------------------------------------------------------------------------------


def test_a_person_opens_a_table_against_three_builtins_and_it_starts_at_once(
    client: APIClient, alice: User
) -> None:
    response = create(client, seats=4, bots=THREE_BUILTINS)

    assert response.status_code == 201, response.json()
    body = response.json()
    assert body["status"] == "active"
    assert body["bot_seats"] == [1, 2, 3]
    assert body["auto_start"] is True
    players = [seat["player"]["username"] for seat in body["seats"]]
    assert players == ["alice", "bot.builtin-greedy", "bot.builtin-shark", "bot.builtin-random"]
    controls = SeatControl.objects.filter(seat__game_id=body["id"]).order_by("seat__number")
    assert [c.version.strategy for c in controls] == ["greedy", "shark", "random"]


def test_one_strategy_may_take_several_seats_each_as_its_own_account(client: APIClient) -> None:
    bots = [{"seat": n, "strategy": "greedy"} for n in (1, 2, 3)]

    body = create(client, seats=4, bots=bots).json()

    players = [seat["player"]["username"] for seat in body["seats"][1:]]
    assert players == ["bot.builtin-greedy", "bot.builtin-greedy.2", "bot.builtin-greedy.3"]
    assert all(User.objects.get(username=name).is_bot for name in players)


def test_a_table_with_a_free_seat_for_a_person_starts_when_they_join(
    client: APIClient, api_as: Callable[[User], APIClient]
) -> None:
    body = create(client, seats=3, bots=[{"seat": 2, "strategy": "shark"}]).json()
    assert body["status"] == "open"

    joined = join_as_bob(api_as, body["id"])

    assert joined.status_code == 200
    assert joined.json()["status"] == "active"
    assert Event.objects.filter(game_id=body["id"], seq=0).exists()  # dealt


def test_auto_start_makes_a_people_only_table_start_when_full(
    client: APIClient, api_as: Callable[[User], APIClient]
) -> None:
    body = create(client, seats=2, auto_start=True).json()
    assert (body["status"], body["auto_start"]) == ("open", True)

    joined = join_as_bob(api_as, body["id"])

    assert joined.json()["status"] == "active"


def test_a_people_only_table_still_waits_for_its_creator_by_default(
    client: APIClient, api_as: Callable[[User], APIClient]
) -> None:
    body = create(client, seats=2).json()

    joined = join_as_bob(api_as, body["id"])

    assert joined.json()["status"] == "open"


def test_a_validated_bot_version_can_be_seated_by_its_id(client: APIClient) -> None:
    version = webhook_version(UserFactory.create(), "hooky", "http://127.0.0.1:9/")

    body = create(client, seats=2, bots=[{"seat": 1, "version": version.pk}]).json()

    assert body["seats"][1]["player"]["username"] == "bot.hooky"
    assert SeatControl.objects.get(seat__game_id=body["id"], seat__number=1).version == version


@pytest.mark.parametrize(
    ("bots", "status", "code"),
    [
        ([{"seat": 1, "strategy": "deep-blue"}], 422, "unknown_strategy"),
        ([{"seat": 1, "version": 987654}], 422, "no_such_version"),
        ([{"seat": 0, "strategy": "greedy"}], 409, "seat_taken"),
        ([{"seat": 1, "strategy": "greedy"}, {"seat": 1, "strategy": "shark"}], 409, "seat_taken"),
        ([{"seat": 6, "strategy": "greedy"}], 422, "no_such_seat"),
        ([{"seat": 1}], 400, "invalid"),
        ([{"seat": 1, "strategy": "greedy", "version": 1}], 400, "invalid"),
        ([{"seat": 1, "strategy": "greedy", "colour": "red"}], 400, "invalid"),
        ([{"seat": n, "strategy": "greedy"} for n in range(4)], 422, "invalid"),
    ],
)
def test_bad_bot_choices_are_refused_and_nothing_is_created(
    client: APIClient, bots: list[dict[str, Any]], status: int, code: str
) -> None:
    response = create(client, seats=4, bots=bots)

    assert response.status_code == status, response.json()
    assert response.json()["code"] == code
    assert not Game.objects.exists()


@pytest.mark.parametrize("status", [BotVersion.Status.PENDING, BotVersion.Status.FAILED])
def test_a_version_not_validated_cannot_be_seated(client: APIClient, status: str) -> None:
    version = webhook_version(UserFactory.create(), "unready", "http://127.0.0.1:9/", status=status)

    response = create(client, seats=2, bots=[{"seat": 1, "version": version.pk}])

    assert response.json()["code"] == "no_such_version"


def test_an_api_client_bot_takes_one_seat_per_table(client: APIClient) -> None:
    version = api_client_version(UserFactory.create(), "clienty")
    bots = [{"seat": 1, "version": version.pk}, {"seat": 2, "version": version.pk}]

    response = create(client, seats=3, bots=bots)

    assert (response.status_code, response.json()["code"]) == (409, "bot_seated_twice")
    assert not Game.objects.exists()


# --- turns ------------------------------------------------------------------------------------


def test_builtins_play_their_turns_and_the_person_theirs_to_the_end(alice: User) -> None:
    game = game_services.game_create(
        by=alice,
        rules=RuleSet.preset("2021", seats=4, ending="quick"),
        bots=[BotChoice(1, "greedy"), BotChoice(2, "shark"), BotChoice(3, "random")],
    )

    game = play_to_the_end(game, alice)

    assert game.status == Game.Status.FINISHED
    origins = set(Event.objects.filter(game=game).values_list("origin", flat=True))
    assert origins == {"deal", "api", "builtin"}
    bot_seats = Event.objects.filter(game=game, origin="builtin").values_list("seat", flat=True)
    assert set(bot_seats) == {1, 2, 3}
    assert Seat.objects.filter(game=game, place__isnull=True).count() == 0


def test_a_turn_already_played_or_not_a_bots_is_left_alone(alice: User) -> None:
    game = game_services.game_create(
        by=alice, rules=RuleSet.preset("2021", seats=2), bots=[BotChoice(1, "greedy")]
    )
    if game.to_act == 0:  # the person first: not a bot's turn
        assert runner.play_turn(game.pk, game.version) == "not a bot's turn"
        state = store.load_state(game)
        game_services.action_submit(
            game_id=game.pk,
            user=alice,
            action=action_to_json(default_action(state), state.rules.edition),
            version=game.version,
        )
        game.refresh_from_db()
    while game.to_act == 1:
        version = game.version
        assert runner.play_turn(game.pk, version) == "played"
        assert runner.play_turn(game.pk, version) == "moved on"  # a second delivery
        game.refresh_from_db()


def test_a_webhook_bot_at_a_peoples_table_is_asked_and_struck_like_on_the_ladder(
    alice: User,
) -> None:
    with BotServer("garbage", answer_garbage) as server:
        version = webhook_version(UserFactory.create(), "garbled", server)
        game = game_services.game_create(
            by=alice,
            rules=RuleSet.preset("2021", seats=2, ending="quick"),
            bots=[BotChoice(1, version=version.pk)],
        )
        game = play_to_the_end(game, alice)

    control = SeatControl.objects.get(seat__game=game, seat__number=1)
    strikes = Strike.objects.filter(control=control)
    assert strikes.count() == timecontrol.MAX_STRIKES
    assert {s.reason for s in strikes} == {Strike.Reason.MALFORMED}
    assert control.autopilot_since is not None  # then the autopilot finished its game
    assert len(server.decisions()) == timecontrol.MAX_STRIKES


def test_a_good_webhook_bot_plays_a_whole_game_against_a_person(alice: User) -> None:
    with good_bot("kind") as server:
        version = webhook_version(UserFactory.create(), "kind", server)
        game = game_services.game_create(
            by=alice,
            rules=RuleSet.preset("2021", seats=2, ending="quick"),
            bots=[BotChoice(1, version=version.pk)],
        )
        game = play_to_the_end(game, alice)

    assert game.status == Game.Status.FINISHED
    assert server.signatures_all_valid()
    assert Event.objects.filter(game=game, origin="webhook").count() == len(server.decisions())
    assert not Strike.objects.exists()


# --- turns a lost task left ---------------------------------------------------------------


def test_the_sweep_finds_a_bot_turn_left_unplayed_and_only_that(alice: User) -> None:
    waiting = game_services.game_create(
        by=alice, rules=RuleSet.preset("2021", seats=2), bots=[BotChoice(1, "greedy")]
    )
    people = game_services.game_create(by=alice, rules=RuleSet.preset("2021", seats=2))
    assert people.status == Game.Status.OPEN
    later = timezone.now() + timedelta(hours=1)

    found = recovery.idle_turns(later)

    expected = [(waiting.pk, waiting.version)] if waiting.to_act == 1 else []
    assert found == expected
    assert recovery.idle_turns(timezone.now()) == []  # not idle yet


# --- forks ----------------------------------------------------------------------------------


def test_a_fork_seats_bots_of_your_choice_and_starts_by_itself(
    alice: User, client: APIClient
) -> None:
    original = game_services.game_create(
        by=alice,
        rules=RuleSet.preset("2021", seats=3, ending="quick"),
        bots=[BotChoice(1, "greedy"), BotChoice(2, "shark")],
    )
    play_to_the_end(original, alice)

    response = client.post(
        f"/api/v1/games/{original.pk}/fork/",
        {
            "step": 5,
            "redeal": True,
            "bots": [{"seat": 1, "strategy": "random"}, {"seat": 2, "strategy": "random"}],
        },
        format="json",
    )

    assert response.status_code == 201, response.json()
    body = response.json()
    assert (body["status"], body["bot_seats"], body["fork"]["step"]) == ("active", [1, 2], 5)
    players = [seat["player"]["username"] for seat in body["seats"]]
    assert players == ["alice", "bot.builtin-random", "bot.builtin-random.2"]
    assert play_to_the_end(Game.objects.get(pk=body["id"]), alice).status == Game.Status.FINISHED


def test_forking_with_a_bot_in_your_old_seat_seats_you_in_the_lowest_free_one(
    alice: User, client: APIClient
) -> None:
    original = game_services.game_create(
        by=alice,
        rules=RuleSet.preset("2021", seats=3, ending="quick"),
        bots=[BotChoice(1, "greedy"), BotChoice(2, "shark")],
    )
    play_to_the_end(original, alice)

    body = client.post(
        f"/api/v1/games/{original.pk}/fork/",
        {"step": 3, "bots": [{"seat": 0, "strategy": "greedy"}]},
        format="json",
    ).json()

    players = [seat["player"] and seat["player"]["username"] for seat in body["seats"]]
    assert players == ["bot.builtin-greedy", "alice", None]
    assert body["status"] == "open"  # seat 2 waits for a person


def test_the_strong_search_player_can_be_seated_and_plays_its_turn(
    client: APIClient, alice: User
) -> None:
    """Issue 17: ``ismcts`` is seatable, while validation keeps to the three cheap ones."""
    assert "ismcts" in SEATABLE_BUILTINS
    assert "ismcts" not in BUILTIN_OPPONENTS
    body = create(client, seats=2, bots=[{"seat": 1, "strategy": "ismcts"}]).json()
    assert body["seats"][1]["player"]["username"] == "bot.builtin-ismcts"
    game = Game.objects.get(pk=body["id"])
    for _ in range(50):
        game.refresh_from_db()
        if game.to_act == 1:
            before = game.version
            assert runner.play_turn(game.pk, game.version) == "played"
            game.refresh_from_db()
            assert game.version > before
            return
        state = store.load_state(game)
        game_services.action_submit(
            game_id=game.pk,
            user=alice,
            action=action_to_json(default_action(state), state.rules.edition),
            version=game.version,
        )
    raise AssertionError("the search player never got a turn")


# --- turns that were due and did not come (issue 25) ----------------------------------------


def test_a_bot_turn_that_did_not_come_is_found_seconds_after_it_was_due_and_once(
    alice: User, settings: Any
) -> None:
    settings.BOT_MOVE_DELAY_MS, settings.TURN_LATE_SECONDS = 800, 3
    game = game_services.game_create(
        by=alice, rules=RuleSet.preset("2021", seats=2), bots=[BotChoice(1, "greedy")]
    )
    if game.to_act != 1:  # alice first: she plays, and the bot is to act
        state = store.load_state(game)
        action = action_to_json(default_action(state), state.rules.edition)
        game_services.action_submit(
            game_id=game.pk, user=alice, action=action, version=state.version
        )
        game.refresh_from_db()
    moved = Event.objects.filter(game=game).order_by("-seq").values_list("created_at", flat=True)
    due = moved[0] + timedelta(milliseconds=800)

    assert recovery.late_turns(due + timedelta(seconds=2.9)) == []  # not late yet
    assert recovery.late_turns(due + timedelta(seconds=3.1)) == [(game.pk, game.version)]
    assert recovery.late_turns(due + timedelta(seconds=3.2)) == []  # sent just now
