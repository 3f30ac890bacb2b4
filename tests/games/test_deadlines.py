"""Timed play: decisions carry deadlines, the worker answers the unanswered, banks pay overtime.

Deadline enforcement runs in the real Celery worker (``celery_worker``), which sees only
committed rows: those tests use ``transactional_db``. Time-bank arithmetic runs in this
process under ``time_machine``, with the clock stopped.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta

import pytest
import time_machine
from django.utils import timezone
from django.utils.dateparse import parse_datetime
from pytest_django import Settings
from rest_framework.test import APIClient

from accounts.models import User
from games import services
from games.engine import RuleSet, action_to_json, default_action, legal_actions
from games.models import Event, Game, Seat
from games.tasks import enforce_deadline, sweep_deadlines
from tests.games.conftest import engine_state, game_url, submit

Clients = Callable[[User], APIClient]
OPENING = {"type": "discard", "card": "comic_books"}  # seat 0 opens seed 7 at two seats
PATIENT_MS = 600_000  # a bank that keeps a seat's decision open for the rest of a test


def timed_game(
    alice: User, bob: User, staff: User, *, decision_seconds: int, bank_seconds: int | None
) -> Game:
    """A two-seat game of alice (seat 0, to act first) and bob, on the clock."""
    game = services.game_create(
        by=alice,
        rules=RuleSet.preset("2021", seats=2),
        decision_seconds=decision_seconds,
        time_bank_seconds=bank_seconds,
    )
    services.game_join(game=game, user=bob)
    return services.game_start(game=game, by=staff, seed=7)


def keep_bob_patient(game: Game) -> None:
    """Give seat 1 a long bank, so that only seat 0's deadline passes during a test."""
    Seat.objects.filter(game=game, number=1).update(time_bank_ms=PATIENT_MS)


def wait_for_event(game: Game, seq: int, seconds: float = 15) -> Event:
    give_up = time.monotonic() + seconds
    while time.monotonic() < give_up:
        event = Event.objects.filter(game=game, seq=seq).first()
        if event is not None:
            return event
        time.sleep(0.05)
    raise AssertionError(f"no event {seq} in game {game.pk} after {seconds} s")


def run_task(game: Game, version: int, eta: datetime | None = None) -> int | None:
    """Run enforce_deadline in the worker and return what it did (the seq it wrote, or None)."""
    args = (game.pk, version)
    if eta is None:
        result = enforce_deadline.apply_async(args, ignore_result=False)
    else:
        result = enforce_deadline.apply_async(args, eta=eta, ignore_result=False)
    value: int | None = result.get(timeout=20)
    return value


# --- deadlines on decisions -----------------------------------------------------------


def test_a_timed_decision_carries_its_deadline(
    alice: User, bob: User, staff: User, api_as: Clients
) -> None:
    moment = datetime(2026, 1, 5, 12, 0, tzinfo=UTC)
    with time_machine.travel(moment, tick=False):
        game = timed_game(alice, bob, staff, decision_seconds=5, bank_seconds=20)

        body = api_as(alice).get(game_url(game, "decision")).json()

    decision = body["decision"]
    assert parse_datetime(decision["deadline"]) == moment + timedelta(seconds=25)
    assert decision["time_bank_ms"] == 20_000
    assert parse_datetime(api_as(bob).get(game_url(game)).json()["deadline"]) == moment + timedelta(
        seconds=25
    )


def test_an_untimed_decision_has_no_deadline(started: Game, alice: User, api_as: Clients) -> None:
    decision = api_as(alice).get(game_url(started, "decision")).json()["decision"]

    assert decision["deadline"] is None
    assert decision["time_bank_ms"] is None
    started.refresh_from_db()
    assert started.deadline is None


# --- the worker enforces them ---------------------------------------------------------


@pytest.mark.usefixtures("transactional_db")
def test_an_unanswered_decision_gets_the_engines_default_at_its_deadline(
    celery_worker: str, alice: User, bob: User, staff: User
) -> None:
    game = timed_game(alice, bob, staff, decision_seconds=1, bank_seconds=0)
    keep_bob_patient(game)
    opening = engine_state(game)
    deadline = game.deadline
    assert deadline is not None

    event = wait_for_event(game, seq=1)

    assert event.origin == "timeout"
    assert (event.seat, event.actor) == (0, None)
    assert event.action == action_to_json(default_action(opening), "2021")
    assert event.created_at >= deadline
    game.refresh_from_db()
    assert (game.version, game.to_act, game.status) == (1, 1, "active")
    assert Seat.objects.get(game=game, number=0).time_bank_ms == 0


def test_a_deadline_whose_task_was_lost_is_enforced_by_the_sweep(
    alice: User, bob: User, staff: User, settings: Settings
) -> None:
    # the broker was down when the decision was made, or restarted with the task in it
    settings.SWEEP_AFTER_SECONDS = 60
    game = timed_game(alice, bob, staff, decision_seconds=1, bank_seconds=0)
    keep_bob_patient(game)
    Game.objects.filter(pk=game.pk).update(deadline=timezone.now() - timedelta(seconds=59))
    assert sweep_deadlines() == 0  # within the grace: its task may still come

    Game.objects.filter(pk=game.pk).update(deadline=timezone.now() - timedelta(seconds=61))
    assert sweep_deadlines() == 1
    assert sweep_deadlines() == 0

    event = Event.objects.get(game=game, seq=1)
    assert (event.origin, event.seat) == ("timeout", 0)


