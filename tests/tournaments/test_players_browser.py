"""A player's page in a real browser: a phone reads ratings, the chart and head-to-head,
and pages back to older games."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from playwright.sync_api import Page, expect

from accounts.models import User
from tests.tournaments.test_people_ratings import rated_game
from tests.tournaments.test_player_games import copies
from tournaments import people_ratings, players

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


def test_a_player_with_many_games_pages_back_to_the_older_ones(
    open_page: Callable[..., Page], alice: User, bob: User
) -> None:
    newest = rated_game(alice, bob)
    oldest = copies(newest, players.RECENT)[-1]  # one game more than the page lists

    page = open_page("/players/alice/")
    expect(page.get_by_text(f"Game {oldest.pk}", exact=True)).to_have_count(0)
    page.get_by_role("link", name="Older games").click()

    expect(page.get_by_role("heading", name="alice: games online")).to_be_visible()
    expect(page.get_by_text("Page 2 of 2, newest first: 51 games in all.")).to_be_visible()
    expect(page.get_by_role("link", name=f"Game {oldest.pk}", exact=True)).to_be_visible()
    assert page.evaluate("document.documentElement.scrollWidth") <= 360
    page.screenshot(path="/tmp/player-games.png", full_page=True)
    page.get_by_role("link", name="Newer games").click()
    expect(page.get_by_role("link", name=f"Game {newest.pk}", exact=True)).to_be_visible()
