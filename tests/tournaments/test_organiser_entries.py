"""Whether the table confirms what an organiser entered is the league's setting
(issue 27): by default the players confirm it like any entry and the organiser can settle
it; a league may let an organiser's entry count at once. Service, API and pages."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable

import pytest
from django.test import Client
from rest_framework.test import APIClient

from accounts.models import User
from tests.pages import text
from tests.tournaments.conftest import QUICK, Club, recorded_game
from tests.tournaments.test_recording import refused
from tournaments import recording, services
from tournaments.models import ChangeLog, League, ScoreRecord

pytestmark = pytest.mark.django_db


@pytest.fixture
def confirming(club: Club, olga: User) -> Club:
    """The club with the default: the table confirms an organiser's entry."""
    League.objects.filter(pk=club.season.league_id).update(organiser_entries_settle=False)
    return club


def test_by_default_the_table_confirms_an_organisers_entry_and_the_organiser_can_settle(
    confirming: Club, olga: User, alice: User, bob: User
) -> None:
    game = recorded_game(confirming, olga, ["Alice", "Bob"], rules=QUICK)
    record = recording.round_record(game=game, by=olga, dollars=[100_000, 50_000]).record
    assert record.status == ScoreRecord.Status.PENDING

    recording.round_vote(record=record, by=alice, verdict="confirm")
    record.refresh_from_db()
    assert record.status == ScoreRecord.Status.PENDING  # Bob has not confirmed

    recording.round_vote(record=record, by=olga, verdict="confirm")  # she settles it
    record.refresh_from_db()
    assert record.status == ScoreRecord.Status.CONFIRMED


def test_the_table_alone_can_confirm_an_organisers_entry(
    confirming: Club, olga: User, alice: User, bob: User
) -> None:
    game = recorded_game(confirming, olga, ["Alice", "Bob"], rules=QUICK)
    record = recording.round_record(game=game, by=olga, dollars=[100_000, 50_000]).record
    for player in (alice, bob):
        recording.round_vote(record=record, by=player, verdict="confirm")
    record.refresh_from_db()

    assert record.status == ScoreRecord.Status.CONFIRMED


def test_a_league_may_let_an_organisers_entry_count_at_once(club: Club, olga: User) -> None:
    assert club.season.league.organiser_entries_settle  # the test club's setting
    game = recorded_game(club, olga, ["Alice", "Bob"], rules=QUICK)

    record = recording.round_record(game=game, by=olga, dollars=[100_000, 50_000]).record

    assert record.status == ScoreRecord.Status.CONFIRMED


def test_a_new_league_defaults_to_the_table_confirming(olga: User) -> None:
    league = services.league_create(by=olga, name="Club", slug="club", rules=QUICK)
    assert league.organiser_entries_settle is False


def test_a_settings_change_is_logged_in_every_season_and_an_unchanged_setting_is_not(
    club: Club, olga: User
) -> None:
    league = club.season.league
    autumn = services.season_create(
        league=league, by=olga, name="Autumn", starts_on=dt.date(2026, 9, 1)
    )

    services.league_settings_change(
        league=league, by=olga, organiser_entries_settle=False, substitute_policy="seat"
    )
    services.league_settings_change(league=league, by=olga, organiser_entries_settle=False)

    league.refresh_from_db()
    assert (league.organiser_entries_settle, league.substitute_policy) == (False, "seat")
    logged = ChangeLog.objects.filter(action="league_settings_changed")
    assert {(c.competition_id, c.actor, c.subject, c.before, c.after) for c in logged} == {
        (season, olga, subject, before, after)
        for season in (club.competition.pk, autumn.competition.pk)
        for subject, before, after in [
            ("organiser entries settle", True, False),
            ("substitute policy", "fixed", "seat"),
        ]
    }


def test_two_organisers_changing_different_settings_from_pages_opened_together_keep_both(
    club: Club, olga: User
) -> None:
    """Each organiser's page read the league before either changed it: one's change must
    not put back the setting the other changed."""
    pk = club.season.league.pk
    first_page, second_page = League.objects.get(pk=pk), League.objects.get(pk=pk)

    services.league_settings_change(league=first_page, by=olga, substitute_policy="seat")
    services.league_settings_change(league=second_page, by=olga, organiser_entries_settle=False)

    league = League.objects.get(pk=pk)
    assert (league.organiser_entries_settle, league.substitute_policy) == (False, "seat")


def test_a_settings_change_is_refused_to_players_and_for_an_unknown_policy(
    club: Club, olga: User, alice: User
) -> None:
    league = club.season.league

    refused(
        "permission_denied", 403, services.league_settings_change,
        league=league, by=alice, organiser_entries_settle=False,
    )  # fmt: skip
    error = refused(
        "invalid", 422, services.league_settings_change,
        league=league, by=olga, organiser_entries_settle=False, substitute_policy="none",
    )  # fmt: skip

    assert (error.message, error.details) == (
        "The substitute policy is fixed or seat.",
        {"field": "substitute_policy"},
    )
    league.refresh_from_db()
    assert (league.organiser_entries_settle, league.substitute_policy) == (True, "fixed")
    assert not ChangeLog.objects.filter(action="league_settings_changed").exists()


def test_the_api_creates_and_changes_the_setting_organisers_only(
    club: Club, olga: User, alice: User, api_as: Callable[[User], APIClient]
) -> None:
    created = api_as(alice).post(
        "/api/v1/leagues/",
        {"name": "Alice's", "slug": "alices", "organiser_entries_settle": True},
        format="json",
    )
    url = f"/api/v1/leagues/{club.season.league_id}/settings/"
    changed = api_as(olga).post(url, {"organiser_entries_settle": False}, format="json")
    refused = api_as(alice).post(url, {"organiser_entries_settle": True}, format="json")
    unknown = api_as(olga).post(url, {"settle": True}, format="json")

    assert created.json()["organiser_entries_settle"] is True
    assert changed.status_code == 200
    assert changed.json()["organiser_entries_settle"] is False
    assert (refused.status_code, refused.json()["code"]) == (403, "permission_denied")
    assert (unknown.status_code, unknown.json()["code"]) == (400, "invalid")
    assert ChangeLog.objects.filter(action="league_settings_changed").count() == 1


def test_the_league_page_changes_the_setting_and_the_sheet_offers_to_settle(
    confirming: Club, olga: User, alice: User, client: Client
) -> None:
    game = recorded_game(confirming, olga, ["Alice", "Bob"], rules=QUICK)
    recording.round_record(game=game, by=olga, dollars=[100_000, 50_000])
    client.force_login(olga)

    sheet = client.get(f"/sheets/{game.pk}/").content.decode()
    league = client.get("/leagues/tuesday/").content.decode()
    saved = client.post(
        "/leagues/tuesday/settings/", {"organiser_entries_settle": "on"}, follow=True
    )
    client.force_login(alice)
    refused = client.post("/leagues/tuesday/settings/", {})

    assert "Settle: round 1 stands as entered" in text(sheet)
    assert "The table's players confirm every entry" in text(league)
    assert 'name="organiser_entries_settle"' in league
    assert "The league's settings are saved." in text(saved.content)
    assert League.objects.get(slug="tuesday").organiser_entries_settle is True
    assert refused.status_code == 403
