"""A club night over HTTP: the roster, check-in, the seating draw, the rounds, the night's
standings and the CSV download. Refusals: status, stable code, and nothing written."""

from __future__ import annotations

import csv
import io
from collections.abc import Callable
from typing import Any

from rest_framework.test import APIClient

from accounts.models import User
from games.models import Game
from tests.factories import UserFactory
from tests.tournaments.conftest import QUICK, Club
from tests.tournaments.test_recording_api import expect
from tournaments import nights, recording, roster, services
from tournaments.models import CheckIn, Member, NightRound

Clients = Callable[[User], APIClient]


def night_url(club: Club, tail: str) -> str:
    return f"/api/v1/nights/{club.night.pk}/{tail}"


def test_an_organiser_runs_the_roster_check_in_and_draw_over_http(
    club: Club, olga: User, api_as: Clients, api: APIClient
) -> None:
    client = api_as(olga)
    league = club.season.league
    added = client.post(f"/api/v1/leagues/{league.pk}/members/", {"name": "Erin"}, format="json")
    assert added.status_code == 201, added.json()
    members = client.get(f"/api/v1/leagues/{league.pk}/members/").json()
    assert [m["name"] for m in members] == ["Alice", "Bob", "Carol", "Dora", "Erin"]

    for member in members:
        response = client.post(
            night_url(club, "checkins/"), {"member": member["id"]}, format="json"
        )
        assert response.status_code == 201, response.json()
    assert len(api.get(night_url(club, "checkins/")).json()) == 5

    drawn = client.post(night_url(club, "draw/"), {"seed": 5}, format="json")
    assert drawn.status_code == 201, drawn.json()
    body = drawn.json()
    assert body["number"] == 1
    assert sorted(len(t["players"]) for t in body["tables"]) == [5]
    assert {p["name"] for p in body["tables"][0]["players"]} == {
        "Alice", "Bob", "Carol", "Dora", "Erin",
    }  # fmt: skip
    assert api.get(night_url(club, "rounds/")).json() == [body]


def test_a_player_checks_themself_in_and_out(club: Club, alice: User, api_as: Clients) -> None:
    member = Member.objects.get(user=alice)
    client = api_as(alice)

    assert (
        client.post(night_url(club, "checkins/"), {"member": member.pk}, format="json").status_code
        == 201
    )
    assert client.delete(night_url(club, f"checkins/{member.pk}/")).status_code == 204
    assert not CheckIn.objects.exists()


def test_bad_check_ins_are_refused_with_a_code_and_nothing_written(
    club: Club, olga: User, alice: User, api_as: Clients, api: APIClient
) -> None:
    bob = Member.objects.get(name="Bob")
    other_club = services.league_create(by=olga, name="Other", slug="other", rules=QUICK)
    other = roster.member_add(league=other_club, by=olga, name="Stranger")

    cases: list[tuple[APIClient, Any, int, str]] = [
        (api, {"member": bob.pk}, 401, "not_authenticated"),
        (api_as(alice), {"member": bob.pk}, 403, "permission_denied"),
        (api_as(olga), {"member": other.pk}, 404, "not_on_roster"),
        (api_as(olga), {"member": 10**12}, 404, "not_on_roster"),
        (api_as(olga), {"member": "bob"}, 400, "invalid"),
        (api_as(olga), {}, 400, "invalid"),
        (api_as(olga), {"member": bob.pk, "extra": 1}, 400, "invalid"),
    ]
    for client, body, status, code in cases:
        expect(client.post(night_url(club, "checkins/"), body, format="json"), status, code)
    assert not CheckIn.objects.exists()


def test_bad_draws_are_refused_and_write_nothing(
    club: Club, olga: User, alice: User, api_as: Clients
) -> None:
    client = api_as(olga)
    client.post(
        night_url(club, "checkins/"), {"member": Member.objects.get(name="Dora").pk}, format="json"
    )

    expect(client.post(night_url(club, "draw/"), {}, format="json"), 422, "cannot_seat")
    expect(
        client.post(night_url(club, "draw/"), {"table_sizes": [9]}, format="json"), 400, "invalid"
    )
    expect(client.post(night_url(club, "draw/"), {"seed": -1}, format="json"), 400, "invalid")
    expect(
        api_as(alice).post(night_url(club, "draw/"), {}, format="json"), 403, "permission_denied"
    )
    assert not NightRound.objects.exists()
    assert not Game.objects.exists()


def test_a_nights_standings_count_that_night_and_download_as_a_named_csv(
    club: Club, olga: User, api: APIClient
) -> None:
    for member in Member.objects.filter(name__in=["Alice", "Bob", "Carol"]):
        nights.night_check_in(night=club.night, by=olga, member=member)
    round_ = nights.night_draw(night=club.night, by=olga, seed=1)
    game = Game.objects.get(competition_entries__night_round=round_, competition_entries__seat=0)
    recording.round_record(game=game, by=olga, dollars=[300_000, 200_000, 100_000])

    rows = api.get(
        f"/api/v1/competitions/{club.competition.pk}/standings/?night={club.night.pk}"
    ).json()
    download = api.get(
        f"/api/v1/competitions/{club.competition.pk}/standings/?night={club.night.pk}&format=csv"
    )

    assert [r["games"] for r in rows] == [1, 1, 1]  # Dora did not come
    assert download["Content-Disposition"] == (
        'attachment; filename="tuesday-club-spring-standings-night-2026-03-03.csv"'
    )
    table = list(csv.DictReader(io.StringIO(download.content.decode())))
    assert [r["name"] for r in table] == [r["name"] for r in rows]
    expect(
        api.get(f"/api/v1/competitions/{club.competition.pk}/standings/?night=999999"),
        404,
        "no_such_night",
    )


def test_linking_a_guest_over_http(club: Club, olga: User, api_as: Clients) -> None:
    UserFactory.create(username="dora")
    dora = Member.objects.get(name="Dora")

    response = api_as(olga).post(
        f"/api/v1/members/{dora.pk}/link/", {"username": "dora"}, format="json"
    )

    assert response.status_code == 200, response.json()
    assert response.json()["username"] == "dora"
    expect(
        api_as(olga).post(
            f"/api/v1/members/{dora.pk}/link/", {"username": "nobody"}, format="json"
        ),
        422,
        "no_such_user",
    )


def test_a_nights_rounds_give_each_seats_running_tally_as_the_projector_shows(
    club: Club, olga: User, api: APIClient
) -> None:
    for name in ("Alice", "Bob"):
        nights.night_check_in(night=club.night, by=olga, member=Member.objects.get(name=name))
    drawn = nights.night_draw(night=club.night, by=olga, table_sizes=(2,), preferred_size=2)
    before = api.get(night_url(club, "rounds/")).json()[0]["tables"][0]["players"]
    game = Game.objects.get(competition_entries__night_round=drawn, competition_entries__seat=0)
    recording.round_record(game=game, by=olga, dollars=[100_000, 50_000])

    after = api.get(night_url(club, "rounds/")).json()[0]["tables"][0]["players"]

    assert [p["tally"] for p in before] == [None, None]
    assert [p["tally"] for p in after] == [100_000, 50_000]
