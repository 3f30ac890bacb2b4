"""Forking a position (docs/games.md "Forking a position"): ``services.game_fork``,
``POST /api/v1/games/{id}/fork/``, the fork's stored truth, verify_games and hidden cards."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import pytest
from rest_framework.test import APIClient

from accounts.models import User
from cya_site.errors import DomainError
from games import selectors, services, store
from games.consistency import finished_games, games_verify
from games.engine import RuleSet, State, action_to_json, fork, legal_actions, observe
from games.models import Event, Game, GameSnapshot, Playout
from games.seating import BotChoice
from tests.games.conftest import game_url
from tests.games.test_hidden_information import card_lists, hidden_hands, walk

QUICK = RuleSet.preset("2021", seats=3, ending="quick")
PARENT_SEED = 11
FORK_SEED = 6_917_529_027_641_081_857  # 19 digits: no response shows it by chance
STEP = 20


def _random(seed: int) -> Callable[[State], int]:
    rng = random.Random(seed)
    return lambda state: rng.choice(legal_actions(state))


def state_at(game: Game, step: int) -> State:
    """The game's state after ``step`` actions, from its stored start and log."""
    state = store.initial_state(game)
    for code in store.codes(game, 0, step):
        state = store.replay_step(state, code)[0]
    return state


def seat_all(game: Game, players: list[User]) -> None:
    """Every free seat of an open table, taken by the players in order."""
    taken = set(game.seats.exclude(user=None).values_list("user_id", flat=True))
    for user in players:
        if user.pk not in taken:
            services.game_join(game=game, user=user)


@pytest.fixture
def players(alice: User, bob: User, carol: User) -> list[User]:
    return [alice, bob, carol]


@pytest.fixture
def ended(players: list[User], staff: User) -> Game:
    """A quick three-seat game (alice, bob, carol) played to its end in process."""
    game = services.game_create(by=players[0], rules=QUICK)
    seat_all(game, players)
    game = services.game_start(game=game, by=staff, seed=PARENT_SEED)
    game = services.actions_record(game=game, choose=_random(1), origin=Event.Origin.BUILTIN)
    assert game.status == Game.Status.FINISHED
    assert game.version > STEP
    return game


def forked_and_started(
    parent: Game, players: list[User], staff: User, *, redeal: bool, step: int = STEP
) -> Game:
    forked = services.game_fork(game=parent, step=step, redeal=redeal, by=players[1])
    seat_all(forked, players)
    return services.game_start(game=forked, by=staff, seed=FORK_SEED)


# --- the service ------------------------------------------------------------------------


def test_a_fork_plays_on_from_the_parents_position_at_version_zero(
    ended: Game, players: list[User], staff: User
) -> None:
    forked = forked_and_started(ended, players, staff, redeal=False)
    parent_state = state_at(ended, STEP)
    state = store.load_state(forked)

    assert (forked.forked_from_id, forked.fork_step, forked.fork_redeal) == (ended.pk, STEP, False)
    assert forked.version == 0
    assert forked.rules == ended.rules
    assert state == fork(parent_state, FORK_SEED)
    assert state.hands == parent_state.hands  # the same hidden cards
    assert forked.to_act == parent_state.to_act
    deal = Event.objects.get(game=forked, seq=0)
    assert deal.origin == "deal"
    assert deal.public_events == list(parent_state.history)
    for seat in (0, 1, 2, None):
        view = selectors.replay_view(ended, seat, STEP)
        mine = selectors.observation(forked, seat)
        assert {**view, "version": 0, "resigned": []} == mine


def test_the_forking_player_takes_the_seat_they_had_and_the_others_join(
    ended: Game, players: list[User], carol: User
) -> None:
    forked = services.game_fork(game=ended, step=3, redeal=True, by=carol)
    seats = dict(forked.seats.values_list("number", "user_id"))

    assert forked.status == Game.Status.OPEN
    assert forked.seed is None  # chosen at the start, secret until the end
    assert seats == {0: None, 1: None, 2: carol.pk}
    assert forked.created_by == carol


def test_a_parent_played_out_in_process_is_one_playout_of_its_origin_dated_at_its_end(
    ended: Game,
) -> None:
    [playout] = Playout.objects.filter(game=ended)

    assert (playout.first_seq, len(playout.codes)) == (1, ended.version)
    assert playout.origin == Event.Origin.BUILTIN
    assert ended.finished_at is not None
    assert playout.created_at == ended.finished_at


