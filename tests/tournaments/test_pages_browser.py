"""Every club page, filled by the demo data ``make run`` seeds, in Chromium, in English and
in German: it loads without an error, shows something, and fits a 360 px phone without
sideways scrolling."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from django.core.management import call_command
from playwright.sync_api import Page

from games.models import Game
from tournaments.management.commands.seed_demo import DEMO_PASSWORD
from tournaments.models import GameNight, League, Season, Tournament

pytestmark = pytest.mark.django_db(transaction=True)
# Every control a person can use has a name a screen reader reads out.
UNLABELLED = """Array.from(document.querySelectorAll(
    'input:not([type=hidden]), select, textarea, button'))
  .filter(e => !(e.labels && e.labels.length) && !e.getAttribute('aria-label')
               && !(e.tagName === 'BUTTON' && e.textContent.trim()))
  .map(e => e.outerHTML.slice(0, 80))"""


def demo_pages() -> list[str]:
    league = League.objects.get(slug="tuesday")
    season = Season.objects.get(league=league)
    nights = list(GameNight.objects.filter(season=season).order_by("date"))
    sheet = Game.objects.filter(competition_entries__night=nights[0]).first()
    assert sheet is not None
    cup = Tournament.objects.get(league=league)
    player = season.competition.competitors.order_by("number").first()
    assert player is not None
    return [
        "/",
        "/leagues/",
        "/leagues/new/",
        f"/leagues/{league.slug}/",
        f"/leagues/{league.slug}/roster/",
        f"/leagues/{league.slug}/seasons/new/",
        f"/seasons/{season.pk}/",
        f"/seasons/{season.pk}/standings/",
        f"/seasons/{season.pk}/players/{player.pk}/",
        *(f"/nights/{n.pk}/" for n in nights),
        f"/nights/{nights[0].pk}/standings/",
        f"/nights/{nights[0].pk}/seating/",
        f"/nights/{nights[0].pk}/projector/",
        f"/sheets/{sheet.pk}/",
        "/tournaments/",
        f"/tournaments/new/?league={league.slug}",
        f"/tournaments/{cup.pk}/",
        f"/tournaments/{cup.pk}/standings/",
        "/games/",
        "/ladder/",
    ]


@pytest.mark.parametrize(("locale", "language"), [("en-US", "en"), ("de-DE", "de")])
def test_every_club_page_of_the_demo_fits_a_phone_and_loads_cleanly(
    open_page: Callable[..., Page], locale: str, language: str
) -> None:
    call_command("seed_demo", "--url", "http://testserver/", verbosity=0)
    assert Tournament.objects.filter(status=Tournament.Status.FINISHED).exists()
    page = open_page("/sign-in/", locale=locale)
    problems: list[str] = []
    page.on("console", lambda m: problems.append(m.text) if m.type == "error" else None)
    page.locator("#id_username").fill("olga")
    page.locator("#id_password").fill(DEMO_PASSWORD)
    page.locator("form.card button[type=submit]").click()
    page.wait_for_url("**/")

    for path in demo_pages():
        response = page.goto(path)
        assert response is not None
        assert response.status == 200, path
        assert page.locator("html").get_attribute("lang") == language, path
        assert page.locator("h1").count() == 1, path
        width = page.evaluate("document.documentElement.scrollWidth")
        assert width <= 360, f"{path} is {width} px wide at a 360 px phone in {locale}"
        assert page.evaluate(UNLABELLED) == [], f"{path} has inputs without a label"
    assert problems == []
