"""A league's nights as an iCalendar feed (tournaments.ical and its page), and the
season's schedule on its page (issue 27)."""

from __future__ import annotations

import datetime as dt

import pytest
import time_machine
from django.test import Client

from accounts.models import User
from tests.pages import text
from tests.tournaments.conftest import Club
from tournaments import ical, services

STAMP = dt.datetime(2026, 3, 1, 12, 0, tzinfo=dt.UTC)


def test_text_is_escaped_and_long_lines_fold_without_splitting_a_character() -> None:
    event = ical.Event(
        uid="night-1@example.com",
        day=dt.date(2026, 3, 3),
        summary="Tuesday Club: Spring, week 1; bring cards\\decks",
        location="Zur Münze, Hinterzimmer " * 4,
        description="Line one\nline two",
        url="https://example.com/nights/1/",
    )

    feed = ical.calendar("Tuesday Club", [event], stamp=STAMP)

    assert feed.startswith("BEGIN:VCALENDAR\r\nVERSION:2.0\r\n")
    assert feed.endswith("END:VCALENDAR\r\n")
    assert "DTSTART;VALUE=DATE:20260303\r\nDTEND;VALUE=DATE:20260304\r\n" in feed
    assert "SUMMARY:Tuesday Club: Spring\\, week 1\\; bring cards\\\\decks\r\n" in feed
    assert "DESCRIPTION:Line one\\nline two\r\n" in feed
    assert "DTSTAMP:20260301T120000Z\r\n" in feed
    lines = feed.split("\r\n")
    assert all(len(line.encode()) <= 75 for line in lines)
    unfolded = feed.replace("\r\n ", "")
    assert "LOCATION:" + "Zur Münze\\, Hinterzimmer " * 4 in unfolded


@pytest.mark.django_db
def test_the_feed_lists_every_night_of_the_league_with_its_venue_and_page(
    club: Club, olga: User, client: Client
) -> None:
    services.night_create(season=club.season, by=olga, on=dt.date(2026, 3, 10), venue="Pub")

    response = client.get("/leagues/tuesday/nights.ics")
    feed = response.content.decode().replace("\r\n ", "")

    assert response.status_code == 200
    assert response["Content-Type"] == "text/calendar; charset=utf-8"
    assert response["Content-Disposition"] == 'inline; filename="tuesday-nights.ics"'
    assert feed.count("BEGIN:VEVENT") == 2
    assert "DTSTART;VALUE=DATE:20260303" in feed
    assert "LOCATION:Pub" in feed
    assert f"URL:http://testserver/nights/{club.night.pk}/" in feed
    assert f"UID:night-{club.night.pk}@testserver" in feed
    assert client.get("/leagues/nobody/nights.ics").status_code == 404


@pytest.mark.django_db
def test_the_season_and_league_pages_link_the_feed_and_show_the_schedule(
    club: Club, olga: User, client: Client
) -> None:
    services.night_create(season=club.season, by=olga, on=dt.date(2026, 3, 10), venue="Pub")

    season = client.get(f"/seasons/{club.season.pk}/").content.decode()
    league = client.get("/leagues/tuesday/").content.decode()

    assert 'href="/leagues/tuesday/nights.ics"' in season
    assert 'href="/leagues/tuesday/nights.ics"' in league
    assert "Add the schedule to your calendar (iCal)" in text(season)
    assert "Pub" in text(season)


@pytest.mark.django_db
def test_the_season_schedule_splits_the_nights_to_come_from_those_played(
    club: Club, olga: User, client: Client
) -> None:
    tonight = services.night_create(season=club.season, by=olga, on=dt.date(2026, 3, 10))
    later = services.night_create(season=club.season, by=olga, on=dt.date(2026, 3, 17), venue="Pub")

    with time_machine.travel(dt.datetime(2026, 3, 10, 18, 0, tzinfo=dt.UTC), tick=False):
        page = client.get(f"/seasons/{club.season.pk}/").content.decode()

    schedule = text(page[page.index('id="schedule-heading"') : page.index("nights.ics")])
    coming, played = schedule.split("Played")
    # tonight first, then the nights to come, each with where and a link to its page
    assert coming.index("Tonight") < coming.index("Tuesday, March 17, 2026 at Pub")
    assert "venue to be announced" in coming
    assert "Tuesday, March 3, 2026 at Hall" in played
    assert "standings" in played
    for night in (club.night, tonight, later):
        assert f'href="/nights/{night.pk}/"' in page
    assert f'href="/nights/{club.night.pk}/standings/"' in page
    assert "or subscribe to http://testserver/leagues/tuesday/nights.ics" in text(page)