def test_the_player_of_seat_0_takes_it_again_and_one_who_had_no_seat_takes_seat_0(
    ended: Game, alice: User, staff: User
) -> None:
    again = services.game_fork(game=ended, step=3, redeal=False, by=alice)
    newcomer = services.game_fork(game=ended, step=3, redeal=False, by=staff)

    assert again.seats.get(user=alice).number == 0
    assert newcomer.seats.get(user=staff).number == 0


def test_a_player_whose_seat_a_bot_takes_sits_at_the_lowest_seat_no_bot_takes(
    ended: Game, alice: User
) -> None:
    bots = [BotChoice(seat=0, strategy="greedy"), BotChoice(seat=1, strategy="greedy")]

    forked = services.game_fork(game=ended, step=3, redeal=False, by=alice, bots=bots)

    assert forked.seats.get(user=alice).number == 2
    assert forked.bot_seats == [0, 1]


def test_a_player_who_wants_a_seat_where_bots_take_every_seat_is_refused_seat_0(
    ended: Game, alice: User
) -> None:
    bots = [BotChoice(seat=number, strategy="greedy") for number in range(3)]

    with pytest.raises(DomainError) as refused:
        services.game_fork(game=ended, step=3, redeal=False, by=alice, bots=bots)

    assert (refused.value.code, refused.value.details) == ("seat_taken", {"seat": 0})


def test_refuses_a_seat_the_table_does_not_have_even_to_a_player_taking_none(
    ended: Game, alice: User
) -> None:
    with pytest.raises(DomainError) as refused:
        services.game_fork(game=ended, step=3, redeal=False, by=alice, take_seat=False, seat=3)

    assert (refused.value.code, refused.value.message, refused.value.details) == (
        "no_such_seat",
        "This table has seats 0 to 2.",
        {"seat": 3},
    )
    assert not Game.objects.filter(forked_from=ended).exists()


def test_a_player_chooses_a_seat_or_none(ended: Game, staff: User, alice: User) -> None:
    seated = services.game_fork(game=ended, step=0, redeal=False, by=staff, seat=2)
    watching = services.game_fork(game=ended, step=0, redeal=False, by=alice, take_seat=False)

    assert seated.seats.get(number=2).user == staff
    assert not watching.seats.exclude(user=None).exists()


def test_a_redealt_fork_deals_what_no_seat_saw_from_its_own_seed(
    ended: Game, players: list[User], staff: User
) -> None:
    forked = forked_and_started(ended, players, staff, redeal=True)
    parent_state = state_at(ended, STEP)
    state = store.load_state(forked)

    assert state == fork(parent_state, FORK_SEED, redeal=True)
    assert state.hands != parent_state.hands
    assert selectors.observation(forked, None) == {
        **selectors.replay_view(ended, None, STEP),
        "version": 0,
        "resigned": [],
    }


def test_a_fork_is_rebuilt_from_its_truth_without_a_snapshot(
    ended: Game, players: list[User], staff: User
) -> None:
    forked = forked_and_started(ended, players, staff, redeal=True)
    forked = services.actions_record(game=forked, choose=_random(2), origin=Event.Origin.BUILTIN)
    final = store.load_state(forked)
    GameSnapshot.objects.filter(game=forked).delete()
    store.forget(forked.pk)

    assert store.load_state(Game.objects.get(pk=forked.pk)) == final
    entries = store.entries(forked)
    assert [e.seq for e in entries] == list(range(forked.version + 1))


def test_a_fork_of_a_fork_starts_from_its_own_parent(
    ended: Game, players: list[User], staff: User
) -> None:
    first = forked_and_started(ended, players, staff, redeal=True)
    first = services.actions_record(game=first, choose=_random(3), origin=Event.Origin.BUILTIN)
    second = services.game_fork(game=first, step=4, redeal=False, by=players[0])
    seat_all(second, players)
    second = services.game_start(game=second, by=staff, seed=5)

    assert store.load_state(second) == fork(state_at(first, 4), 5)


@pytest.mark.parametrize(
    ("step", "code"),
    [(-1, "no_such_step"), (10_000, "no_such_step"), (None, "step_game_over")],
)
def test_refuses_a_step_the_game_never_reached_or_where_it_was_over(
    ended: Game, alice: User, step: int | None, code: str
) -> None:
    with pytest.raises(DomainError) as info:
        services.game_fork(
            game=ended, step=ended.version if step is None else step, redeal=False, by=alice
        )
    assert info.value.code == code
    assert not Game.objects.filter(forked_from=ended).exists()


