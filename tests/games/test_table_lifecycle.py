"""A table's life: create, join, leave, start, resign, abort; and finding tables in the list."""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import pytest
import time_machine
from rest_framework.test import APIClient

from accounts.models import User
from cya_site.errors import DomainError
from games import notify, services
from games.engine import RuleSet, legal_actions, recorded
from games.models import Event, Game, Seat
from tests.games.conftest import engine_state, game_url, submit

Clients = Callable[[User], APIClient]


def seat_users(game: Game) -> list[str | None]:
    """Who sits where, by seat number."""
    return [
        seat.user.username if seat.user else None
        for seat in Seat.objects.filter(game=game).select_related("user").order_by("number")
    ]


# --- create ---------------------------------------------------------------------------


def test_the_creator_takes_seat_0_of_a_new_table(alice: User, api_as: Clients) -> None:
    response = api_as(alice).post(
        "/api/v1/games/", {"seats": 3, "options": {"ending": "quick"}}, format="json"
    )

    assert response.status_code == 201, response.json()
    body = response.json()
    assert body["status"] == "open"
    assert body["created_by"] == "alice"
    assert [seat["player"] and seat["player"]["username"] for seat in body["seats"]] == [
        "alice",
        None,
        None,
    ]
    assert body["seed"] is None
    game = Game.objects.get(pk=body["id"])
    assert (game.status, game.seat_count, game.seed, game.version) == ("open", 3, None, 0)
    assert RuleSet.from_json(game.rules) == RuleSet.preset("2021", seats=3, ending="quick")
    assert seat_users(game) == ["alice", None, None]


def test_the_creator_may_leave_every_seat_free(alice: User, api_as: Clients) -> None:
    response = api_as(alice).post("/api/v1/games/", {"seats": 2, "take_seat": False}, format="json")

    assert response.status_code == 201
    assert seat_users(Game.objects.get(pk=response.json()["id"])) == [None, None]


def test_a_new_table_defaults_to_four_seats_of_the_2021_rules(alice: User, api_as: Clients) -> None:
    response = api_as(alice).post("/api/v1/games/", {}, format="json")

    assert response.status_code == 201
    game = Game.objects.get(pk=response.json()["id"])
    assert RuleSet.from_json(game.rules) == RuleSet.preset("2021", seats=4)
    assert (game.decision_seconds, game.time_bank_seconds) == (None, None)


def test_a_table_can_be_timed(alice: User, api_as: Clients) -> None:
    response = api_as(alice).post(
        "/api/v1/games/",
        {"seats": 2, "decision_seconds": 5, "time_bank_seconds": 60},
        format="json",
    )

    assert response.status_code == 201
    game = Game.objects.get(pk=response.json()["id"])
    assert (game.decision_seconds, game.time_bank_seconds) == (5, 60)


# --- join and leave -------------------------------------------------------------------


@pytest.fixture
def three_seats(alice: User) -> Game:
    """An open three-seat table with alice at seat 0."""
    return services.game_create(by=alice, rules=RuleSet.preset("2021", seats=3))


def test_joining_takes_the_lowest_free_seat(
    three_seats: Game, bob: User, carol: User, api_as: Clients
) -> None:
    api_as(carol).post(game_url(three_seats, "join"), {"seat": 1}, format="json")

    response = api_as(bob).post(game_url(three_seats, "join"), {}, format="json")

    assert response.status_code == 200
    assert [s["player"] and s["player"]["username"] for s in response.json()["seats"]] == [
        "alice",
        "carol",
        "bob",
    ]
    assert seat_users(three_seats) == ["alice", "carol", "bob"]


def test_joining_a_named_seat_takes_that_seat(
    three_seats: Game, bob: User, api_as: Clients
) -> None:
    response = api_as(bob).post(game_url(three_seats, "join"), {"seat": 2}, format="json")

    assert response.status_code == 200
    assert seat_users(three_seats) == ["alice", None, "bob"]
    assert Seat.objects.get(game=three_seats, number=2).joined_at is not None


