"""The round clock of a night (tournaments.clocks, its pages and its API twin): the
organiser starts it with a length and an end policy, pauses, resumes and extends it;
everyone reads the time left from the server's clock, and at time the sheets say what
the policy means."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable

import pytest
import time_machine
from django.test import Client
from rest_framework.test import APIClient

from accounts.models import User
from cya_site.errors import DomainError
from tests.pages import text
from tests.tournaments.conftest import Club
from tests.tournaments.test_nights import check_in, finish
from tournaments import clocks, nights
from tournaments.models import ChangeLog, GameEntry, GameNight, NightRound, RoundClock

pytestmark = pytest.mark.django_db

T0 = dt.datetime(2026, 3, 3, 19, 0, tzinfo=dt.UTC)


@pytest.fixture
def drawn(club: Club, olga: User) -> GameNight:
    """Eight players checked in and round 1 drawn at two tables."""
    check_in(club, olga, 8)
    nights.night_draw(night=club.night, by=olga, seed=1)
    return club.night


def left_at(night: GameNight, moment: dt.datetime) -> int:
    with time_machine.travel(moment, tick=False):
        found = clocks.night_clock(night)
    assert found is not None
    return found.remaining_seconds


def test_the_time_left_is_read_from_the_servers_clock_with_pauses_and_extensions(
    drawn: GameNight, olga: User
) -> None:
    with time_machine.travel(T0, tick=False):
        clocks.clock_start(night=drawn, by=olga, minutes=75, policy="finish_round")
    at_start = left_at(drawn, T0)
    with time_machine.travel(T0 + dt.timedelta(minutes=10), tick=False):
        clocks.clock_pause(night=drawn, by=olga)
    paused_for_a_while = left_at(drawn, T0 + dt.timedelta(minutes=30))
    with time_machine.travel(T0 + dt.timedelta(minutes=40), tick=False):
        clocks.clock_resume(night=drawn, by=olga)  # a 30-minute pause
        clocks.clock_extend(night=drawn, by=olga, minutes=5)

    assert at_start == 75 * 60
    assert paused_for_a_while == 65 * 60  # a paused clock stands still
    assert left_at(drawn, T0 + dt.timedelta(minutes=50)) == (75 + 30 + 5 - 50) * 60
    assert left_at(drawn, T0 + dt.timedelta(hours=3)) == 0  # never below zero
    actions = set(ChangeLog.objects.values_list("action", flat=True))
    assert {"clock_started", "clock_paused", "clock_resumed", "clock_extended"} <= actions


def test_the_clock_refuses_what_does_not_fit(club: Club, olga: User, alice: User) -> None:
    with pytest.raises(DomainError) as no_round:
        clocks.clock_start(night=club.night, by=olga, policy="stop")
    check_in(club, olga, 8)
    nights.night_draw(night=club.night, by=olga, seed=1)
    with pytest.raises(DomainError) as player:
        clocks.clock_start(night=club.night, by=alice, policy="stop")
    with pytest.raises(DomainError) as not_started:
        clocks.clock_pause(night=club.night, by=olga)
    with pytest.raises(DomainError) as too_long:
        clocks.clock_start(night=club.night, by=olga, minutes=601, policy="stop")
    clocks.clock_start(night=club.night, by=olga, policy="stop")
    with pytest.raises(DomainError) as twice:
        clocks.clock_start(night=club.night, by=olga, policy="stop")
    with pytest.raises(DomainError) as not_paused:
        clocks.clock_resume(night=club.night, by=olga)

    assert (no_round.value.code, no_round.value.http_status) == ("no_round", 409)
    assert (player.value.code, player.value.http_status) == ("permission_denied", 403)
    assert not_started.value.code == "clock_not_started"
    assert too_long.value.details == {"field": "minutes"}
    assert (twice.value.code, not_paused.value.code) == ("clock_started", "clock_running")


def test_a_new_draw_leaves_the_last_rounds_clock_behind(drawn: GameNight, olga: User) -> None:
    clocks.clock_start(night=drawn, by=olga, policy="finish_round")
    finish(NightRound.objects.get(night=drawn, number=1), olga)
    assert clocks.night_clock(drawn) is not None

    nights.night_draw(night=drawn, by=olga, seed=2)

    assert clocks.night_clock(drawn) is None  # round 2's clock has not started


def test_the_api_twin_starts_pauses_and_reads_the_clock(
    drawn: GameNight,
    olga: User,
    alice: User,
    api: APIClient,
    api_as: Callable[[User], APIClient],
) -> None:
    url = f"/api/v1/nights/{drawn.pk}/clock/"
    assert api.get(url).status_code == 204

    with time_machine.travel(T0, tick=False):
        started = api_as(olga).post(
            url, {"action": "start", "minutes": 60, "policy": "stop"}, format="json"
        )
        refused = api_as(alice).post(url, {"action": "pause"}, format="json")
        bad = api_as(olga).post(url, {"action": "wind"}, format="json")
    with time_machine.travel(T0 + dt.timedelta(minutes=61), tick=False):
        read = api.get(url).json()

    assert started.status_code == 200
    assert started.json()["remaining_seconds"] == 3600
    assert started.json()["policy"] == "stop"
    assert (refused.status_code, refused.json()["code"]) == (403, "permission_denied")
    assert (bad.status_code, bad.json()["code"]) == (400, "invalid")
    assert read["expired"] is True
    assert read["remaining_seconds"] == 0
    assert read["at_time"].startswith("Time is up: stop now.")


def test_the_sheet_and_the_desk_show_the_clock_and_at_time_its_policy(
    drawn: GameNight, olga: User, client: Client
) -> None:
    with time_machine.travel(T0, tick=False):
        clocks.clock_start(night=drawn, by=olga, minutes=75, policy="finish_round")
    game = GameEntry.objects.filter(night_round__night=drawn).first()
    assert game is not None
    client.force_login(olga)

    with time_machine.travel(T0 + dt.timedelta(minutes=15), tick=False):
        sheet = client.get(f"/sheets/{game.game_id}/").content.decode()
        desk = client.get(f"/nights/{drawn.pk}/desk/").content.decode()
    with time_machine.travel(T0 + dt.timedelta(minutes=80), tick=False):
        late = client.get(f"/nights/{drawn.pk}/clock/live/").content.decode()

    assert 'data-remaining="3600"' in sheet
    assert "1:00:00" in text(sheet)
    assert "Pause" in text(desk)
    assert "Add 5 minutes" in text(desk)
    assert "finish the round in play and record it" in text(late)
    assert "hidden" not in late.split("data-at-time")[1].split(">")[0]


def test_the_desk_form_starts_the_clock_and_says_a_bad_length(
    drawn: GameNight, olga: User, client: Client
) -> None:
    client.force_login(olga)
    url = f"/nights/{drawn.pk}/clock/"

    refused = client.post(url, {"action": "start", "minutes": "0"}, follow=True)
    started = client.post(url, {"action": "start", "minutes": "45", "policy": "stop"})

    assert "Ensure this value is greater than or equal to 1" in text(refused.content)
    assert started.status_code == 302
    clock = RoundClock.objects.get()
    assert (clock.length_seconds, clock.policy) == (45 * 60, "stop")
