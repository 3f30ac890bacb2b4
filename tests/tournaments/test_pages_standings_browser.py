"""The standings page in a real browser, on a 360 px phone, by keyboard only: go back to
the end of a day with the date picker, and back to now; rank, name, games and points in
view with the rest a tap away; and no column clipped at 1280 px."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable

import pytest
import time_machine
from playwright.sync_api import Page, expect

from accounts.models import User
from tests.browser import SCREENSHOTS
from tests.tournaments.conftest import Club, settled_game
from tournaments import recording

pytestmark = pytest.mark.django_db(transaction=True)

# In the past, so that the end of the day is over for the live server, which runs on the
# real clock.
DAY_ONE = dt.datetime(2024, 5, 1, 19, 0, tzinfo=dt.UTC)


def test_a_visitor_goes_back_to_a_day_and_back_to_now_by_keyboard_on_a_phone(
    open_page: Callable[..., Page], club: Club, olga: User
) -> None:
    with time_machine.travel(DAY_ONE, tick=False):
        game = settled_game(club, olga, ["Alice", "Bob"], [100_000, 50_000])
    with time_machine.travel(DAY_ONE + dt.timedelta(days=1), tick=False):
        recording.round_correct(
            game=game, round_number=1, by=olga, dollars=[50_000, 100_000], reason="swapped"
        )
    page = open_page(f"/seasons/{club.season.pk}/standings/")
    first = page.locator("table.standings tbody tr").first
    expect(first).to_contain_text("Bob")

    page.get_by_text("Audit trail: as recorded at an earlier time").focus()
    page.keyboard.press("Enter")  # the audit clock folds away under its summary
    page.get_by_label("As recorded at the end of", exact=True).focus()
    page.keyboard.type("05012024")  # Chromium's en-US date field: month, day, year
    page.keyboard.press("Enter")

    heading = "Every game played so far · as recorded at the end of May 1, 2024"
    expect(page.get_by_role("heading", name=heading)).to_be_visible()
    expect(first).to_contain_text("Alice")
    expect(page.get_by_label("As recorded at the end of", exact=True)).to_have_value("2024-05-01")
    assert page.evaluate("document.documentElement.scrollWidth") <= 360

    back = page.get_by_role("link", name="Back to now")
    back.focus()
    page.keyboard.press("Enter")

    expect(page.get_by_role("heading", name="Every game played so far", exact=True)).to_be_visible()
    expect(first).to_contain_text("Bob")


def four_at_a_table(club: Club, olga: User) -> None:
    """Two games of the four: ties that need tie-breaks in words."""
    settled_game(club, olga, ["Alice", "Bob", "Carol", "Dora"], [300_000, 200_000, 100_000, 0])
    settled_game(club, olga, ["Dora", "Carol", "Bob", "Alice"], [300_000, 200_000, 100_000, 0])


def test_a_phone_shows_rank_name_games_and_points_and_the_rest_on_a_tap(
    open_page: Callable[..., Page], club: Club, olga: User
) -> None:
    four_at_a_table(club, olga)
    for path in (f"/seasons/{club.season.pk}/standings/", f"/nights/{club.night.pk}/standings/"):
        page = open_page(path)
        table = page.locator("table.standings")
        headers = [h for h in table.locator("thead th").all() if h.is_visible()]
        shown = [h.inner_text() for h in headers]
        assert shown[:4] == ["#", "Player", "Games", "Points"]
        assert "DSI" not in shown
        wrap = page.locator(".table-wrap").first
        assert wrap.evaluate("e => e.scrollWidth <= e.clientWidth"), path  # nothing cut off
        table.locator("td.tap summary").first.click()
        expect(table.locator("details[open] dt", has_text="DSI")).to_be_visible()
        page.screenshot(path=str(SCREENSHOTS / f"standings-360-{path.split('/')[1]}.png"))


def test_no_standings_column_is_clipped_at_1280(
    open_page: Callable[..., Page], club: Club, olga: User
) -> None:
    four_at_a_table(club, olga)
    for path in (f"/seasons/{club.season.pk}/standings/", f"/nights/{club.night.pk}/standings/"):
        page = open_page(path, size={"width": 1280, "height": 800})
        wrap = page.locator(".table-wrap").first
        assert wrap.evaluate("e => e.scrollWidth <= e.clientWidth"), path
        expect(page.locator("table.standings th", has_text="Decided by")).to_be_visible()
        expect(page.locator("table.standings .tap").first).to_be_hidden()
