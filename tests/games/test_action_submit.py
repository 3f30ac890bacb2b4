"""The action endpoint: one legal action applies; everything else is refused and writes nothing.

The ``started`` game (seed 7, three seats) opens with seat 0 (alice) to act, holding
toy_train, jewels, piggy_bank, cabin and silver; gold is on the discard pile.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import orjson
import pytest
from prometheus_client import REGISTRY
from rest_framework.test import APIClient

from accounts.models import User
from cya_site.errors import DomainError
from games import notify, selectors, services, signals, store
from games.engine import RuleSet, action_from_json, action_to_json, apply, legal_actions
from games.models import Event, Game, Playout, Round, Seat
from games.services import progress
from tests.games.conftest import engine_state, submit

Clients = Callable[[User], APIClient]
CABIN = {"type": "discard", "card": "cabin"}  # a legal opening for seat 0
PAIR_WILD_FIRST = {"type": "pair", "cards": ["silver", "toy_train"]}  # not the canonical order


def log_of(game: Game) -> list[tuple[int, Any]]:
    """The game's log as (seq, action) pairs: what a refused request must leave untouched."""
    return list(Event.objects.filter(game=game).order_by("seq").values_list("seq", "action"))


def assert_unchanged(game: Game, version: int, log: list[tuple[int, Any]]) -> None:
    game.refresh_from_db()
    assert game.version == version
    assert log_of(game) == log


def test_opening_position_is_the_one_these_tests_assume(started: Game) -> None:
    state = engine_state(started)

    assert (state.to_act, state.version) == (0, 0)
    keys = state.table.keys
    assert [keys[c] for c in state.hands[0].cards] == [
        "toy_train",
        "jewels",
        "piggy_bank",
        "cabin",
        "silver",
    ]
    assert [keys[c] for c in state.discard_pile] == ["gold"]


def test_applies_a_legal_action_and_logs_it_in_canonical_form(
    started: Game, alice: User, api_as: Clients
) -> None:
    before = engine_state(started)
    code = action_from_json(PAIR_WILD_FIRST, "2021")
    expected_state, expected_events = apply(before, code)

    response = submit(api_as(alice), started, PAIR_WILD_FIRST, version=0)

    assert response.status_code == 201, response.json()
    body = response.json()
    assert body["replayed"] is False
    assert body["entry"] == {"seq": 1, "seat": 0, "events": list(expected_events)}
    assert body["game"]["version"] == 1
    assert body["game"]["to_act"] == expected_state.to_act
    started.refresh_from_db()
    assert started.version == 1
    assert started.to_act == expected_state.to_act
    event = Event.objects.get(game=started, seq=1)
    assert event.action == {"type": "pair", "cards": ["toy_train", "silver"]}
    assert event.action == action_to_json(code, "2021")
    assert event.action_code == code
    assert event.public_events == list(expected_events)
    assert (event.seat, event.actor, event.origin, event.idempotency_key) == (0, alice, "api", "")
    assert engine_state(started) == expected_state


def test_the_response_carries_the_next_decision_only_when_it_is_the_callers(
    started: Game, alice: User, api_as: Clients
) -> None:
    body = submit(api_as(alice), started, {"type": "discard", "card": "cabin"}, 0).json()

    assert body["game"]["to_act"] == 1
    assert body["decision"] is None


@pytest.mark.parametrize("version", [1, 5, 1_000_000])
def test_refuses_a_version_other_than_the_current_one_and_writes_nothing(
    started: Game, alice: User, api_as: Clients, version: int
) -> None:
    log = log_of(started)

    response = submit(api_as(alice), started, {"type": "discard", "card": "cabin"}, version)

    assert response.status_code == 409
    assert response.json()["code"] == "stale_version"
    assert response.json()["message"] == "The game is at version 0: decide again."
    assert response.json()["details"] == {"version": 0}
    assert_unchanged(started, 0, log)