def test_refuses_a_game_that_has_not_ended(started: Game, alice: User) -> None:
    with pytest.raises(DomainError) as info:
        services.game_fork(game=started, step=0, redeal=False, by=alice)
    assert (info.value.code, info.value.message, info.value.http_status) == (
        "replay_not_available",
        "A game can be forked once it has ended: its replay is public then.",
        409,
    )
    assert selectors.fork_steps(started) == range(0)


def test_a_step_past_the_last_is_refused_naming_the_games_steps(ended: Game, alice: User) -> None:
    with pytest.raises(DomainError) as info:
        services.game_fork(game=ended, step=ended.version + 1, redeal=False, by=alice)

    assert (info.value.code, info.value.message, info.value.details) == (
        "no_such_step",
        f"The game has {ended.version} steps.",
        {"steps": ended.version},
    )


def test_a_fork_keeps_the_clock_it_is_given(ended: Game, alice: User) -> None:
    forked = services.game_fork(
        game=ended, step=3, redeal=False, by=alice, decision_seconds=30, time_bank_seconds=90
    )

    assert (forked.decision_seconds, forked.time_bank_seconds) == (30, 90)


def test_every_step_of_an_aborted_game_may_be_forked(started: Game, staff: User) -> None:
    game = services.game_abort(game=started, by=staff, reason="test")
    forked = services.game_fork(game=game, step=game.version, redeal=True, by=staff)

    assert selectors.fork_steps(game) == range(game.version + 1)
    assert forked.fork_step == game.version


def test_fork_steps_are_every_step_before_a_finished_games_last(ended: Game) -> None:
    assert selectors.fork_steps(ended) == range(ended.version)


# --- the API ------------------------------------------------------------------------------


def test_post_fork_answers_201_with_the_new_table(
    ended: Game, api_as: Callable[[User], APIClient], bob: User
) -> None:
    response = api_as(bob).post(
        game_url(ended, "fork"), {"step": 5, "redeal": True, "decision_seconds": 30}, format="json"
    )

    assert response.status_code == 201, response.json()
    body = response.json()
    forked = Game.objects.get(pk=body["id"])
    assert body["fork"] == {"game": ended.pk, "step": 5, "redeal": True}
    assert body["status"] == "open"
    assert body["seed"] is None
    assert body["rules"] == ended.rules
    assert body["decision_seconds"] == 30
    assert [s["player"] and s["player"]["username"] for s in body["seats"]] == [None, "bob", None]
    assert (forked.forked_from_id, forked.fork_step, forked.fork_redeal) == (ended.pk, 5, True)
    parent = api_as(bob).get(game_url(ended)).json()
    assert parent["fork"] is None


@pytest.mark.parametrize(
    ("body", "status", "code"),
    [
        ({"step": 10_000}, 422, "no_such_step"),
        ({}, 400, "invalid"),
        ({"step": -1}, 400, "invalid"),
        ({"step": 1, "colour": "red"}, 400, "invalid"),
        ({"step": 1, "bots": [{"seat": 1, "strategy": "deep-blue"}]}, 422, "unknown_strategy"),
        ({"step": 1, "seat": 3}, 422, "no_such_seat"),
        ({"step": 1, "redeal": "maybe"}, 400, "invalid"),
    ],
)
def test_post_fork_refuses_bad_input_with_a_stable_code(
    ended: Game,
    api_as: Callable[[User], APIClient],
    alice: User,
    body: dict[str, Any],
    status: int,
    code: str,
) -> None:
    response = api_as(alice).post(game_url(ended, "fork"), body, format="json")

    assert response.status_code == status, response.json()
    assert response.json()["code"] == code
    assert not Game.objects.filter(forked_from=ended).exists()


def test_post_fork_refuses_the_last_step_and_a_game_in_play(
    ended: Game, started: Game, api_as: Callable[[User], APIClient], alice: User
) -> None:
    client = api_as(alice)
    over = client.post(game_url(ended, "fork"), {"step": ended.version}, format="json")
    playing = client.post(game_url(started, "fork"), {"step": 0}, format="json")

    assert (over.status_code, over.json()["code"]) == (409, "step_game_over")
    assert over.json()["message"] == (
        f"After step {ended.version} the game was over: fork an earlier step."
    )
    assert over.json()["details"] == {"last_step": ended.version - 1}
    assert (playing.status_code, playing.json()["code"]) == (409, "replay_not_available")