def test_refuses_a_seat_someone_holds(three_seats: Game, bob: User, api_as: Clients) -> None:
    response = api_as(bob).post(game_url(three_seats, "join"), {"seat": 0}, format="json")

    assert response.status_code == 409
    assert response.json()["code"] == "seat_taken"
    assert seat_users(three_seats) == ["alice", None, None]


def test_refuses_to_seat_anyone_at_a_full_table(
    open_table: Game, carol: User, api_as: Clients
) -> None:
    response = api_as(carol).post(game_url(open_table, "join"), {}, format="json")

    assert response.status_code == 409
    assert response.json()["code"] == "table_full"
    assert seat_users(open_table) == ["alice", "bob"]


def test_refuses_a_second_seat_to_the_same_player(
    three_seats: Game, bob: User, api_as: Clients
) -> None:
    client = api_as(bob)
    assert client.post(game_url(three_seats, "join"), {}, format="json").status_code == 200

    response = client.post(game_url(three_seats, "join"), {"seat": 2}, format="json")

    assert response.status_code == 409
    assert response.json()["code"] == "already_seated"
    assert seat_users(three_seats) == ["alice", "bob", None]


def test_each_refusal_to_join_says_why(three_seats: Game, alice: User, bob: User) -> None:
    services.game_join(game=three_seats, user=bob, seat=2)
    tries = [
        (alice, None, ("already_seated", "You already have a seat at this table.", 409)),
        (
            User.objects.create(username="erin"),
            3,
            ("no_such_seat", "This table has seats 0 to 2.", 422),
        ),
        (User.objects.create(username="fay"), 2, ("seat_taken", "That seat is taken.", 409)),
    ]
    for user, seat, why in tries:
        with pytest.raises(DomainError) as refused:
            services.game_join(game=three_seats, user=user, seat=seat)

        assert (refused.value.code, refused.value.message, refused.value.http_status) == why
    assert seat_users(three_seats) == ["alice", None, "bob"]


def test_leaving_frees_the_seat(open_table: Game, bob: User, carol: User, api_as: Clients) -> None:
    response = api_as(bob).post(game_url(open_table, "leave"))

    assert response.status_code == 200
    assert seat_users(open_table) == ["alice", None]
    assert Seat.objects.get(game=open_table, number=1).joined_at is None
    assert api_as(carol).post(game_url(open_table, "join"), {}, format="json").status_code == 200
    assert seat_users(open_table) == ["alice", "carol"]


def test_refuses_to_let_someone_without_a_seat_leave(open_table: Game, carol: User) -> None:
    with pytest.raises(DomainError) as refused:
        services.game_leave(game=open_table, user=carol)

    assert (refused.value.code, refused.value.message, refused.value.http_status) == (
        "not_seated",
        "You have no seat at this table.",
        403,
    )
    assert seat_users(open_table) == ["alice", "bob"]


def test_refuses_to_leave_a_started_game(started: Game, bob: User, api_as: Clients) -> None:
    response = api_as(bob).post(game_url(started, "leave"))

    assert response.status_code == 409
    assert response.json()["code"] == "game_not_open"
    assert response.json()["message"] == "The table has already started."
    assert seat_users(started) == ["alice", "bob", "carol"]


# --- start ----------------------------------------------------------------------------


def test_refuses_to_start_with_empty_seats_naming_them(
    three_seats: Game, alice: User, api_as: Clients
) -> None:
    response = api_as(alice).post(game_url(three_seats, "start"), {}, format="json")

    assert response.status_code == 409
    assert response.json()["code"] == "seats_not_filled"
    assert response.json()["details"] == {"empty_seats": [1, 2]}
    three_seats.refresh_from_db()
    assert (three_seats.status, three_seats.seed, three_seats.started_at) == ("open", None, None)
    assert not Event.objects.filter(game=three_seats).exists()


def test_each_refusal_to_start_says_why(
    open_table: Game, three_seats: Game, alice: User, bob: User
) -> None:
    tries = [
        (open_table, bob, None, ("not_creator", "Only the table's creator can start it.", 403)),
        (open_table, alice, 5, ("seed_forbidden", "Only staff may choose a game's seed.", 403)),
        (three_seats, alice, None, ("seats_not_filled", "Every seat must be taken first.", 409)),
    ]
    for table, by, seed, why in tries:
        with pytest.raises(DomainError) as refused:
            services.game_start(game=table, by=by, seed=seed)

        assert (refused.value.code, refused.value.message, refused.value.http_status) == why
        table.refresh_from_db()
        assert table.status == "open"