def test_refuses_an_answer_to_a_decision_that_has_passed(
    started: Game, alice: User, bob: User, api_as: Clients
) -> None:
    assert (
        submit(api_as(alice), started, {"type": "discard", "card": "cabin"}, 0).status_code == 201
    )
    log = log_of(started)

    response = submit(api_as(bob), started, {"type": "discard", "card": "cabin"}, version=0)

    assert response.status_code == 409
    assert response.json()["code"] == "stale_version"
    assert response.json()["details"]["version"] == 1
    assert_unchanged(started, 1, log)


@pytest.mark.parametrize(
    ("action", "code"),
    [
        ({"type": "discard", "card": "gold"}, "card_not_in_hand"),
        ({"type": "pair", "cards": ["piano", "gold"]}, "card_not_in_hand"),
        ({"type": "concede"}, "wrong_decision"),
        ({"type": "end_turn"}, "wrong_decision"),
        ({"type": "resign", "seat": 0}, "wrong_decision"),
        ({"type": "pair", "cards": ["toy_train", "jewels"]}, "invalid_set"),
        ({"type": "challenge", "target": 1, "cards": ["silver"]}, "no_own_set"),
    ],
)
def test_refuses_a_well_formed_action_the_rules_forbid_with_the_engines_code(
    started: Game, alice: User, api_as: Clients, action: dict[str, Any], code: str
) -> None:
    log = log_of(started)

    response = submit(api_as(alice), started, action, version=0)

    assert response.status_code == 422, response.json()
    assert response.json()["code"] == code
    assert response.json()["message"]
    assert_unchanged(started, 0, log)


def test_refuses_an_action_from_a_seat_not_on_turn(
    started: Game, bob: User, api_as: Clients
) -> None:
    log = log_of(started)

    response = submit(api_as(bob), started, {"type": "discard", "card": "cabin"}, version=0)

    assert response.status_code == 409
    assert response.json()["code"] == "not_your_turn"
    assert_unchanged(started, 0, log)


def test_refuses_an_action_from_a_user_without_a_seat(
    started: Game, staff: User, api_as: Clients
) -> None:
    log = log_of(started)

    response = submit(api_as(staff), started, {"type": "discard", "card": "cabin"}, version=0)

    assert response.status_code == 403
    assert response.json()["code"] == "not_seated"
    assert_unchanged(started, 0, log)


def test_refuses_an_action_before_the_game_starts(
    open_table: Game, alice: User, api_as: Clients
) -> None:
    response = submit(api_as(alice), open_table, {"type": "discard", "card": "cabin"}, version=0)

    assert response.status_code == 409
    assert response.json()["code"] == "game_not_started"
    assert response.json()["message"] == "The game has not started yet."
    assert not Event.objects.filter(game=open_table).exists()


@pytest.mark.parametrize("ending", ["aborted", "finished"])
def test_refuses_an_action_after_the_game_ended(
    started: Game, alice: User, bob: User, carol: User, staff: User, api_as: Clients, ending: str
) -> None:
    if ending == "aborted":
        services.game_abort(game=started, by=staff, reason="test")
    else:  # the last seat standing wins
        services.game_resign(game=started, user=bob)
        services.game_resign(game=started, user=carol)
    started.refresh_from_db()
    assert started.status == ending
    log = log_of(started)

    response = submit(api_as(alice), started, {"type": "discard", "card": "cabin"}, started.version)

    assert response.status_code == 409
    assert response.json()["code"] == "game_over"
    assert_unchanged(started, started.version, log)


