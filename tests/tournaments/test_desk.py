"""The organiser's desk for a night (tournaments.desk, its page and its API twin): every
table of the round in play by state, counts read fresh, a disputed round one tap away;
organisers only. And the night page's check-in counts follow a check-in and its undo."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from django.test import Client
from rest_framework.test import APIClient

from accounts.models import User
from games.models import Game
from tests.factories import UserFactory
from tests.pages import text
from tests.tournaments.conftest import Club
from tournaments import desk, nights, recording, roster, tables
from tournaments.models import Member, ScoreRecord
from tournaments.tables import Table

pytestmark = pytest.mark.django_db


@pytest.fixture
def seated(club: Club, olga: User, alice: User, bob: User, carol: User) -> list[Table]:
    """Four players with accounts checked in and drawn at two tables of two."""
    league = club.season.league
    for user in (alice, bob, carol, UserFactory.create(username="dave")):
        member = Member.objects.filter(league=league, user=user).first() or roster.member_add(
            league=league, by=olga, user=user
        )
        nights.night_check_in(night=club.night, by=olga, member=member)
    nights.night_draw(night=club.night, by=olga, table_sizes=(2,), preferred_size=2, seed=1)
    return list(tables.night_rounds(club.night)[0].tables)


def user_at(table: Table, seat: int) -> User:
    return User.objects.get(competitor__pk=table.players[seat].competitor)


def game_of(table: Table) -> Game:
    return Game.objects.get(pk=table.game)


def waiting_and_disputed(seated: list[Table]) -> tuple[Table, Table]:
    """Table 1: a player enters round 1 (waiting for the other). Table 2: a player enters,
    the other disputes."""
    first, second = seated
    recording.round_record(game=game_of(first), by=user_at(first, 0), dollars=[100_000, 50_000])
    entry = recording.round_record(
        game=game_of(second), by=user_at(second, 0), dollars=[100_000, 50_000]
    )
    recording.round_vote(
        record=entry.record, by=user_at(second, 1), verdict="dispute", reason="recount"
    )
    return first, second


def test_the_desk_sorts_the_tables_by_what_they_need(
    club: Club, olga: User, seated: list[Table]
) -> None:
    before = desk.night_desk(club.night)
    first, second = waiting_and_disputed(seated)
    during = desk.night_desk(club.night)
    record = ScoreRecord.objects.get(game_id=first.game)
    recording.round_vote(record=record, by=olga, verdict="confirm")  # the organiser settles
    after = desk.night_desk(club.night)

    assert (before.checked_in, before.seated, len(before.playing)) == (4, 4, 2)
    assert [t.game for t in during.waiting] == [first.game]
    assert [(t.game, t.disputed_round) for t in during.disputed] == [(second.game, 1)]
    assert [t.game for t in after.finished] == [first.game]  # the quick ending: one round


def test_the_api_twin_answers_organisers_only(
    club: Club,
    olga: User,
    alice: User,
    seated: list[Table],
    api: APIClient,
    api_as: Callable[[User], APIClient],
) -> None:
    _first, second = waiting_and_disputed(seated)
    url = f"/api/v1/nights/{club.night.pk}/desk/"

    body = api_as(olga).get(url).json()
    refused = api_as(alice).get(url)

    assert body["checked_in"] == body["seated"] == 4
    assert body["tables"] == {"playing": 0, "waiting": 1, "disputed": 1, "finished": 0}
    assert [(t["game"], t["disputed_round"]) for t in body["disputed"]] == [(second.game, 1)]
    assert body["current"]["number"] == 1
    assert (refused.status_code, refused.json()["code"]) == (403, "permission_denied")
    assert api.get(url).status_code == 401


def test_the_desk_page_links_a_disputed_round_and_refuses_players(
    club: Club, olga: User, alice: User, seated: list[Table], client: Client
) -> None:
    _first, second = waiting_and_disputed(seated)
    client.force_login(olga)
    page = client.get(f"/nights/{club.night.pk}/desk/")
    live = client.get(f"/nights/{club.night.pk}/desk/live/")
    client.force_login(alice)
    refused = client.get(f"/nights/{club.night.pk}/desk/")

    html = page.content.decode()
    assert page.status_code == 200
    assert f'href="/sheets/{second.game}/#round-1"' in html
    assert "Round 1 disputed: settle it" in text(html)
    assert "1 round waits for confirmation" in text(html)
    assert f'hx-get="/nights/{club.night.pk}/desk/live/"' in html
    assert "waiting for confirmation" in text(live.content)
    assert refused.status_code == 403


def test_a_check_in_and_its_undo_update_the_counts_on_the_page(
    club: Club, olga: User, client: Client
) -> None:
    league = club.season.league
    ada, ben = (roster.member_add(league=league, by=olga, name=n) for n in ("Ada", "Ben"))
    nights.night_check_in(night=club.night, by=olga, member=ada)
    client.force_login(olga)
    url = f"/nights/{club.night.pk}/checkin/"

    checked = client.post(url, {"member": ben.pk, "action": "in"}, HTTP_HX_REQUEST="true")
    undone = client.post(url, {"member": ada.pk, "action": "out"}, HTTP_HX_REQUEST="true")

    for response, count in ((checked, 2), (undone, 1)):
        html = response.content.decode()
        assert f'<span class="badge" id="checked-count" hx-swap-oob="true">{count}</span>' in html
        assert 'id="checked-sentence" hx-swap-oob="true"' in html
    assert "2 players are checked in." in text(checked.content)
    assert "1 player is checked in." in text(undone.content)
    assert Member.objects.filter(pk=ben.pk, competitors__checkins__night=club.night).exists()
