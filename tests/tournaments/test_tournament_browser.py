"""A club tournament created in a real browser at phone size, by keyboard: the organiser
opens the league, creates a round robin from the whole roster, starts it, and sees every
round's tables by name and the seating's quality; the pages fit a phone and a desktop."""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest
from playwright.sync_api import Page, expect

from games.engine import RuleSet
from tests.browser import DESKTOP, open_menu
from tests.factories import DEFAULT_PASSWORD, UserFactory
from tournaments import roster, services
from tournaments.models import League, Tournament

pytestmark = pytest.mark.django_db(transaction=True)
NAMES = ("Ada", "Ben", "Cleo", "Dan", "Eve", "Finn", "Gus", "Hana")


@pytest.fixture
def league() -> League:
    olga = UserFactory.create(username="olga")
    league = services.league_create(
        by=olga, name="Tuesday Club", slug="tuesday", rules=RuleSet.preset("2021", ending="quick")
    )
    for name in NAMES:
        roster.member_add(league=league, by=olga, name=name)
    return league


def sign_in(page: Page, username: str) -> None:
    page.get_by_label("Username").fill(username)
    page.get_by_label("Password").fill(DEFAULT_PASSWORD)
    page.get_by_label("Password").press("Enter")


def fits(page: Page) -> None:
    """Nothing wider than the screen: the page never scrolls sideways."""
    size = page.viewport_size
    assert size is not None
    assert page.evaluate("document.documentElement.scrollWidth") <= size["width"]


def test_an_organiser_creates_and_starts_a_tournament_by_keyboard(
    open_page: Callable[..., Page], league: League
) -> None:
    page = open_page("/leagues/tuesday/")
    open_menu(page)
    page.get_by_role("link", name="Sign in").first.click()
    sign_in(page, "olga")
    page.get_by_role("link", name="Create a tournament from the roster").focus()
    page.keyboard.press("Enter")
    expect(page.get_by_role("heading", name="A tournament of Tuesday Club")).to_be_visible()
    fits(page)

    page.get_by_label("Tournament name").focus()
    page.keyboard.type("Spring Cup")
    page.keyboard.press("Tab")  # the format: round robin is chosen; arrows would change it
    expect(page.get_by_role("radio", name=re.compile("^Round robin"))).to_be_focused()
    page.get_by_label("Rounds", exact=True).focus()
    page.keyboard.press("Control+a")
    page.keyboard.type("2")
    page.get_by_label("3", exact=True).focus()
    page.keyboard.press("Space")  # tables of 4 and 5: untick 3
    page.get_by_label("Everyone on the roster").focus()
    page.keyboard.press("Space")
    expect(page.get_by_label("Everyone on the roster")).to_be_checked()
    page.get_by_role("button", name="Create the tournament").focus()
    page.keyboard.press("Enter")

    expect(page.get_by_role("heading", name="Spring Cup")).to_be_visible()
    tournament = Tournament.objects.get()
    assert tournament.table_sizes == [4, 5]
    assert tournament.competition.competitors.count() == 8
    expect(page.locator("#players")).to_contain_text("Hana")
    page.get_by_role("button", name=re.compile("^Start")).click()

    expect(page.get_by_role("heading", name=re.compile("^Round 1"))).to_be_visible()
    for number in (1, 2):
        section = page.locator(f"#round-{number}")
        expect(section.locator(".table-card")).to_have_count(2)
    expect(page.locator("#round-1")).to_contain_text("Score sheet of table 1")
    expect(page.locator("#round-2")).to_contain_text("not started yet")
    expect(page.locator("#quality")).to_contain_text("Most meetings of any pair")
    fits(page)

    desktop = open_page(f"/tournaments/{tournament.pk}/", size=DESKTOP)
    expect(desktop.locator("#round-2 .table-card")).to_have_count(2)
    fits(desktop)
    desktop.goto("/tournaments/new/?league=tuesday")
    sign_in(desktop, "olga")
    expect(desktop.get_by_role("heading", name="A tournament of Tuesday Club")).to_be_visible()
    fits(desktop)
