"""The season's schedule on a 360 px phone (issue 27): the nights to come and those played,
with where, a link to each night, and the calendar feed."""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable

import pytest
from django.utils import timezone
from playwright.sync_api import Page, expect

from tests.browser import SCREENSHOTS
from tests.tournaments.test_desk_browser import night
from tournaments import services
from tournaments.models import GameNight

pytestmark = pytest.mark.django_db(transaction=True)
__all__ = ["night"]  # the fixture: a night of 2026-11-24 with round 1 drawn


def test_the_season_page_shows_the_schedule_on_a_phone(
    open_page: Callable[..., Page], night: GameNight
) -> None:
    olga = night.season.league.created_by
    past = services.night_create(
        season=night.season, by=olga, on=timezone.localdate() - dt.timedelta(days=7)
    )
    coming = services.night_create(
        season=night.season,
        by=olga,
        on=timezone.localdate() + dt.timedelta(days=7),
        venue="The Crown, back room",
    )
    page = open_page(f"/seasons/{night.season_id}/", size={"width": 360, "height": 740})

    schedule = page.locator(".schedule")
    expect(schedule.get_by_role("heading", name="Coming up")).to_be_visible()
    expect(schedule.locator(f"#night-{coming.pk}")).to_contain_text("at The Crown, back room")
    expect(schedule.locator(f"#night-{past.pk}")).to_contain_text("0 players · 0 tables")
    expect(
        schedule.get_by_role("link", name="Add the schedule to your calendar (iCal)")
    ).to_have_attribute("href", f"/leagues/{night.season.league.slug}/nights.ics")
    assert page.evaluate("document.documentElement.scrollWidth") <= 360
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    schedule.screenshot(path=str(SCREENSHOTS / "season-schedule-360.png"))
    schedule.locator(f"#night-{coming.pk} a").first.click()
    expect(page).to_have_url(re.compile(rf"/nights/{coming.pk}/$"))