def test_a_game_played_to_its_end_by_its_seats_says_it_finished(
    alice: User, bob: User, staff: User
) -> None:
    game = services.game_create(by=alice, rules=RuleSet.preset("2021", seats=2))
    services.game_join(game=game, user=bob)
    game = services.game_start(game=game, by=staff, seed=7)
    users = {0: alice, 1: bob}
    while game.status == "active":
        state = engine_state(game)
        action = action_to_json(legal_actions(state)[0], "2021")
        services.action_submit(
            game_id=game.pk, user=users[state.to_act], action=action, version=state.version
        )
        game.refresh_from_db()

    assert (game.status, game.end_reason, len(game.winners)) == ("finished", "finished", 1)
    # every round the log ended is stored with its scores, and the last action at the end
    ended = [
        public["round"]
        for event in Event.objects.filter(game=game).order_by("seq")
        for public in event.public_events
        if public["type"] == "round_end"
    ]
    assert ended
    assert (
        list(Round.objects.filter(game=game).order_by("number").values_list("number", flat=True))
        == ended
    )
    last = Event.objects.filter(game=game).order_by("seq").last()
    assert last is not None
    assert last.created_at == game.finished_at


def test_the_update_a_change_announces_carries_its_log_entry(
    started: Game,
    alice: User,
    monkeypatch: pytest.MonkeyPatch,
    django_capture_on_commit_callbacks: Any,
) -> None:
    published: list[bytes] = []
    monkeypatch.setattr(
        notify, "publish", lambda game_id, game, update, *rest: published.append(update)
    )
    with django_capture_on_commit_callbacks(execute=True):
        result = services.action_submit(game_id=started.pk, user=alice, action=CABIN, version=0)

    (update,) = [orjson.loads(line) for line in published]
    assert update["type"] == "update"
    assert update["game"]["version"] == 1
    assert update["entries"] == [json.loads(json.dumps(result.entry, default=str))]


# --- what the action says to others -----------------------------------------------------


def refused_count(code: str) -> float:
    return REGISTRY.get_sample_value("cya_actions_refused_total", {"code": code}) or 0.0


def test_each_action_is_counted_by_origin_each_refusal_by_code_any_other_failure_as_error(
    started: Game, alice: User, bob: User, monkeypatch: pytest.MonkeyPatch
) -> None:
    stale, errors = refused_count("stale_version"), refused_count("error")
    web = REGISTRY.get_sample_value("cya_actions_submitted_total", {"origin": "web"}) or 0.0
    services.action_submit(
        game_id=started.pk, user=alice, action=CABIN, version=0, origin=Event.Origin.WEB
    )
    assert REGISTRY.get_sample_value("cya_actions_submitted_total", {"origin": "web"}) == web + 1
    assert Event.objects.get(game=started, seq=1).origin == "web"
    with pytest.raises(DomainError):
        services.action_submit(game_id=started.pk, user=bob, action=CABIN, version=3)
    assert refused_count("stale_version") == stale + 1

    def broken(*args: object, **kwargs: object) -> None:
        raise RuntimeError("the database went away")

    monkeypatch.setattr(store, "seat_at", broken)
    with pytest.raises(RuntimeError, match="went away"):
        services.action_submit(
            game_id=started.pk, user=alice, action={"type": "discard", "card": "cabin"}, version=0
        )
    assert refused_count("error") == errors + 1


def test_a_bots_action_through_the_api_is_announced_with_an_empty_note_when_it_sends_none(
    started: Game, alice: User
) -> None:
    User.objects.filter(pk=alice.pk).update(is_bot=True)
    alice.refresh_from_db()
    heard: list[dict[str, Any]] = []

    def listen(sender: object, **kwargs: Any) -> None:
        assert sender is Game
        heard.append(kwargs)

    signals.bot_acted.connect(listen)
    try:
        services.action_submit(
            game_id=started.pk, user=alice, action={"type": "discard", "card": "cabin"}, version=0
        )
    finally:
        signals.bot_acted.disconnect(listen)

    assert [(h["seat"], h["version"], h["debug"]) for h in heard] == [(0, 0, "")]