def test_the_deal_is_announced_with_the_first_seats_decision(
    open_table: Game,
    staff: User,
    monkeypatch: pytest.MonkeyPatch,
    django_capture_on_commit_callbacks: Any,
) -> None:
    published: list[tuple[Any, ...]] = []
    monkeypatch.setattr(notify, "publish", lambda *sent: published.append(sent))
    with django_capture_on_commit_callbacks(execute=True):
        services.game_start(game=open_table, by=staff, seed=7)  # seat 0 opens

    ((_, (version, status, to_act), update, decision, _end),) = published
    assert (version, status, to_act) == (0, "active", 0)
    assert json.loads(update)["entries"][0]["seq"] == 0
    assert decision is not None
    seat, line = decision
    assert seat == 0
    assert json.loads(line)["decision"]["seat"] == 0


def test_starting_deals_the_first_round_and_keeps_the_seed_secret(
    open_table: Game, alice: User, api_as: Clients
) -> None:
    response = api_as(alice).post(game_url(open_table, "start"), {}, format="json")

    assert response.status_code == 200
    body = response.json()
    assert (body["status"], body["version"], body["seed"]) == ("active", 0, None)
    assert body["to_act"] in (0, 1)
    assert body["decision_kind"] == "turn"
    open_table.refresh_from_db()
    assert open_table.status == "active"
    assert open_table.seed is not None
    assert open_table.started_at is not None
    deal = Event.objects.get(game=open_table)
    assert (deal.seq, deal.origin, deal.action) == (0, "deal", None)
    assert deal.public_events[0]["type"] == "round_start"
    assert engine_state(open_table).to_act == open_table.to_act


def test_refuses_to_start_twice(started: Game, staff: User, api_as: Clients) -> None:
    response = api_as(staff).post(game_url(started, "start"), {}, format="json")

    assert response.status_code == 409
    assert response.json()["code"] == "game_not_open"
    assert Event.objects.filter(game=started).count() == 1


# --- resign ---------------------------------------------------------------------------


def test_resigning_logs_the_resignation_and_the_game_goes_on(
    started: Game, bob: User, api_as: Clients
) -> None:
    response = api_as(bob).post(game_url(started, "resign"))

    assert response.status_code == 200
    body = response.json()
    assert body["seq"] == 1
    assert body["seat"] == 1
    assert {"type": "resign", "seat": 1} in body["events"]
    started.refresh_from_db()
    assert (started.status, started.version) == ("active", 1)
    event = Event.objects.get(game=started, seq=1)
    assert (event.origin, event.actor, event.action) == (
        "resign",
        bob,
        {"type": "resign", "seat": 1},
    )
    assert Seat.objects.get(game=started, number=1).resigned_at is not None
    assert engine_state(started).resigned == 0b010


def test_resigning_on_turn_plays_the_engines_default_for_the_seat(
    started: Game, alice: User, api_as: Clients
) -> None:
    response = api_as(alice).post(game_url(started, "resign"))

    events = response.json()["events"]
    assert events[0] == {"type": "resign", "seat": 0}
    # seat 0's cheapest card is toy_train: its default is to discard it, then draw
    assert events[1] == {"type": "discard", "seat": 0, "card": "toy_train", "removed": False}
    started.refresh_from_db()
    assert started.to_act == 1


def test_refuses_a_second_resignation(started: Game, bob: User, api_as: Clients) -> None:
    client = api_as(bob)
    client.post(game_url(started, "resign"))

    response = client.post(game_url(started, "resign"))

    assert response.status_code == 422
    assert response.json()["code"] == "already_resigned"
    assert Event.objects.filter(game=started).count() == 2


