"""The game page in a real browser, at phone and desktop size: two people play a game to
its end by tapping cards (the 2021 draft of two seats included) while every response
either page loads, and the page itself at every step, is checked for hidden
information; a signed-out visitor watches a game change without reloading and steps
through its replay; two tabs on one seat stay in step and never play a stale or doubled
action."""

from __future__ import annotations

import json
import random
import re
from collections.abc import Callable, Iterator
from types import SimpleNamespace
from typing import Any

import pytest
from django.test import Client
from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import Page, Response, ViewportSize, expect

from accounts.models import User
from games import selectors, services, store
from games.engine import RuleSet, action_to_json, legal_actions
from games.engine.cards import EDITIONS
from games.models import Event, Game
from games.services import tables
from tests.browser import DESKTOP, PHONE
from tests.cardtable import FITS, LIVE, check_nothing_hidden_shows, compose, tap_a_move

pytestmark = pytest.mark.django_db(transaction=True)
QUICK = RuleSet.preset("2021", seats=2, ending="quick")
HAND = re.compile(r'<ul class="hand" id="hand"[^>]*>(.*?)</ul>', re.S)
CARD = re.compile(r'data-card="([a-z_]+)"')
VERSION = re.compile(r'<section id="board" class="board[^"]*" data-version="(\d+)"')
SIZES = [pytest.param(PHONE, id="phone"), pytest.param(DESKTOP, id="desktop")]


@pytest.fixture
def signed_in(open_page: Callable[..., Page], live_server: Any) -> Callable[..., Page]:
    """``signed_in(user, path, size=PHONE)``: a page in a fresh browser context with
    ``user``'s session (signing in by form is tested with the accounts pages)."""

    def open_(user: User, path: str, size: ViewportSize | None = None) -> Page:
        page = open_page("", size=size)
        client = Client()
        client.force_login(user)
        session = client.cookies["sessionid"].value
        page.context.add_cookies([{"name": "sessionid", "value": session, "url": live_server.url}])
        page.goto(path)
        return page

    return open_


Kept = list[tuple[str, Response, bytes | None]]
# The browser keeps no body of a response read as a stream, so the page keeps what its
# stream reader was given, chunk by chunk, exactly as the live script read it.
RECORD_STREAMS = """
window.streamed = [];
const read = ReadableStreamDefaultReader.prototype.read;
ReadableStreamDefaultReader.prototype.read = function () {
  return read.call(this).then((chunk) => {
    if (chunk.value) window.streamed.push(new TextDecoder().decode(chunk.value));
    return chunk;
  });
};
"""


# the seed the people's game is dealt with (games.services.tables.game_start): a long
# one, since no page may show the seed
DEAL = 8154023917645311


def kept(page: Page, into: Kept, who: str) -> None:
    """Keep every response the page receives with its body, read as it arrives (a page
    that navigates drops the bodies of what it loaded before). A stream's body is whole
    only once it ends: those are read at the end (``body``)."""

    def keep(response: Response) -> None:
        streamed = "x-ndjson" in (response.headers.get("content-type") or "")
        redirect = 300 <= response.status < 400
        into.append((who, response, None if streamed or redirect else response.body()))

    page.on("response", keep)


def body(response: Response, read: bytes | None) -> bytes | None:
    """A response's body; None for a redirect, which has none, and for a stream the page
    let go of when it navigated (the browser keeps no body of a cancelled request)."""
    if read is not None or 300 <= response.status < 400:
        return read
    try:
        return response.body()
    except PlaywrightError:
        if "x-ndjson" in (response.headers.get("content-type") or ""):
            return None
        raise


def values(tree: Any, key: str) -> Iterator[Any]:
    if isinstance(tree, dict):
        for name, value in tree.items():
            if name == key:
                yield value
            yield from values(value, key)
    elif isinstance(tree, list):
        for value in tree:
            yield from values(value, key)


def act_first(game: Game, users: dict[int, User]) -> None:
    """The seat to act plays its first legal action (outside the browser)."""
    game.refresh_from_db()
    state = store.load_state(game)
    action = action_to_json(legal_actions(state)[0], state.rules.edition)
    services.action_submit(
        game_id=game.pk, user=users[state.to_act], action=action, version=game.version
    )