def test_a_keyed_submission_that_lost_its_race_is_stale_though_its_key_served_another_game(
    started: Game, alice: User, bob: User, carol: User, staff: User, monkeypatch: pytest.MonkeyPatch
) -> None:
    other = services.game_create(by=alice, rules=RuleSet.preset("2021", seats=3))
    services.game_join(game=other, user=bob)
    services.game_join(game=other, user=carol)
    other = services.game_start(game=other, by=staff, seed=7)
    services.action_submit(game_id=other.pk, user=alice, action=CABIN, version=0, key="k1")
    record, raced = progress.record, list[services.ActionResult | None]()

    def racing(*args: Any, **kwargs: Any) -> services.ActionResult:
        if not raced:  # another request of the seat's, without a key, commits first
            raced.append(None)
            raced[0] = services.action_submit(
                game_id=started.pk, user=alice, action=CABIN, version=0
            )
        return record(*args, **kwargs)

    monkeypatch.setattr(progress, "record", racing)
    with pytest.raises(DomainError) as refused:
        services.action_submit(game_id=started.pk, user=alice, action=CABIN, version=0, key="k1")

    assert refused.value.code == "stale_version"
    assert raced[0] is not None
    assert raced[0].entry["seq"] == 1


# --- Idempotency-Key ------------------------------------------------------------------


def test_a_retry_with_the_same_key_returns_the_first_result_and_applies_nothing(
    started: Game, alice: User, api_as: Clients
) -> None:
    client = api_as(alice)
    first = submit(client, started, {"type": "discard", "card": "cabin"}, 0, key="retry-1")
    assert first.status_code == 201
    log = log_of(started)

    again = submit(client, started, {"type": "discard", "card": "cabin"}, 0, key="retry-1")

    assert again.status_code == 200
    assert again.json()["replayed"] is True
    assert again.json()["entry"] == first.json()["entry"]
    assert_unchanged(started, 1, log)
    assert Event.objects.get(game=started, seq=1).idempotency_key == "retry-1"


def test_a_retry_gets_its_seat_and_entry_and_the_decision_the_seat_faces_now(
    started: Game, alice: User, bob: User, carol: User
) -> None:
    cabin = {"type": "discard", "card": "cabin"}
    first = services.action_submit(game_id=started.pk, user=alice, action=cabin, version=0, key="k")
    players = {0: alice, 1: bob, 2: carol}
    state = engine_state(started)
    while state.to_act != 0:  # the others play until it is alice's decision again
        action = action_to_json(legal_actions(state)[0], state.rules.edition)
        services.action_submit(
            game_id=started.pk, user=players[state.to_act], action=action, version=state.version
        )
        state = engine_state(started)

    again = services.action_submit(game_id=started.pk, user=alice, action=cabin, version=0, key="k")

    assert again.replayed
    assert (again.seat.number, again.event, again.entry) == (0, first.event, first.entry)
    started.refresh_from_db()
    now = selectors.decision(started, Seat.objects.get(game=started, number=0))
    assert now is not None
    assert again.decision == now


def test_a_retry_replays_even_when_its_body_differs_from_the_first_request(
    started: Game, alice: User, api_as: Clients
) -> None:
    client = api_as(alice)
    first = submit(client, started, {"type": "discard", "card": "cabin"}, 0, key="k")
    log = log_of(started)

    again = submit(client, started, {"type": "discard", "card": "jewels"}, 7, key="k")

    assert again.status_code == 200
    assert again.json()["entry"] == first.json()["entry"]
    assert_unchanged(started, 1, log)


def test_a_key_used_by_another_user_is_refused(
    started: Game, alice: User, bob: User, api_as: Clients
) -> None:
    assert (
        submit(api_as(alice), started, {"type": "discard", "card": "cabin"}, 0, "k").status_code
        == 201
    )
    log = log_of(started)
    bobs_turn = engine_state(started)
    assert bobs_turn.to_act == 1

    response = submit(api_as(bob), started, {"type": "discard", "card": "gold"}, 1, key="k")

    assert response.status_code == 409
    assert response.json()["code"] == "idempotency_key_reused"
    assert response.json()["message"] == "That Idempotency-Key belongs to another request."
    assert_unchanged(started, 1, log)