def test_the_last_seat_standing_wins(
    started: Game, alice: User, bob: User, carol: User, api_as: Clients
) -> None:
    api_as(bob).post(game_url(started, "resign"))

    response = api_as(alice).post(game_url(started, "resign"))

    assert {"type": "game_end"}.items() <= response.json()["events"][-1].items()
    started.refresh_from_db()
    assert (started.status, started.winners, started.end_reason) == (
        "finished",
        [2],
        "resignations",
    )
    assert started.to_act is None
    assert started.finished_at is not None
    seats = {s.number: s for s in Seat.objects.filter(game=started)}
    assert seats[2].is_winner
    assert seats[2].place == 1
    assert not seats[0].is_winner
    assert not seats[1].is_winner
    assert {seats[0].place, seats[1].place} <= {2, 3}
    # the seat whose resignation ended the game: its own field and its place, both written
    assert seats[0].resigned_at is not None
    assert all(seat.tally is not None and seat.round_wins is not None for seat in seats.values())
    detail = api_as(carol).get(game_url(started)).json()
    assert detail["seed"] == 7  # revealed once the game has ended


def play_randomly(game: Game, users: dict[int, User], rng: random.Random) -> None:
    """Answer every decision with a random legal action through the service, to the end."""
    from games.engine import action_to_json

    while True:
        game.refresh_from_db()
        if game.status != "active":
            return
        state = engine_state(game)
        action = action_to_json(rng.choice(legal_actions(state)), state.rules.edition)
        services.action_submit(
            game_id=game.pk, user=users[state.to_act], action=action, version=game.version
        )


def test_a_resigned_seat_never_gets_a_decision_and_is_ranked_last(
    alice: User, bob: User, carol: User, staff: User, api_as: Clients
) -> None:
    game = services.game_create(by=alice, rules=RuleSet.preset("2021", seats=3, ending="quick"))
    services.game_join(game=game, user=bob)
    services.game_join(game=game, user=carol)
    services.game_start(game=game, by=staff, seed=21)
    assert api_as(bob).post(game_url(game, "resign")).status_code == 200

    play_randomly(game, {0: alice, 2: carol}, random.Random(3))

    game.refresh_from_db()
    assert game.status == "finished"
    assert 1 not in game.winners
    assert not Event.objects.filter(game=game, seq__gt=1, seat=1).exists()
    places = dict(Seat.objects.filter(game=game).values_list("number", "place"))
    assert places[1] == 3
    assert {places[0], places[2]} <= {1, 2}
    decision = api_as(bob).get(game_url(game, "decision")).json()
    assert decision["decision"] is None


# --- abort ----------------------------------------------------------------------------


def test_staff_abort_a_game_which_ends_void_with_its_seed_revealed(
    started: Game, alice: User, staff: User, api_as: Clients
) -> None:
    submit(api_as(alice), started, {"type": "discard", "card": "cabin"}, 0)

    response = api_as(staff).post(
        game_url(started, "abort"), {"reason": "table fault"}, format="json"
    )

    assert response.status_code == 200
    body = response.json()
    assert (body["status"], body["seed"], body["end_reason"], body["to_act"]) == (
        "aborted",
        7,
        "table fault",
        None,
    )
    assert body["winners"] == []
    started.refresh_from_db()
    assert (started.status, started.version, started.deadline) == ("aborted", 1, None)
    assert started.finished_at is not None
    assert not Seat.objects.filter(game=started, is_winner=True).exists()
    assert api_as(alice).get(game_url(started, "replay")).json()["seed"] == 7


def test_staff_abort_an_open_table(open_table: Game, staff: User, api_as: Clients) -> None:
    response = api_as(staff).post(game_url(open_table, "abort"), {}, format="json")

    assert response.status_code == 200
    assert (response.json()["status"], response.json()["end_reason"]) == ("aborted", "aborted")
    open_table.refresh_from_db()
    assert (open_table.status, open_table.seed) == ("aborted", None)


def test_refuses_to_abort_an_ended_game(started: Game, staff: User, api_as: Clients) -> None:
    client = api_as(staff)
    client.post(game_url(started, "abort"), {}, format="json")

    response = client.post(game_url(started, "abort"), {}, format="json")

    assert response.status_code == 409
    assert response.json()["code"] == "game_over"
    assert response.json()["message"] == "The game has already ended."


