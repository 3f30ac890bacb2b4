"""The time control (bots.timecontrol): a per-decision limit, and a bank for the game that
pays only for the time an answer takes beyond the limit (DESIGN "Bots"; issue 32).

The rule is pure and shared: a ladder match charges it through ``services.time_spend``
(held to it here) and ``manage.py play`` through ``bots.local`` (tests/bots/test_play_command.py).
"""

from __future__ import annotations

import pytest
from pytest_django import DjangoAssertNumQueries

from bots import services, timecontrol
from bots.models import SeatControl, Strike
from bots.validation import builtin_versions
from tests.bots.checks import quick


@pytest.mark.parametrize(
    ("bank", "limit", "elapsed", "after"),
    [
        (15_000, 1_000, 0, 15_000),  # an instant answer costs nothing
        (15_000, 1_000, 400, 15_000),  # within the limit: nothing
        (15_000, 1_000, 1_000, 15_000),  # exactly the limit: nothing
        (15_000, 1_000, 1_001, 14_999),  # one millisecond over: one millisecond
        (15_000, 1_000, 3_500, 12_500),  # only the time beyond the limit
        (200, 1_000, 1_500, 0),  # never below empty
        (0, 1_000, 999, 0),  # an empty bank still answers within the limit
    ],
)
def test_an_answer_pays_only_for_its_time_beyond_the_limit(
    bank: int, limit: int, elapsed: int, after: int
) -> None:
    assert timecontrol.bank_after_answer(bank, limit, elapsed) == after


def test_a_timeout_empties_the_bank_and_other_strikes_leave_it() -> None:
    assert timecontrol.bank_after_strike(9_000, Strike.Reason.TIMEOUT) == 0
    others = [reason for reason in Strike.Reason.values if reason != Strike.Reason.TIMEOUT]
    assert others
    assert {timecontrol.bank_after_strike(9_000, reason) for reason in others} == {9_000}


@pytest.fixture
def control(db: None) -> SeatControl:
    """A seat of a scheduled ladder match, with its full bank of 15,000 ms."""
    match = services.match_create(
        versions=builtin_versions()[:2], rules=quick(2), seed=7, time_bank_ms=15_000
    )
    seat = SeatControl.objects.filter(seat__game__match_game__match=match).order_by("pk").first()
    assert seat is not None
    return seat


@pytest.mark.parametrize(
    ("elapsed", "after"), [(0, 15_000), (999, 15_000), (1_000, 15_000), (1_750, 14_250)]
)
def test_a_ladder_seat_is_charged_only_beyond_the_decision_limit(
    control: SeatControl, elapsed: int, after: int
) -> None:
    services.time_spend(control=control, decision_ms=1_000, elapsed_ms=elapsed)
    control.refresh_from_db()
    assert control.time_bank_ms == after


@pytest.mark.parametrize("elapsed", [0, 999, 1_000])
def test_an_answer_within_the_decision_limit_costs_no_write(
    control: SeatControl, elapsed: int, django_assert_num_queries: DjangoAssertNumQueries
) -> None:
    with django_assert_num_queries(0):
        services.time_spend(control=control, decision_ms=1_000, elapsed_ms=elapsed)


@pytest.mark.parametrize(("reason", "after"), [("timeout", 0), ("illegal", 15_000)])
def test_a_timeout_strike_empties_the_seats_bank_and_another_strike_leaves_it(
    control: SeatControl, reason: str, after: int
) -> None:
    struck = services.strike_record(
        control=control, game_version=3, reason=reason, detail="", elapsed_ms=16_000
    )

    control.refresh_from_db()
    assert (struck.time_bank_ms, control.time_bank_ms) == (after, after)