@pytest.mark.parametrize("size", SIZES)
def test_two_people_play_a_game_to_its_end_by_tapping_cards_and_nothing_hidden_reaches_them(
    signed_in: Callable[..., Page],
    alice: User,
    bob: User,
    size: ViewportSize,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # a deal in which the taps below draft and pair (a random one sometimes has no pair)
    monkeypatch.setattr(tables, "secrets", SimpleNamespace(randbits=lambda bits: DEAL))
    game = services.game_create(by=alice, rules=QUICK)
    responses: Kept = []
    pages = {0: signed_in(alice, f"/games/{game.pk}/", size)}
    pages[1] = signed_in(bob, f"/games/{game.pk}/", size)
    for seat, page in pages.items():
        kept(page, responses, str(seat))
        page.context.add_init_script(RECORD_STREAMS)
    pages[1].get_by_role("button", name="Take a seat").click()
    pages[0].reload()
    expect(pages[0].locator("ol.lobby")).to_contain_text("bob")
    pages[0].get_by_role("button", name="Start the game").click()
    expect(pages[0].locator("#hand")).to_be_visible()
    expect(pages[1].locator("#hand")).to_be_visible(timeout=LIVE)

    rng = random.Random(28)
    played: list[str] = []
    for _ in range(400):
        game.refresh_from_db()
        if game.status != Game.Status.ACTIVE:
            break
        assert game.to_act is not None
        page = pages[game.to_act]
        expect(page.locator("#board")).to_have_attribute(
            "data-version", str(game.version), timeout=LIVE
        )
        for seat, each in pages.items():
            check_nothing_hidden_shows(each, game, seat)  # the page itself, at every step
        assert page.evaluate(FITS), "the table scrolls sideways"
        expect(page.locator("#hand")).to_be_in_viewport()  # the hand is always in view
        played.append(tap_a_move(page, rng, prefer=r"^(Draft|Challenge|Pair)"))
        expect(page.locator("#board")).not_to_have_attribute(
            "data-version", str(game.version), timeout=LIVE
        )
    game.refresh_from_db()

    assert game.status == Game.Status.FINISHED
    assert any(p.startswith("Draft") for p in played), "no draft was ever made"
    assert any(p.startswith("Pair") for p in played), "no pair was ever made"
    for page in pages.values():
        expect(page.locator("#result")).to_contain_text("Watch the replay", timeout=LIVE)
    assert Event.objects.filter(game=game, origin="web").count() == game.version
    streamed = {seat: "".join(page.evaluate("window.streamed")) for seat, page in pages.items()}
    _check_nothing_hidden_arrived(game, responses, streamed)


def _check_nothing_hidden_arrived(game: Game, responses: Kept, streamed: dict[int, str]) -> None:
    """Every body either page loaded: no seed, no state, no other hand. A page's hand is
    the engine's observation of the viewer's own seat at the version the board shows."""
    edition = EDITIONS["2021"]
    hands_checked = observations = 0
    for who, response, read in responses:
        data = body(response, read)
        if data is None:
            continue
        text = data.decode(errors="replace")
        assert str(game.seed) not in text, response.url
        for word in ('"hands"', '"deck":', '"seed"'):
            assert word not in text, (response.url, word)
        seat = int(who)
        for version, hand in zip(VERSION.findall(text), HAND.findall(text), strict=False):
            view = selectors.replay_view(game, seat, int(version))
            assert CARD.findall(hand) == view["hand"], (response.url, version)
            assert all(edition.card(k).name in hand for k in view["hand"])
            hands_checked += 1
    for seat, text in streamed.items():  # since each page last loaded: the game's start
        assert str(game.seed) not in text
        for line in filter(None, text.splitlines()):
            message = json.loads(line)
            assert list(values(message, "hands")) == []
            for seen in values(message, "observation"):
                assert seen["seat"] == seat
                expected = selectors.replay_view(game, seat, seen["version"])
                assert seen["hand"] == expected["hand"]
                observations += 1
    assert hands_checked >= game.version  # every board each seat was shown
    assert observations > 0  # the streams' decisions carry the seat's own view


def test_a_signed_out_visitor_watches_live_then_steps_through_the_replay(
    open_page: Callable[..., Page], alice: User, bob: User
) -> None:
    game = services.game_create(by=alice, rules=QUICK)
    services.game_join(game=game, user=bob)
    game = services.game_start(game=game, by=alice)
    users = {0: alice, 1: bob}
    page = open_page(f"/games/{game.pk}/")
    page.evaluate("window.stayed = true")  # gone if the page reloads
    expect(page.locator("#hand")).to_have_count(0)

    for _ in range(3):
        act_first(game, users)
        game.refresh_from_db()
        expect(page.locator("#board")).to_have_attribute(
            "data-version", str(game.version), timeout=LIVE
        )
        for _ in range(8):  # while the cards fly in (animate.js)
            assert page.evaluate(FITS), "a card flying in makes the page scroll sideways"
            page.wait_for_timeout(50)
    while game.status == Game.Status.ACTIVE:
        act_first(game, users)
        game.refresh_from_db()
    expect(page.locator("#board")).to_contain_text("Watch the replay", timeout=LIVE)
    assert page.evaluate("window.stayed") is True
    assert page.evaluate(FITS), "the game page scrolls sideways at phone width"
    page.get_by_role("link", name="Watch the replay").click()
    page.wait_for_load_state()  # the viewer's script runs before "load": keys work from here

    expect(page.locator("#replay-board")).to_contain_text(f"Step 0 of {game.version}")
    page.keyboard.press("End")
    expect(page.locator("#replay-board")).to_contain_text(f"Step {game.version} of")
    expect(page).to_have_url(re.compile(rf"\?step={game.version}$"))
    page.keyboard.press("ArrowLeft")
    expect(page.locator("#replay-board")).to_have_attribute("data-step", str(game.version - 1))
    page.keyboard.press("Home")
    page.keyboard.press("ArrowRight")
    expect(page.locator("#replay-board")).to_have_attribute("data-step", "1")
    page.get_by_label("Seen by").select_option(label="bob")
    expect(page).to_have_url(re.compile(r"\?step=1&seat=1$"))
    view = selectors.replay_view(game, 1, 1)
    names = [EDITIONS["2021"].card(k).name for k in view["hand"]]
    for name in names:
        expect(page.locator("#replay-board .hand")).to_contain_text(name)
    page.reload()  # the address opens at the step shown
    expect(page.locator("#replay-board")).to_have_attribute("data-step", "1")
    assert page.evaluate(FITS), "the replay scrolls sideways at phone width"


def test_two_tabs_on_one_seat_stay_in_step_and_never_play_twice(
    signed_in: Callable[..., Page], alice: User, bob: User, staff: User
) -> None:
    game = services.game_create(by=alice, rules=QUICK)
    services.game_join(game=game, user=bob)
    game = services.game_start(game=game, by=alice)
    users = {0: alice, 1: bob}
    while game.to_act != 0:
        act_first(game, users)
        game.refresh_from_db()
    first = signed_in(alice, f"/games/{game.pk}/")
    second = first.context.new_page()
    second.goto(f"/games/{game.pk}/")
    stale = signed_in(alice, f"/games/{game.pk}/")
    stale.route(re.compile(r"/stream/|/wait/"), lambda route: route.abort())
    stale.reload()  # this tab hears nothing: it keeps the version it was shown
    before = game.version
    for page in (first, second, stale):
        expect(page.locator("#board")).to_have_attribute("data-version", str(before))

    compose(first, random.Random(1)).dblclick()  # a double tap
    expect(first.locator("#board")).to_have_attribute("data-version", str(before + 1))
    expect(second.locator("#board")).to_have_attribute(
        "data-version", str(before + 1), timeout=LIVE
    )
    compose(stale, random.Random(1)).click()

    expect(stale.locator("#board")).to_contain_text("nothing was played")
    expect(stale.locator("#board")).to_have_attribute("data-version", str(before + 1))
    game.refresh_from_db()
    assert game.version == before + 1
    assert Event.objects.filter(game=game, seq__gt=before).count() == 1
    services.game_abort(game=game, by=staff, reason="test over")  # the streams end with it
    for page in (first, second):
        expect(page.locator("#board")).to_contain_text("The game was aborted.", timeout=LIVE)