def test_only_staff_abort_a_game(open_table: Game, alice: User) -> None:
    with pytest.raises(DomainError) as refused:
        services.game_abort(game=open_table, by=alice, reason="mine")

    assert (refused.value.code, refused.value.message, refused.value.http_status) == (
        "permission_denied",
        "Only staff can abort a game.",
        403,
    )
    open_table.refresh_from_db()
    assert open_table.status == Game.Status.OPEN


@pytest.mark.parametrize(
    ("reason", "kept"), [("", "aborted"), ("r" * 20, "r" * 20), ("r" * 21, "r" * 20)]
)
def test_an_abort_keeps_20_characters_of_its_reason_or_says_aborted(
    open_table: Game, staff: User, reason: str, kept: str
) -> None:
    services.game_abort(game=open_table, by=staff, reason=reason)

    open_table.refresh_from_db()
    assert open_table.end_reason == kept


def test_refuses_to_join_an_aborted_table(
    open_table: Game, carol: User, staff: User, api_as: Clients
) -> None:
    services.game_abort(game=open_table, by=staff, reason="x")

    response = api_as(carol).post(game_url(open_table, "join"), {}, format="json")

    assert response.status_code == 409
    assert response.json()["code"] == "game_not_open"


# --- games at real tables ---------------------------------------------------------------


def test_a_recorded_game_starts_when_created_and_ends_when_its_last_round_is_set(
    alice: User, bob: User
) -> None:
    rules = RuleSet.preset("2021", seats=2, ending="highest_after_n", ending_rounds=1)
    opened, ended = (
        datetime(2026, 3, 3, 19, 0, tzinfo=UTC),
        datetime(2026, 3, 3, 19, 40, tzinfo=UTC),
    )
    with time_machine.travel(opened, tick=False) as clock:
        game = services.recorded_game_create(by=alice, rules=rules, players=[alice, None])
        assert (game.status, game.started_at, game.finished_at) == ("active", opened, None)
        assert game.round_number == 1  # its first round is the one to record
        clock.move_to(ended)

        game = services.recorded_rounds_set(
            game=game, scored=recorded.outcome(rules, [[100_000, 50_000]])
        )

    game.refresh_from_db()
    assert (game.status, game.started_at, game.finished_at) == ("finished", opened, ended)
    assert seat_users(game) == ["alice", None]


def test_refuses_an_action_or_a_resignation_at_a_game_played_with_real_cards(
    alice: User, bob: User
) -> None:
    game = services.recorded_game_create(
        by=alice, rules=RuleSet.preset("2021", seats=2), players=[alice, bob]
    )

    def act() -> object:
        return services.action_submit(
            game_id=game.pk, user=alice, action={"type": "discard", "card": "cabin"}, version=0
        )

    def resign() -> object:
        return services.game_resign(game=game, user=bob)

    for attempt in (act, resign):
        with pytest.raises(DomainError) as refused:
            attempt()

        assert (refused.value.code, refused.value.message, refused.value.http_status) == (
            "recorded_game",
            "This game is played with real cards: its rounds are entered on its score sheet.",
            409,
        )
    assert not Event.objects.filter(game=game).exists()


def test_refuses_a_recorded_game_of_more_or_fewer_players_than_its_rules_seat(
    alice: User, bob: User
) -> None:
    with pytest.raises(DomainError) as refused:
        services.recorded_game_create(
            by=alice, rules=RuleSet.preset("2021", seats=3), players=[alice, bob]
        )

    assert (refused.value.code, refused.value.message, refused.value.http_status) == (
        "wrong_seat_count",
        "The rules seat 3, not 2.",
        422,
    )
    assert not Game.objects.exists()


def test_refuses_recorded_rounds_for_a_game_played_online(started: Game) -> None:
    rules = RuleSet.from_json(started.rules)
    with pytest.raises(DomainError) as refused:
        services.recorded_rounds_set(
            game=started, scored=recorded.outcome(rules, [[100_000, 50_000, 0]])
        )

    assert (refused.value.code, refused.value.message, refused.value.http_status) == (
        "not_recorded",
        "Only a recorded game takes recorded rounds.",
        409,
    )
    started.refresh_from_db()
    assert (started.status, started.version) == ("active", 0)


