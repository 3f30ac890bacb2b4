"""A player's page in a real browser: a phone reads ratings, the chart and head-to-head."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from playwright.sync_api import Page, expect

from accounts.models import User
from tests.tournaments.test_people_ratings import rated_game
from tournaments import people_ratings

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_player_reads_their_page_and_compares_with_an_opponent(
    open_page: Callable[..., Page], alice: User, bob: User
) -> None:
    for winner, loser in ((alice, bob), (bob, alice), (alice, bob)):
        people_ratings.online_game_rate(game_id=rated_game(winner, loser).pk)

    page = open_page("/players/alice/")

    expect(page.get_by_role("heading", name="alice", exact=True)).to_be_visible()
    expect(page.get_by_role("img", name="Rating after each rated game")).to_be_visible()
    page.get_by_text("Latest online rating changes").click()
    expect(page.get_by_text("Expected place 1.5 of 2").first).to_be_visible()
    page.get_by_label("Against").fill("bob")
    page.get_by_role("button", name="Compare").click()
    expect(page.get_by_role("status")).to_contain_text(
        "Against bob: 3 games, 2 finished above, 1 below, 0 level."
    )
    page.locator('a[href="/players/bob/"]').first.click()
    expect(page.get_by_role("heading", name="bob", exact=True)).to_be_visible()
    assert page.evaluate("document.documentElement.scrollWidth") <= 360
    page.screenshot(path="/tmp/player.png", full_page=True)
