"""A newcomer plays against the built-in bots in Chromium as a guest, from the home page
to the result, at phone and desktop size, and keeps the game by registering.

The bots are moved by the session's real Celery worker (bots.play_turn, one move every
TEST_BOT_MOVE_DELAY_MS), and their moves reach the page through the game's stream; the
person plays by tapping cards each time it is their turn.
"""

from __future__ import annotations

import random
import re
import time
from collections.abc import Callable

import pytest
from playwright.sync_api import Page, expect

from accounts.models import User
from bots.models import SeatControl
from games import services as game_services
from games.models import Event, Game
from tests.browser import DESKTOP, PHONE
from tests.cardtable import FITS, check_nothing_hidden_shows, tap_a_move

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.usefixtures("celery_worker"),
]
PASSWORD = "a long enough password"
GIVE_UP_SECONDS = 300


def register_from_the_lobby(page: Page, username: str) -> None:
    page.get_by_role("link", name="Register", exact=True).first.click()
    page.get_by_label("Username").fill(username)
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Create the account").click()


def open_a_quick_table(page: Page, seats: int, button: str = "Play as a guest") -> Game:
    page.get_by_label("Players at the table, you included").select_option(str(seats))
    page.locator("summary", has_text="Rules and clock").click()
    page.get_by_label("How a game ends").select_option("quick")
    page.get_by_role("button", name=button).click()
    expect(page).to_have_url(re.compile(r"/games/\d+/$"))
    found = re.search(r"/games/(\d+)/$", page.url)
    assert found is not None
    return Game.objects.get(pk=int(found.group(1)))


def play_by_tapping(page: Page, game: Game, seat: int) -> list[str]:
    """Tap cards whenever it is the person's turn until the game is over, checking the
    table shows nothing hidden; the moves made."""
    made: list[str] = []
    rng = random.Random(seat)
    give_up = time.monotonic() + GIVE_UP_SECONDS
    board = page.locator("#board")
    while board.get_attribute("data-status") == "active":
        assert time.monotonic() < give_up, "the game did not end"
        if not board.get_attribute("data-yours"):
            page.wait_for_timeout(100)  # a bot's move, coming through the stream
            continue
        game.refresh_from_db()
        check_nothing_hidden_shows(page, game, seat)
        assert page.evaluate(FITS), "the table scrolls sideways"
        version = board.get_attribute("data-version")
        made.append(tap_a_move(page, rng, prefer=r"^(Draft|Challenge|Pair)"))
        page.wait_for_function(
            "v => document.querySelector('#board')?.dataset.version !== v", arg=version
        )
    return made


def test_a_newcomer_plays_three_bots_as_a_guest_then_registers_and_keeps_the_game(
    open_page: Callable[..., Page],
) -> None:
    page = open_page("/", size=PHONE)
    page.get_by_role("link", name="Play against bots").click()

    game = open_a_quick_table(page, seats=4)
    expect(page.locator("#hand")).to_be_visible()
    made = play_by_tapping(page, game, 0)

    expect(page.locator("#result")).to_contain_text("wins")
    expect(page.get_by_role("link", name="Watch the replay")).to_be_visible()
    game.refresh_from_db()
    assert game.status == Game.Status.FINISHED
    assert game.bot_seats == [1, 2, 3]
    guest = game.seats.get(number=0).user
    assert guest is not None
    assert guest.is_guest
    origins = Event.objects.filter(game=game).values_list("actor", "origin")
    assert (guest.pk, "web") in set(origins)  # the taps were the guest's actions
    assert {o for _, o in origins} >= {"deal", "builtin"}
    assert made  # the person had decisions to make

    page.goto("/play/")
    expect(page.locator("main")).to_contain_text("You are playing as a guest.")
    register_from_the_lobby(page, "newcomer")
    person = User.objects.get(username="newcomer")
    assert person.pk == guest.pk  # the guest became the account
    assert not person.is_guest
    assert game.seats.get(number=0).user == person
    controls = SeatControl.objects.filter(seat__game=game).values_list("strikes", flat=True)
    assert list(controls) == [0, 0, 0]