# --- the list -------------------------------------------------------------------------


@pytest.fixture
def listed(alice: User, bob: User, carol: User, staff: User) -> dict[str, Game]:
    """Five tables: alice's open 2- and 3-seaters, bob's started 2-seater with carol,
    carol's finished 3-seater with alice and bob, and an aborted one of staff's."""
    tables: dict[str, Game] = {}
    tables["open2"] = services.game_create(by=alice, rules=RuleSet.preset("2021", seats=2))
    tables["open3"] = services.game_create(by=alice, rules=RuleSet.preset("2021", seats=3))
    active = services.game_create(by=bob, rules=RuleSet.preset("2021", seats=2))
    services.game_join(game=active, user=carol)
    tables["active"] = services.game_start(game=active, by=bob)
    finished = services.game_create(by=carol, rules=RuleSet.preset("2021", seats=3))
    services.game_join(game=finished, user=alice)
    services.game_join(game=finished, user=bob)
    services.game_start(game=finished, by=carol)
    services.game_resign(game=finished, user=alice)
    services.game_resign(game=finished, user=bob)
    tables["finished"] = finished
    aborted = services.game_create(by=staff, rules=RuleSet.preset("2021", seats=4))
    tables["aborted"] = services.game_abort(game=aborted, by=staff, reason="test")
    return tables


def listed_ids(client: APIClient, query: dict[str, Any]) -> list[int]:
    response = client.get("/api/v1/games/", query)
    assert response.status_code == 200, response.json()
    return [game["id"] for game in response.json()["results"]]


@pytest.mark.parametrize(
    ("query", "names"),
    [
        ({}, ["aborted", "finished", "active", "open3", "open2"]),
        ({"status": "open"}, ["open3", "open2"]),
        ({"status": "active"}, ["active"]),
        ({"status": "finished"}, ["finished"]),
        ({"status": "aborted"}, ["aborted"]),
        ({"seats": 2}, ["active", "open2"]),
        ({"seats": 3, "status": "open"}, ["open3"]),
        ({"player": "bob"}, ["finished", "active"]),
        ({"player": "CAROL"}, ["finished", "active"]),
        ({"player": "nobody"}, []),
        ({"mine": "true"}, ["finished", "open3", "open2"]),
        ({"mine": "false"}, ["aborted", "active"]),
        ({"mine": "true", "status": "finished"}, ["finished"]),
    ],
)
def test_the_list_filters_tables(
    listed: dict[str, Game],
    alice: User,
    api_as: Clients,
    query: dict[str, Any],
    names: list[str],
) -> None:
    assert listed_ids(api_as(alice), query) == [listed[name].pk for name in names]


def test_mine_means_nothing_to_an_anonymous_caller(listed: dict[str, Game], api: APIClient) -> None:
    assert listed_ids(api, {"mine": "true"}) == []
    assert len(listed_ids(api, {"mine": "false"})) == 5


def test_the_list_is_paginated(listed: dict[str, Game], alice: User, api_as: Clients) -> None:
    client = api_as(alice)

    first = client.get("/api/v1/games/", {"page_size": 2}).json()
    last = client.get("/api/v1/games/", {"page_size": 2, "page": 3}).json()

    assert first["count"] == 5
    assert [g["id"] for g in first["results"]] == [listed["aborted"].pk, listed["finished"].pk]
    assert first["previous"] is None
    assert "page=2" in first["next"]
    assert [g["id"] for g in last["results"]] == [listed["open2"].pk]
    assert last["next"] is None


def test_the_list_shows_no_seed_before_the_end(listed: dict[str, Game], api: APIClient) -> None:
    results = {g["id"]: g for g in api.get("/api/v1/games/").json()["results"]}

    assert results[listed["active"].pk]["seed"] is None
    assert results[listed["finished"].pk]["seed"] == Game.objects.get(pk=listed["finished"].pk).seed
