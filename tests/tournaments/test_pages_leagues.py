"""League, roster and season pages: what they show, what organisers do on them, and who
may not. Every refusal is shown beside its field with what was typed kept."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client

from accounts.models import User
from tests.factories import UserFactory
from tests.pages import BUDGET, text, transfer_size
from tests.tournaments.conftest import Club
from tournaments.models import GameNight, League, Member, Season

pytestmark = pytest.mark.django_db


def signed_in(client: Client, user: User) -> Client:
    client.force_login(user)
    return client


def test_the_league_pages_show_names_and_stay_small_and_cheap(
    client: Client, club: Club, django_assert_max_num_queries: Any
) -> None:
    league = club.season.league
    for url in ("/leagues/", f"/leagues/{league.slug}/", f"/leagues/{league.slug}/roster/",
                f"/seasons/{club.season.pk}/"):  # fmt: skip
        with django_assert_max_num_queries(12):
            response = client.get(url)
        assert response.status_code == 200, url
        assert transfer_size(client, url) < BUDGET, url
    assert "Tuesday Club" in text(client.get("/leagues/").content)
    roster = text(client.get(f"/leagues/{league.slug}/roster/").content)
    assert all(name in roster for name in ("Alice", "Bob", "Carol", "Dora"))


def test_a_signed_in_player_starts_a_league_and_organises_it(client: Client, alice: User) -> None:
    response = signed_in(client, alice).post(
        "/leagues/new/",
        {"name": "Friday Club", "slug": "friday", "preset": "2021", "ending": "classic",
         "target": 1_000_000, "tie_policy": "extra_round"},
    )  # fmt: skip

    assert response.status_code == 302
    league = League.objects.get(slug="friday")
    assert response["Location"] == "/leagues/friday/"
    assert league.created_by == alice


def test_a_taken_slug_is_said_beside_the_field_with_everything_kept(
    client: Client, club: Club, alice: User
) -> None:
    response = signed_in(client, alice).post(
        "/leagues/new/",
        {"name": "Another", "slug": "tuesday", "preset": "2021", "ending": "quick",
         "target": 1_000_000, "tie_policy": "extra_round"},
    )  # fmt: skip

    assert response.status_code == 400
    html = response.content.decode()
    assert 'id="id_slug_error"' in html
    assert 'value="Another"' in html
    assert 'value="tuesday"' in html
    assert League.objects.count() == 1


def test_an_organiser_puts_a_guest_on_the_roster_and_links_them_later(
    client: Client, club: Club, olga: User
) -> None:
    signed_in(client, olga)
    league = club.season.league
    added = client.post(f"/leagues/{league.slug}/roster/", {"name": "Erin", "username": ""})
    erin = Member.objects.get(name="Erin")
    UserFactory.create(username="erin")
    linked = client.post(f"/leagues/{league.slug}/roster/{erin.pk}/link/", {"username": "ERIN"})

    assert added.status_code == 302
    assert linked.status_code == 302
    erin.refresh_from_db()
    assert erin.user is not None
    assert erin.user.username == "erin"


def test_roster_refusals_are_shown_beside_the_field(client: Client, club: Club, olga: User) -> None:
    signed_in(client, olga)
    league = club.season.league
    taken = client.post(f"/leagues/{league.slug}/roster/", {"name": "dora", "username": ""})
    nobody = client.post(f"/leagues/{league.slug}/roster/", {"name": "", "username": "ghost"})
    dora = Member.objects.get(name="Dora")
    bad_link = client.post(f"/leagues/{league.slug}/roster/{dora.pk}/link/", {"username": "ghost"})

    assert taken.status_code == nobody.status_code == bad_link.status_code == 400
    assert 'id="id_name_error"' in taken.content.decode()
    assert "ghost" in text(nobody.content)
    assert 'id="id_username_error"' in nobody.content.decode()
    assert f'id="link-{dora.pk}-error"' in bad_link.content.decode()
    assert 'value="ghost"' in bad_link.content.decode()
    assert Member.objects.filter(league=league).count() == 4


def test_only_organisers_change_the_roster_seasons_and_nights(
    client: Client, club: Club, alice: User
) -> None:
    league = club.season.league
    anonymous = client.post(f"/leagues/{league.slug}/roster/", {"name": "Erin"})
    signed_in(client, alice)
    player_roster = client.post(f"/leagues/{league.slug}/roster/", {"name": "Erin"})
    player_season = client.post(
        f"/leagues/{league.slug}/seasons/new/", {"name": "Autumn", "starts_on": "2026-09-01"}
    )
    player_night = client.post(f"/seasons/{club.season.pk}/", {"date": "2026-03-10"})

    assert anonymous.status_code == 403
    assert player_roster.status_code == player_night.status_code == 403
    assert player_season.status_code == 400
    assert "Only an organiser may do that." in text(player_season.content)
    assert not Member.objects.filter(name="Erin").exists()
    assert Season.objects.count() == 1
    assert GameNight.objects.count() == 1


def test_an_organiser_starts_a_season_and_adds_its_nights(
    client: Client, club: Club, olga: User
) -> None:
    signed_in(client, olga)
    league = club.season.league
    response = client.post(
        f"/leagues/{league.slug}/seasons/new/",
        {
            "name": "Autumn",
            "starts_on": "2026-09-01",
            "best_of": "8",
            "tiebreaks": ["points", "dsi"],
        },
    )
    autumn = Season.objects.get(name="Autumn")
    night = client.post(f"/seasons/{autumn.pk}/", {"date": "2026-09-08", "venue": "Hall"})

    assert response["Location"] == f"/seasons/{autumn.pk}/"
    assert autumn.competition.best_of == 8
    assert autumn.competition.tiebreaks == ["points", "dsi"]
    assert night.status_code == 302
    assert GameNight.objects.filter(season=autumn, venue="Hall").exists()