def test_post_fork_needs_a_signed_in_user(ended: Game, api: APIClient) -> None:
    response = api.post(game_url(ended, "fork"), {"step": 1}, format="json")

    assert response.status_code == 401
    assert response.json()["code"] == "not_authenticated"


def test_a_forks_replay_names_where_it_started(
    ended: Game, players: list[User], staff: User, api: APIClient
) -> None:
    forked = forked_and_started(ended, players, staff, redeal=True)
    forked = services.actions_record(game=forked, choose=_random(4), origin=Event.Origin.BUILTIN)
    replay = api.get(game_url(forked, "replay")).json()
    view = api.get(game_url(forked, "replay/view"), {"step": 0, "seat": 1}).json()

    assert replay["fork"] == {"game": ended.pk, "step": STEP, "redeal": True}
    assert replay["seed"] == FORK_SEED
    assert replay["log"][0]["events"] == list(state_at(ended, STEP).history)
    assert view == observe(store.initial_state(forked), 1)


# --- verify_games -------------------------------------------------------------------------


def test_verify_games_checks_forks_and_finds_a_changed_origin(
    ended: Game, players: list[User], staff: User
) -> None:
    forked = forked_and_started(ended, players, staff, redeal=True)
    forked = services.actions_record(game=forked, choose=_random(5), origin=Event.Origin.BUILTIN)
    ids = [ended.pk, forked.pk]

    assert list(games_verify(finished_games(ids=ids))) == [[], []]
    Game.objects.filter(pk=forked.pk).update(fork_redeal=False)
    (parent, wrong) = games_verify(finished_games(ids=ids))
    assert parent == []
    assert wrong  # another start: the log no longer replays to what is stored
    assert {m.game_id for m in wrong} == {forked.pk}


def test_verify_games_reports_a_fork_whose_parent_log_breaks(
    ended: Game, players: list[User], staff: User
) -> None:
    forked = forked_and_started(ended, players, staff, redeal=False)
    forked = services.actions_record(game=forked, choose=_random(6), origin=Event.Origin.BUILTIN)
    Game.objects.filter(pk=forked.pk).update(fork_step=ended.version + 5)

    (found,) = games_verify(finished_games(ids=[forked.pk]))
    assert [m.field for m in found] == ["fork"]
    assert found[0].stored == f"game {ended.pk} at step {ended.version + 5}"


# --- hidden information -------------------------------------------------------------------


def test_no_response_during_a_redealt_forks_play_shows_its_seed_or_another_hand(
    ended: Game, players: list[User], staff: User, api_as: Callable[[User], APIClient]
) -> None:
    """The parent's replay is public, but a re-deal comes from the fork's own seed:
    nothing a seat, a spectator or a stranger reads during play reveals it."""
    forked = forked_and_started(ended, players, staff, redeal=True)
    clients: dict[int | None, APIClient] = {n: api_as(u) for n, u in enumerate(players)}
    clients[None] = api_as(staff)  # signed in, no seat: a spectator
    rng = random.Random(7)
    state = store.load_state(forked)
    checked = 0
    while not state.over:
        for seat, client in clients.items():
            for what in ("", "observation", "decision", "events"):
                if what == "decision" and seat is None:
                    continue
                response = client.get(game_url(forked, what))
                assert response.status_code == 200, response.json()
                text = response.content.decode()
                assert str(FORK_SEED) not in text
                secret = hidden_hands(state, seat)
                for cards in card_lists(response.json()):
                    assert sorted(cards) not in secret, (seat, what, cards)
                for node in walk(response.json()):
                    if isinstance(node, dict) and "seed" in node:
                        assert node["seed"] is None
            refused = client.get(game_url(forked, "replay"))
            assert refused.json()["code"] == "replay_not_available"
            checked += 1
        legal = legal_actions(state)
        code = legal[int(rng.random() * len(legal))]
        response = clients[state.to_act].post(
            game_url(forked, "actions"),
            {"action": action_to_json(code, "2021"), "version": state.version},
            format="json",
        )
        assert response.status_code == 201, response.json()
        assert str(FORK_SEED) not in response.content.decode()
        forked.refresh_from_db()
        state = store.load_state(forked)
    assert checked >= 20
    assert clients[None].get(game_url(forked)).json()["seed"] == FORK_SEED  # once it ended