def test_a_guest_at_a_two_seat_table_against_a_bot_drafts_and_forks_the_replay(
    open_page: Callable[..., Page],
) -> None:
    page = open_page("/play/", size=DESKTOP)

    game = open_a_quick_table(page, seats=2)  # as a guest
    made = play_by_tapping(page, game, 0)

    assert any(m.startswith("Draft") for m in made)  # RULES #34: 2021 rules, two seats
    game.refresh_from_db()
    assert game.status == Game.Status.FINISHED
    assert game.rules["seats"] == 2

    # what if? play on from step 3 of its replay, everything hidden dealt again
    page.get_by_role("link", name="Watch the replay").click()
    expect(page.locator("#replay-board")).to_be_visible()  # the viewer, not the game page
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
    expect(page.locator("#hand")).to_be_visible()
    staff = User.objects.create_user(username="staff", is_staff=True)
    game_services.game_abort(game=forked, by=staff, reason="test over")  # its stream ends
    expect(page.locator("#board")).to_contain_text("The game was aborted.")


# Every board the page draws, in order: #board is replaced whole at each change.
RECORD_VERSIONS = """() => {
  window.drawnVersions = [];
  const note = () => {
    const v = Number(document.getElementById('board')?.dataset.version);
    if (v !== window.drawnVersions.at(-1)) window.drawnVersions.push(v);
  };
  new MutationObserver(note).observe(document.body, { childList: true, subtree: true });
  note();
}"""


# The page's fetches of its board: those that bring the board the page showed when it
# asked are counted (``window.again``), and those that come when the page already shows
# that board are answered late, not until the page has drawn a newer one, as when the
# person's move is answered first. In the page, so the test's own taps go on meanwhile.
ANSWER_LATE = """(() => {
  const fetchNow = window.fetch;
  const shown = () => Number(document.getElementById('board')?.dataset.version);
  const pause = (ms) => new Promise((done) => setTimeout(done, ms));
  window.again = 0;
  window.fetch = async (url, options) => {
    const asked = shown();
    const response = await fetchNow(url, options);
    if (!/\\/board\\/$/.test(String(url))) return response;
    const html = await response.text();
    const version = Number((/data-version="(\\d+)"/.exec(html) || [])[1]);
    if (version === asked) window.again += 1;
    if (version === shown()) {
      const until = performance.now() + 5000;
      while (shown() <= version && performance.now() < until) await pause(50);
    }
    return new Response(html, { status: response.status, headers: response.headers });
  };
})()"""


def test_a_persons_turn_draws_its_board_once_and_never_goes_back_to_an_older_one(
    open_page: Callable[..., Page],
) -> None:
    """A person's turn comes as two stream lines (the game's update, the seat's decision).
    The board drawn for the first already shows the second: fetching it again would drop
    the cards the person is tapping, and, answered after the person's move, would be
    older than the move's own answer; the page must not go back to it."""
    page = open_page("/play/", size=DESKTOP)
    page.add_init_script(ANSWER_LATE)
    game = open_a_quick_table(page, seats=4)
    page.evaluate(RECORD_VERSIONS)
    board = page.locator("#board")
    rng = random.Random(1)
    for _ in range(3):  # three of the person's turns
        expect(page.locator("#board[data-yours]")).to_be_attached(timeout=30_000)
        version = board.get_attribute("data-version")
        tap_a_move(page, rng)
        page.wait_for_function(
            "v => document.querySelector('#board')?.dataset.version !== v", arg=version
        )
    page.wait_for_timeout(2000)  # any board still held back has come

    drawn = page.evaluate("window.drawnVersions")
    assert drawn == sorted(drawn), drawn  # never back to an older board
    assert page.evaluate("window.again") == 0  # no board fetched that was shown already
    staff = User.objects.create_user(username="staff", is_staff=True)
    game_services.game_abort(game=game, by=staff, reason="test over")  # its stream ends
    expect(page.locator("#board")).to_contain_text("The game was aborted.")
