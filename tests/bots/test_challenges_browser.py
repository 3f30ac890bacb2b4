"""Challenges in Chromium at a 360 px phone: an owner goes from their bot's page to a new
challenge, sees every field error at once with their choices kept, starts it, sees its
deals "not played yet", and, once they are played, a row per deal with each entrant's
place and the replays. Screenshots are saved for a person to look at."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from accounts.models import User
from bots import runner
from bots.models import Challenge
from cya_site import dispatch
from tests.bots.bot_servers import builtin_version
from tests.bots.test_bot_pages_browser import assert_fits_a_phone, sign_in
from tests.browser import SCREENSHOTS

pytestmark = pytest.mark.usefixtures("transactional_db")


@pytest.fixture
def sent(monkeypatch: pytest.MonkeyPatch) -> list[tuple[Any, tuple[Any, ...]]]:
    """Tasks the pages send (no worker runs here): recorded, never queued."""
    tasks: list[tuple[Any, tuple[Any, ...]]] = []
    monkeypatch.setattr(dispatch, "send", lambda task, args=(), **_: tasks.append((task, args)))
    return tasks


def shot(page: Page, name: str) -> None:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / f"challenge-{name}.png"), full_page=True)


def test_an_owner_challenges_from_a_phone_and_reads_the_deals(
    open_page: Callable[..., Page],
    alice: User,
    bob: User,
    sent: list[tuple[Any, tuple[Any, ...]]],
) -> None:
    builtin_version(alice, "alices-bot", "greedy")
    builtin_version(bob, "bobs-bot", "random")
    page = open_page("/sign-in/?next=/bots/bobs-bot/")
    sign_in(page, "alice")
    page.wait_for_url("**/bots/bobs-bot/")
    page.get_by_role("link", name="Challenge this bot").click()
    page.wait_for_url("**/challenges/new/?opponent=*")
    expect(page.get_by_label("Opponent 1")).to_have_value(re.compile(r"^version:\d+$"))
    assert_fits_a_phone(page)
    shot(page, "new")

    page.get_by_label("Opponent 2").select_option("strategy:shark")
    page.get_by_label("Opponent 3").select_option("strategy:shark")
    page.get_by_label("Deals", exact=True).fill("50")
    page.get_by_role("button", name="Start the challenge").click()

    form = page.locator("#new-challenge")
    expect(form.locator("#id_opponent_3_error")).to_contain_text("Already chosen")
    expect(form.locator("#id_deals_error")).to_contain_text("20")
    expect(page.get_by_label("Opponent 3")).to_have_value("strategy:shark")
    expect(page.get_by_label("Deals", exact=True)).to_have_value("50")
    assert_fits_a_phone(page)
    shot(page, "errors")

    page.get_by_label("Opponent 3").select_option("")
    page.get_by_label("Deals", exact=True).fill("2")
    expect(page.locator("details")).to_have_attribute("open", "")  # unfolded by the errors
    page.get_by_label("How a game ends").select_option("quick")
    page.get_by_role("button", name="Start the challenge").click()

    page.wait_for_url(re.compile(r".*/challenges/\d+/$"))
    deals = page.locator("#deals")
    expect(deals.locator("tbody")).to_have_count(2)
    expect(deals).to_contain_text("not played yet")
    expect(deals.get_by_role("link")).to_have_count(0)
    assert_fits_a_phone(page)
    shot(page, "scheduled")
    challenge = Challenge.objects.get()
    assert len(sent) == 2
    for deal in challenge.deal_rows.select_related("match"):
        runner.run_match(deal.match)

    page.reload()
    expect(page.locator("#challenge-status")).to_have_text("finished")
    expect(deals.get_by_role("link", name=re.compile(r"^Game \d$"))).to_have_count(6)
    expect(deals).not_to_contain_text("not played yet")
    expect(deals.locator("#deal-1")).to_contain_text("place 1")
    assert_fits_a_phone(page)
    shot(page, "finished")
    deals.get_by_role("link", name="Game 1").first.click()
    page.wait_for_url(re.compile(r".*/games/\d+/replay/$"))
