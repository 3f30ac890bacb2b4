"""A club night's pages: check-in (htmx and plain), someone new at the door, the draw,
the printable seating with QR codes, the projector; who may do what."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client

from accounts.models import User
from tests.pages import BUDGET, text, transfer_size
from tests.tournaments.conftest import Club
from tournaments import nights, recording
from tournaments.models import CheckIn, Member, NightRound

pytestmark = pytest.mark.django_db
HTMX = {"HX-Request": "true"}


def as_user(user: User) -> Client:
    client = Client()
    client.force_login(user)
    return client


def checked_in(club: Club) -> set[str]:
    return set(CheckIn.objects.filter(night=club.night).values_list("competitor__name", flat=True))


def test_the_night_page_lists_the_roster_for_checking_in_small_and_cheap(
    club: Club, olga: User, django_assert_max_num_queries: Any
) -> None:
    client = as_user(olga)
    with django_assert_max_num_queries(15):
        response = client.get(f"/nights/{club.night.pk}/")

    page = text(response.content)
    for name in ("Alice", "Bob", "Carol", "Dora"):
        assert f"Check in {name}" in page
    assert transfer_size(client, f"/nights/{club.night.pk}/") < BUDGET


def test_an_organiser_checks_a_player_in_with_one_tap_and_gets_the_row_back(
    club: Club, olga: User
) -> None:
    dora = Member.objects.get(name="Dora")

    response = as_user(olga).post(
        f"/nights/{club.night.pk}/checkin/", {"member": dora.pk}, headers=HTMX
    )

    assert response.status_code == 200
    html = response.content.decode()
    assert f'id="member-{dora.pk}"' in html
    assert "checked in" in text(html)
    assert checked_in(club) == {"Dora"}


def test_without_javascript_a_check_in_goes_back_to_the_page(club: Club, olga: User) -> None:
    dora = Member.objects.get(name="Dora")

    response = as_user(olga).post(f"/nights/{club.night.pk}/checkin/", {"member": dora.pk})
    undone = as_user(olga).post(
        f"/nights/{club.night.pk}/checkin/", {"member": dora.pk, "action": "out"}
    )

    assert response.status_code == undone.status_code == 302
    assert response["Location"] == f"/nights/{club.night.pk}/#member-{dora.pk}"
    assert checked_in(club) == set()


def test_a_player_checks_only_themself_in(club: Club, alice: User) -> None:
    client = as_user(alice)
    page = text(client.get(f"/nights/{club.night.pk}/").content)
    bob = Member.objects.get(name="Bob")

    own = client.post(
        f"/nights/{club.night.pk}/checkin/", {"member": Member.objects.get(name="Alice").pk}
    )
    other = client.post(f"/nights/{club.night.pk}/checkin/", {"member": bob.pk}, headers=HTMX)

    assert "Check in Alice" in page
    assert "Check in Bob" not in page
    assert own.status_code == 302
    assert "Only an organiser checks other players in." in text(other.content)
    assert checked_in(club) == {"Alice"}


def test_a_check_in_of_an_unknown_player_is_a_404(club: Club, olga: User) -> None:
    for member in ("999999", "x", ""):
        response = as_user(olga).post(f"/nights/{club.night.pk}/checkin/", {"member": member})
        assert response.status_code == 404
    assert checked_in(club) == set()


def test_someone_new_at_the_door_goes_onto_the_roster_and_is_checked_in(
    club: Club, olga: User
) -> None:
    response = as_user(olga).post(
        f"/nights/{club.night.pk}/newcomer/", {"name": "Erin", "username": ""}
    )
    taken = as_user(olga).post(
        f"/nights/{club.night.pk}/newcomer/", {"name": "erin", "username": ""}
    )

    assert response.status_code == 302
    assert checked_in(club) == {"Erin"}
    assert taken.status_code == 400
    assert 'id="id_name_error"' in taken.content.decode()
    assert 'value="erin"' in taken.content.decode()
    assert Member.objects.filter(name__iexact="erin").count() == 1


def test_the_organiser_draws_the_seating_and_the_page_shows_it_by_name(
    club: Club, olga: User
) -> None:
    for member in Member.objects.all():
        nights.night_check_in(night=club.night, by=olga, member=member)

    response = as_user(olga).post(f"/nights/{club.night.pk}/draw/", {"preferred_size": "4"})
    page = text(as_user(olga).get(f"/nights/{club.night.pk}/").content)

    assert response.status_code == 302
    assert response["Location"] == f"/nights/{club.night.pk}/#round-1"
    assert "Round 1: seating" in page
    assert "Table 1" in page
    assert "Score sheet of table 1" in page
    assert NightRound.objects.get().number == 1


def test_a_draw_that_cannot_seat_says_so_and_draws_nothing(club: Club, olga: User) -> None:
    nights.night_check_in(night=club.night, by=olga, member=Member.objects.get(name="Dora"))

    response = as_user(olga).post(
        f"/nights/{club.night.pk}/draw/", {"preferred_size": "4"}, follow=True
    )

    assert "1 checked-in players cannot be seated" in text(response.content)
    assert not NightRound.objects.exists()


def test_players_and_visitors_cannot_draw_or_check_others_in(
    club: Club, alice: User, client: Client
) -> None:
    for member in Member.objects.all():
        nights.night_check_in(night=club.night, by=club.season.league.created_by, member=member)

    as_user(alice).post(f"/nights/{club.night.pk}/draw/", {"preferred_size": "4"})
    visitor = client.post(f"/nights/{club.night.pk}/draw/", {"preferred_size": "4"})
    visitor_checkin = client.post(
        f"/nights/{club.night.pk}/checkin/", {"member": Member.objects.get(name="Dora").pk}
    )

    assert not NightRound.objects.exists()
    assert visitor.status_code == visitor_checkin.status_code == 302
    assert visitor["Location"].startswith("/sign-in/")
    assert "Draw the seating" not in text(as_user(alice).get(f"/nights/{club.night.pk}/").content)


def test_the_printed_seating_has_a_qr_code_opening_each_tables_sheet(
    club: Club, olga: User, client: Client
) -> None:
    for member in Member.objects.all():
        nights.night_check_in(night=club.night, by=olga, member=member)
    round_ = nights.night_draw(night=club.night, by=olga, seed=1)
    game = round_.entries.first()
    assert game is not None

    response = client.get(f"/nights/{club.night.pk}/seating/")

    html = response.content.decode()
    assert response.status_code == 200
    assert html.count("<svg") == 1  # one table of four
    assert f"/sheets/{game.game_id}/" in html
    assert "Alice" in text(html)


def test_the_projector_shows_the_round_and_tonights_standings_and_refreshes(
    club: Club, olga: User, client: Client, django_assert_max_num_queries: Any
) -> None:
    for member in Member.objects.all():
        nights.night_check_in(night=club.night, by=olga, member=member)
    round_ = nights.night_draw(night=club.night, by=olga, seed=1)
    entry = round_.entries.order_by("seat").first()
    assert entry is not None
    recording.round_record(
        game=entry.game, by=olga, dollars=[300_000, 200_000, 100_000, 0]
    )  # the club plays quick games: one round ends them

    with django_assert_max_num_queries(15):
        page = client.get(f"/nights/{club.night.pk}/projector/")
    live = client.get(f"/nights/{club.night.pk}/projector/live/")

    html = page.content.decode()
    assert 'hx-trigger="every 15s"' in html
    assert "Tonight's standings" in text(html)
    assert "$300,000" in text(live.content)
