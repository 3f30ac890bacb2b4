"""A newcomer plays against the built-in bots in Chromium, from the home page to the end.

The bots are moved by the session's real Celery worker (bots.play_turn, one move every
TEST_BOT_MOVE_DELAY_MS), and their moves reach the page through the game's stream; the
person plays by clicking the first of their legal actions each time it is their turn.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable

import pytest
from playwright.sync_api import Page, expect

from accounts.models import User
from bots.models import SeatControl
from games import services as game_services
from games.models import Event, Game

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.usefixtures("celery_worker"),
]
PASSWORD = "a long enough password"
GIVE_UP_SECONDS = 300


def register_from_the_lobby(page: Page, username: str) -> None:
    page.get_by_role("link", name="register", exact=True).click()
    page.get_by_label("Username").fill(username)
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Create the account").click()
    expect(page).to_have_url(re.compile(r"/play/$"))


def open_a_quick_table(page: Page, seats: int) -> Game:
    page.get_by_label("Players at the table, you included").select_option(str(seats))
    page.locator("summary", has_text="Rules and clock").click()
    page.get_by_label("How a game ends").select_option("quick")
    page.get_by_role("button", name="Open the table").click()
    expect(page).to_have_url(re.compile(r"/games/\d+/$"))
    found = re.search(r"/games/(\d+)/$", page.url)
    assert found is not None
    return Game.objects.get(pk=int(found.group(1)))


def play_by_clicking(page: Page) -> list[str]:
    """Click the first legal action whenever one is offered, until the game is over;
    the titles of the control groups offered along the way."""
    offered: list[str] = []
    give_up = time.monotonic() + GIVE_UP_SECONDS
    board = page.locator("#board")
    while board.get_attribute("data-status") == "active":
        assert time.monotonic() < give_up, "the game did not end"
        buttons = page.locator("#board .controls button")
        if buttons.count() == 0:
            page.wait_for_timeout(100)  # a bot's move, coming through the stream
            continue
        offered += page.locator("#board .controls legend").all_inner_texts()
        version = board.get_attribute("data-version")
        buttons.first.click()
        page.wait_for_function(
            "v => document.querySelector('#board')?.dataset.version !== v", arg=version
        )
    return offered


def test_a_newcomer_goes_from_the_home_page_to_a_finished_game_against_three_bots(
    open_page: Callable[..., Page],
) -> None:
    page = open_page("/")
    page.get_by_role("link", name="Play against bots").click()
    register_from_the_lobby(page, "newcomer")

    game = open_a_quick_table(page, seats=4)
    expect(page.locator("#board")).to_contain_text("Your hand")
    offered = play_by_clicking(page)

    expect(page.get_by_role("link", name="Watch the replay")).to_be_visible()
    game.refresh_from_db()
    assert game.status == Game.Status.FINISHED
    assert game.bot_seats == [1, 2, 3]
    person = User.objects.get(username="newcomer")
    origins = Event.objects.filter(game=game).values_list("actor", "origin")
    assert (person.pk, "web") in set(origins)  # the clicks were the person's actions
    assert {o for _, o in origins} >= {"deal", "builtin"}
    assert offered  # the person had decisions to make
    controls = SeatControl.objects.filter(seat__game=game).values_list("strikes", flat=True)
    assert list(controls) == [0, 0, 0]


def test_a_two_seat_game_against_a_bot_offers_the_draft_and_ends(
    open_page: Callable[..., Page],
) -> None:
    page = open_page("/play/")
    register_from_the_lobby(page, "drafter")

    game = open_a_quick_table(page, seats=2)
    offered = play_by_clicking(page)

    assert "Draft a set from the piles" in offered  # RULES #34: 2021 rules, two seats
    game.refresh_from_db()
    assert game.status == Game.Status.FINISHED
    assert game.rules["seats"] == 2

    # what if? play on from step 3 of its replay, everything hidden dealt again
    page.get_by_role("link", name="Watch the replay").click()
    page.wait_for_load_state()  # the viewer's keys work once its script has run
    for _ in range(3):
        page.keyboard.press("ArrowRight")
    expect(page.locator("#replay-board")).to_have_attribute("data-step", "3")
    page.get_by_role("link", name="Play on from here…").click()
    page.get_by_label("Deal again everything no seat has seen (the deck and the hands)").check()
    page.get_by_role("button", name="Open the table").click()
    expect(page).to_have_url(re.compile(r"/games/\d+/$"))
    forked = Game.objects.get(forked_from=game)
    assert (forked.fork_step, forked.fork_redeal, forked.bot_seats) == (3, True, [1])
    expect(page.locator("#board")).to_contain_text("Your hand")
    staff = User.objects.create_user(username="staff", is_staff=True)
    game_services.game_abort(game=forked, by=staff, reason="test over")  # its stream ends
    expect(page.locator("#board")).to_contain_text("The game was aborted.")