@pytest.mark.usefixtures("transactional_db")
def test_the_default_is_applied_once_however_often_the_task_runs(
    celery_worker: str, alice: User, bob: User, staff: User
) -> None:
    game = timed_game(alice, bob, staff, decision_seconds=1, bank_seconds=0)
    keep_bob_patient(game)
    assert game.deadline is not None
    # two more runs for the same decision, due at the same moment as the scheduled one
    racing = [
        enforce_deadline.apply_async((game.pk, 0), eta=game.deadline, ignore_result=False)
        for _ in range(2)
    ]

    outcomes = [result.get(timeout=20) for result in racing]
    wait_for_event(game, seq=1)
    later = [run_task(game, 0) for _ in range(2)]

    assert outcomes.count(None) >= 1
    assert set(outcomes) <= {None, 1}
    assert later == [None, None]
    game.refresh_from_db()
    assert game.version == 1
    assert list(Event.objects.filter(game=game).values_list("seq", "origin")) == [
        (0, "deal"),
        (1, "timeout"),
    ]


@pytest.mark.usefixtures("transactional_db")
def test_an_answered_decision_is_left_alone(
    celery_worker: str, alice: User, bob: User, staff: User, api_as: Clients
) -> None:
    game = timed_game(alice, bob, staff, decision_seconds=1, bank_seconds=0)
    keep_bob_patient(game)
    deadline = game.deadline

    assert submit(api_as(alice), game, OPENING, 0).status_code == 201
    # due with the scheduled run: once it answers, that one has had its turn as well
    assert run_task(game, 0, eta=deadline) is None

    game.refresh_from_db()
    assert game.version == 1
    assert list(Event.objects.filter(game=game).values_list("seq", "origin")) == [
        (0, "deal"),
        (1, "api"),
    ]


@pytest.mark.usefixtures("transactional_db")
def test_the_task_does_nothing_before_the_deadline_or_for_an_ended_game(
    celery_worker: str, alice: User, bob: User, staff: User
) -> None:
    game = timed_game(alice, bob, staff, decision_seconds=600, bank_seconds=None)

    early = run_task(game, 0)
    services.game_abort(game=game, by=staff, reason="test")
    ended = run_task(game, 0)

    assert (early, ended) == (None, None)
    assert Event.objects.filter(game=game).count() == 1


@pytest.mark.usefixtures("transactional_db")
def test_a_task_that_runs_before_the_deadline_comes_back_at_the_deadline(
    celery_worker: str, alice: User, bob: User, staff: User
) -> None:
    game = timed_game(alice, bob, staff, decision_seconds=1, bank_seconds=0)
    keep_bob_patient(game)
    # the deadline moves on after the task was scheduled (as a clock ahead of the
    # database's would make it run early): the first run must not be the last
    later = timezone.now() + timedelta(seconds=3)
    Game.objects.filter(pk=game.pk).update(deadline=later)

    event = wait_for_event(game, seq=1)

    assert event.origin == "timeout"
    assert event.created_at >= later


def test_at_its_very_deadline_the_decision_gets_the_default_and_its_bank_is_spent(
    alice: User, bob: User, carol: User, staff: User
) -> None:
    """The service the task runs, on a stopped clock: due at the deadline itself, for the
    seat to act at this game (another game's seats have the same numbers)."""
    start = datetime(2026, 1, 5, 12, 0, tzinfo=UTC)
    with time_machine.travel(start, tick=False) as clock:
        timed_game(carol, bob, staff, decision_seconds=2, bank_seconds=20)  # seats 0 and 1 too
        game = timed_game(alice, bob, staff, decision_seconds=2, bank_seconds=20)
        opening = engine_state(game)
        assert game.deadline == start + timedelta(seconds=22)
        clock.move_to(game.deadline - timedelta(milliseconds=1))
        assert services.decision_timeout(game_id=game.pk, version=0) == game.deadline
        clock.move_to(game.deadline)

        event = services.decision_timeout(game_id=game.pk, version=0)

    assert isinstance(event, Event)
    assert (event.seq, event.seat, event.origin) == (1, 0, "timeout")
    assert event.action == action_to_json(default_action(opening), "2021")
    assert Seat.objects.get(game=game, number=0).time_bank_ms == 0
    assert Seat.objects.get(game=game, number=1).time_bank_ms == 20_000