def test_a_key_is_scoped_to_its_game(
    started: Game, alice: User, bob: User, carol: User, staff: User, api_as: Clients
) -> None:
    other = services.game_create(by=alice, rules=RuleSet.preset("2021", seats=3))
    services.game_join(game=other, user=bob)
    services.game_join(game=other, user=carol)
    services.game_start(game=other, by=staff, seed=7)
    client = api_as(alice)
    assert (
        submit(client, started, {"type": "discard", "card": "cabin"}, 0, "same").status_code == 201
    )

    response = submit(client, other, {"type": "discard", "card": "cabin"}, 0, key="same")

    assert response.status_code == 201
    assert response.json()["replayed"] is False
    assert Event.objects.filter(idempotency_key="same").count() == 2


def test_a_refused_request_does_not_use_up_its_key(
    started: Game, alice: User, api_as: Clients
) -> None:
    client = api_as(alice)
    refused = submit(client, started, {"type": "discard", "card": "gold"}, 0, key="k")
    assert refused.status_code == 422

    response = submit(client, started, {"type": "discard", "card": "cabin"}, 0, key="k")

    assert response.status_code == 201
    assert response.json()["replayed"] is False


def test_accepts_a_key_of_100_characters(started: Game, alice: User, api_as: Clients) -> None:
    key = "k" * 100

    response = submit(api_as(alice), started, {"type": "discard", "card": "cabin"}, 0, key=key)

    assert response.status_code == 201
    assert Event.objects.get(game=started, seq=1).idempotency_key == key


def test_refuses_a_key_longer_than_100_characters(
    started: Game, alice: User, api_as: Clients
) -> None:
    log = log_of(started)

    response = submit(api_as(alice), started, {"type": "discard", "card": "cabin"}, 0, "k" * 101)

    assert response.status_code == 400
    assert response.json()["code"] == "invalid"
    assert response.json()["details"] == {"max_length": 100}
    assert_unchanged(started, 0, log)


def test_an_empty_key_is_no_key(started: Game, alice: User, api_as: Clients) -> None:
    response = submit(api_as(alice), started, {"type": "discard", "card": "cabin"}, 0, key="")

    assert response.status_code == 201
    assert Event.objects.get(game=started, seq=1).idempotency_key == ""


def test_a_game_decided_in_process_is_refused_if_an_action_moved_it_on_meanwhile(
    started: Game, alice: User
) -> None:
    as_read = Game.objects.get(pk=started.pk)
    cabin = {"type": "discard", "card": "cabin"}
    services.action_submit(game_id=started.pk, user=alice, action=cabin, version=0)
    log = log_of(started)

    with pytest.raises(DomainError) as refused:
        services.actions_record(
            game=as_read, choose=lambda state: legal_actions(state)[0], origin=Event.Origin.BUILTIN
        )

    assert (refused.value.code, refused.value.message) == (
        "stale_version",
        "The game is at version 1: decide again.",
    )
    assert_unchanged(started, 1, log)
    assert not Playout.objects.filter(game=started).exists()


@pytest.mark.parametrize(
    ("ending", "refusal"),
    [
        ("deleted", ("not_found", "No such game.", 404)),
        ("aborted", ("game_over", "The game has ended.", 409)),
    ],
)
def test_a_game_decided_in_process_is_refused_if_it_was_deleted_or_ended_meanwhile(
    started: Game, staff: User, ending: str, refusal: tuple[str, str, int]
) -> None:
    as_read = Game.objects.get(pk=started.pk)
    if ending == "deleted":
        Game.objects.filter(pk=started.pk).delete()
    else:
        services.game_abort(game=started, by=staff, reason="test")

    with pytest.raises(DomainError) as refused:
        services.actions_record(
            game=as_read, choose=lambda state: legal_actions(state)[0], origin=Event.Origin.BUILTIN
        )

    assert (refused.value.code, refused.value.message, refused.value.http_status) == refusal
    assert not Playout.objects.filter(game_id=started.pk).exists()
