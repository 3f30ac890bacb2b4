"""The round clock in a real browser: the organiser starts it on the desk at 360 px; a
player's sheet counts it down and shows the same time after a reload; the projector at
1920 x 1080 shows it big; at time the sheet says what the end policy means."""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable

import pytest
from playwright.sync_api import Page, expect

from tests.browser import SCREENSHOTS
from tests.tournaments.test_desk_browser import WIDE, night, sign_in_as_olga
from tournaments import tables
from tournaments.models import GameNight, RoundClock

pytestmark = pytest.mark.django_db(transaction=True)
__all__ = ["night"]  # the fixture, shared with the desk's browser test
SHOWN = re.compile(r"^(\d+:)?\d{1,2}:\d\d$")


def seconds(shown: str) -> int:
    parts = [int(p) for p in shown.split(":")]
    total = 0
    for part in parts:
        total = total * 60 + part
    return total


def test_the_clock_runs_on_the_desk_the_sheet_and_the_projector(
    open_page: Callable[..., Page], night: GameNight
) -> None:
    desk = open_page(f"/nights/{night.pk}/desk/")
    sign_in_as_olga(desk)
    desk.get_by_label("Minutes").fill("30")
    desk.get_by_label("stop at once").check()
    desk.get_by_role("button", name="Start the clock").click()
    expect(desk.get_by_role("button", name="Pause")).to_be_visible()
    timer = desk.get_by_role("timer")
    expect(timer).to_have_text(re.compile(r"^(30:00|29:5\d)$"))

    table = tables.night_rounds(night)[0].tables[0]
    sheet = open_page(f"/sheets/{table.game}/")
    sign_in_as_olga(sheet)
    shown = sheet.get_by_role("timer")
    expect(shown).to_have_text(SHOWN)
    first = seconds(shown.inner_text())
    sheet.wait_for_timeout(2_100)
    ticked = seconds(shown.inner_text())
    sheet.reload()
    after_reload = seconds(sheet.get_by_role("timer").inner_text())
    assert 1 <= first - ticked <= 3  # it counts down between polls
    assert abs(after_reload - ticked) <= 2  # and a reload reads the same server time
    assert sheet.evaluate("document.documentElement.scrollWidth") <= 360

    projector = open_page(f"/nights/{night.pk}/projector/", size=WIDE)
    big = projector.get_by_role("timer")
    expect(big).to_have_text(SHOWN)
    assert float(big.evaluate("e => getComputedStyle(e).fontSize").rstrip("px")) >= 24

    clock = RoundClock.objects.get()
    clock.started_at -= dt.timedelta(minutes=31)  # time is up
    clock.save(update_fields=["started_at"])
    sheet.reload()
    expect(sheet.get_by_text("Time is up: stop now.")).to_be_visible()
    expect(sheet.get_by_role("timer")).to_have_text("0:00")
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    sheet.screenshot(path=str(SCREENSHOTS / "clock-sheet-360.png"))
    desk.screenshot(path=str(SCREENSHOTS / "clock-desk-360.png"))
    projector.screenshot(path=str(SCREENSHOTS / "clock-projector-1920.png"))