def test_a_late_task_for_an_answered_decision_leaves_the_next_one_alone_past_its_deadline(
    alice: User, bob: User, staff: User, api_as: Clients
) -> None:
    start = datetime(2026, 1, 5, 12, 0, tzinfo=UTC)
    with time_machine.travel(start, tick=False) as clock:
        game = timed_game(alice, bob, staff, decision_seconds=2, bank_seconds=0)
        assert submit(api_as(alice), game, OPENING, 0).status_code == 201
        game.refresh_from_db()
        assert game.deadline is not None
        clock.move_to(game.deadline + timedelta(seconds=1))  # bob's decision is overdue too

        assert services.decision_timeout(game_id=game.pk, version=0) is None

    game.refresh_from_db()
    assert (game.version, game.to_act) == (1, 1)  # bob's own task answers his


def test_a_shown_deadline_goes_on_the_pending_decision_only(
    alice: User, bob: User, staff: User, api_as: Clients
) -> None:
    """What the bots' runner shows on an API client's decision (it enforces it itself)."""
    game = timed_game(alice, bob, staff, decision_seconds=600, bank_seconds=None)
    shown = datetime(2030, 1, 5, 12, 0, tzinfo=UTC)

    assert services.deadline_set(game=game, version=0, deadline=shown) is True
    game.refresh_from_db()
    assert game.deadline == shown
    assert submit(api_as(alice), game, OPENING, 0).status_code == 201
    game.refresh_from_db()
    moved_on = game.deadline
    assert services.deadline_set(game=game, version=0, deadline=shown) is False
    game.refresh_from_db()
    assert game.deadline == moved_on != shown


# --- the time bank --------------------------------------------------------------------


def test_time_beyond_the_decision_limit_is_charged_to_the_bank(
    alice: User, bob: User, staff: User, api_as: Clients
) -> None:
    start = datetime(2026, 1, 5, 12, 0, tzinfo=UTC)
    with time_machine.travel(start, tick=False) as clock:
        game = timed_game(alice, bob, staff, decision_seconds=2, bank_seconds=30)
        clock.move_to(start + timedelta(seconds=5))  # 3 s over the 2 s limit

        response = submit(api_as(alice), game, OPENING, 0)

    assert response.status_code == 201
    assert Seat.objects.get(game=game, number=0).time_bank_ms == 27_000
    game.refresh_from_db()
    assert game.to_act == 1
    assert game.deadline == start + timedelta(seconds=5 + 2 + 30)  # bob's bank is untouched


def test_an_answer_within_the_limit_costs_the_bank_nothing(
    alice: User, bob: User, staff: User, api_as: Clients
) -> None:
    start = datetime(2026, 1, 5, 12, 0, tzinfo=UTC)
    with time_machine.travel(start, tick=False) as clock:
        game = timed_game(alice, bob, staff, decision_seconds=2, bank_seconds=30)
        clock.move_to(start + timedelta(seconds=1.5))

        submit(api_as(alice), game, OPENING, 0)

    assert Seat.objects.get(game=game, number=0).time_bank_ms == 30_000


@pytest.mark.parametrize(("seconds", "left_ms"), [(4.9, 100), (5.0, 0), (6.5, 0)])
def test_a_bank_runs_down_to_zero_and_no_further(
    alice: User, bob: User, staff: User, api_as: Clients, seconds: float, left_ms: int
) -> None:
    start = datetime(2026, 1, 5, 12, 0, tzinfo=UTC)
    with time_machine.travel(start, tick=False) as clock:
        game = timed_game(alice, bob, staff, decision_seconds=2, bank_seconds=3)
        clock.move_to(start + timedelta(seconds=seconds))  # an answer no task has beaten

        response = submit(api_as(alice), game, OPENING, 0)

    assert response.status_code == 201
    assert Seat.objects.get(game=game, number=0).time_bank_ms == left_ms


def test_a_seat_that_acts_again_gets_its_next_deadline_from_the_bank_just_charged(
    alice: User, bob: User, staff: User, api_as: Clients
) -> None:
    """Seed 7 at two seats, first legal action each time: after 37 actions bob (seat 1)
    lays a pair from the discard pile and must act again at once."""
    start = datetime(2026, 1, 5, 12, 0, tzinfo=UTC)
    with time_machine.travel(start, tick=False) as clock:
        game = timed_game(alice, bob, staff, decision_seconds=2, bank_seconds=30)
        users = {0: alice, 1: bob}
        for version in range(37):  # all answered at once: no bank is touched
            state = engine_state(game)
            action = action_to_json(legal_actions(state)[0], "2021")
            services.action_submit(
                game_id=game.pk, user=users[state.to_act], action=action, version=version
            )
        assert engine_state(game).to_act == 1
        clock.move_to(start + timedelta(seconds=5))  # 3 s over the 2 s limit

        response = submit(api_as(bob), game, {"type": "pair_discard", "card": "sport_plane"}, 37)

    assert response.status_code == 201
    decision = response.json()["decision"]
    assert decision is not None
    assert decision["seat"] == 1  # bob again
    assert Seat.objects.get(game=game, number=1).time_bank_ms == 27_000
    assert decision["time_bank_ms"] == 27_000
    game.refresh_from_db()
    assert game.deadline == start + timedelta(seconds=5 + 2 + 27)
    assert parse_datetime(decision["deadline"]) == game.deadline
