"""The card table in Chromium, at phone and desktop size: a challenge is a duel answered
or yielded, the end of a game is a result with Rematch, moves are made by keyboard
alone, an invite link seats a second browser, the replay steps, plays and autoplays,
changes animate from the stream (and do not when asked not to), the page plays without
JavaScript, and it is accessible (axe-core) and light."""

from __future__ import annotations

import gzip
import json
import re
from collections.abc import Callable
from typing import Any

import pytest
from django.test import Client
from playwright.sync_api import Page, Response, ViewportSize, expect

from accounts.models import User
from games import selectors, services, store
from games.engine import RuleSet, action_to_json, apply, legal_actions, new_game
from games.models import Game
from tests.accessibility import violations
from tests.browser import DESKTOP, PHONE
from tests.cardtable import FITS, LIVE, check_nothing_hidden_shows

pytestmark = pytest.mark.django_db(transaction=True)
SIZES = [pytest.param(PHONE, id="phone"), pytest.param(DESKTOP, id="desktop")]
DUEL_RULES = RuleSet.preset("2011", seats=2, ending="quick")
WEIGHT = 150_000  # bytes, compressed: HTML, CSS, scripts and card art of a first visit


@pytest.fixture
def signed_in(open_page: Callable[..., Page], live_server: Any) -> Callable[..., Page]:
    def open_(user: User, path: str, size: ViewportSize | None = None) -> Page:
        page = open_page("", size=size)
        client = Client()
        client.force_login(user)
        session = client.cookies["sessionid"].value
        page.context.add_cookies([{"name": "sessionid", "value": session, "url": live_server.url}])
        page.goto(path)
        return page

    return open_


def _act(game: Game, action: dict[str, Any]) -> Game:
    """The seat to act plays ``action`` (outside the browser)."""
    game.refresh_from_db()
    assert game.to_act is not None
    user = game.seats.get(number=game.to_act).user
    assert user is not None
    services.action_submit(game_id=game.pk, user=user, action=action, version=game.version)
    game.refresh_from_db()
    return game


def _first(game: Game) -> Game:
    state = store.load_state(game)
    return _act(game, action_to_json(legal_actions(state)[0], state.rules.edition))


def _pair_or_discard(legal: list[dict[str, Any]]) -> dict[str, Any]:
    return next((a for a in legal if a["type"] == "pair"), legal[0])


def _duel_position() -> tuple[int, list[dict[str, Any]], dict[str, Any]]:
    """A seed, the actions that lead to seat 0's turn with a challenge that seat 1 can
    answer, and that challenge: found with the engine (both seats pair when they can)."""
    for seed in range(500):
        state = new_game(DUEL_RULES, seed)
        path: list[dict[str, Any]] = []
        for _ in range(80):
            legal = [action_to_json(a, "2011") for a in legal_actions(state)]
            if state.to_act == 0:
                for code, action in zip(legal_actions(state), legal, strict=True):
                    if action["type"] == "challenge" and len(action["cards"]) == 1:
                        after, _ = apply(state, code)
                        answers = [action_to_json(a, "2011") for a in legal_actions(after)]
                        if any(a["type"] == "play" for a in answers):
                            return seed, path, action
            chosen = _pair_or_discard(legal)
            path.append(chosen)
            state, _ = apply(state, legal_actions(state)[legal.index(chosen)])
            if state.over:
                break
    raise AssertionError("no seed leads to a duel")


def _pair_started(alice: User, bob: User, staff: User, rules: RuleSet, seed: int) -> Game:
    game = services.game_create(by=alice, rules=rules)
    services.game_join(game=game, user=bob)
    return services.game_start(game=game, by=staff, seed=seed)


@pytest.mark.parametrize("size", SIZES)
def test_a_challenge_is_a_duel_of_both_sides_cards_answered_or_yielded(
    signed_in: Callable[..., Page], alice: User, bob: User, staff: User, size: ViewportSize
) -> None:
    seed, path, challenge = _duel_position()
    game = _pair_started(alice, bob, staff, DUEL_RULES, seed)
    for action in path:
        game = _act(game, action)
    page = signed_in(alice, f"/games/{game.pk}/", size)
    expect(page.locator("#board")).to_have_attribute("data-yours", "1")

    page.locator(f'#hand [data-card="{challenge["cards"][0]}"]').first.click()
    page.locator('[data-token="top-1"]').click()
    page.get_by_role("button", name=re.compile(r"^Challenge bob's top set with ")).click()
    duel = page.locator(".duel")
    expect(duel).to_contain_text("alice challenges bob's")
    expect(duel.locator(".play.challenger")).to_have_count(1)
    expect(duel).to_contain_text("bob answers or yields.")
    page.screenshot(path=f"var/screenshots/duel-{size['width']}-opened.png")
    game.refresh_from_db()
    answer = next(
        a for a in store_legal(game) if a["type"] == "play"
    )  # bob answers with a card, outside the browser
    game = _act(game, answer)

    expect(duel.locator(".play.holder")).to_have_count(1, timeout=LIVE)
    expect(page.locator("#board")).to_have_attribute("data-yours", "1")
    expect(page.get_by_role("button", name="Yield")).to_be_visible()
    check_nothing_hidden_shows(page, game, 0)
    assert page.evaluate(FITS)
    page.screenshot(path=f"var/screenshots/duel-{size['width']}-answered.png")
    assert violations(page) == []
    page.get_by_role("button", name="Yield").click()

    expect(page.locator(".duel")).to_have_count(0)
    expect(page.locator("details.log")).to_contain_text("bob won the")
    game.refresh_from_db()
    assert game.version == len(path) + 3  # the challenge, the answer, the yield


def store_legal(game: Game) -> list[dict[str, Any]]:
    state = store.load_state(game)
    return [action_to_json(a, state.rules.edition) for a in legal_actions(state)]


@pytest.mark.parametrize("size", SIZES)
def test_the_result_panel_shows_places_and_the_rule_and_rematch_seats_everyone_again(
    signed_in: Callable[..., Page], alice: User, bob: User, staff: User, size: ViewportSize
) -> None:
    game = _pair_started(alice, bob, staff, DUEL_RULES, 7)
    while game.status == Game.Status.ACTIVE:
        game = _first(game)
    pages = {0: signed_in(alice, f"/games/{game.pk}/", size)}
    pages[1] = signed_in(bob, f"/games/{game.pk}/", size)
    result = pages[0].locator("#result")

    expect(result).to_contain_text("Quick game: one round decides it.")
    for name in ("alice", "bob"):
        expect(result.locator("table.places")).to_contain_text(name)
    expect(result).to_contain_text("Round 1 went to")
    expect(pages[0].locator("details.log")).not_to_have_attribute("open", "")  # folded
    expect(pages[0].get_by_role("link", name="New game")).to_have_attribute("href", "/play/")
    assert pages[0].evaluate(FITS)
    assert violations(pages[0]) == []
    pages[0].screenshot(path=f"var/screenshots/result-{size['width']}.png", full_page=True)
    pages[0].get_by_role("button", name="Rematch").click()

    expect(pages[0]).to_have_url(re.compile(r"/games/\d+/$"))
    rematch = Game.objects.get(rematch_of=game)
    assert pages[0].url.endswith(f"/games/{rematch.pk}/")
    pages[1].reload()
    pages[1].get_by_role("button", name="Join the rematch").click()  # into their old seat
    expect(pages[1].locator("#hand")).to_be_visible()
    expect(pages[0].locator("#hand")).to_be_visible(timeout=LIVE)  # the stream brings the deal
    rematch.refresh_from_db()
    assert rematch.status == Game.Status.ACTIVE
    assert [s.user for s in rematch.seats.order_by("number")] == [alice, bob]
    assert rematch.seed != game.seed


@pytest.mark.parametrize("size", SIZES)
def test_moves_are_made_by_keyboard_alone_and_focus_stays_on_the_table(
    signed_in: Callable[..., Page], alice: User, bob: User, staff: User, size: ViewportSize
) -> None:
    game = _pair_started(alice, bob, staff, DUEL_RULES, 11)
    if game.to_act != 0:
        game = _first(game)
    page = signed_in(alice, "/", size)
    page.goto(f"/games/{game.pk}/")
    page.keyboard.press("Tab")  # the skip link
    page.keyboard.press("Enter")
    for _ in range(3):
        page.keyboard.press("Tab")
        if page.evaluate("document.activeElement.matches('#hand .card-button')"):
            break
    assert page.evaluate("document.activeElement.matches('#hand .card-button')"), (
        "a few Tabs reach the first card of the hand"
    )

    for _ in range(4):
        before = game.version
        keys = page.evaluate(
            "[...document.querySelectorAll('#hand .card-button')].map(b => b.dataset.card)"
        )
        pair = next((k for k in keys if keys.count(k) > 1), None)
        picks = [i for i, k in enumerate(keys) if k == pair][:2] if pair else [0]
        for index in picks:
            page.keyboard.press(str(index + 1))
        focused = page.evaluate("document.activeElement.textContent")
        assert focused.startswith("Pair" if pair else "Discard"), focused  # the move made
        page.keyboard.press("Enter")
        expect(page.locator("#board")).not_to_have_attribute("data-version", str(before))
        expect(page.locator("#board :focus")).to_have_count(1)  # focus stays on the table
        game.refresh_from_db()
        while game.status == Game.Status.ACTIVE and game.to_act != 0:
            game = _first(game)
        if game.status != Game.Status.ACTIVE:
            break
        expect(page.locator("#board")).to_have_attribute("data-yours", "1", timeout=LIVE)
        assert "Your turn" in page.title()
        # focus comes back to the hand, where the next move starts
        expect(page.locator("#hand .card-button:focus")).to_have_count(1, timeout=LIVE)


@pytest.mark.parametrize("size", SIZES)
def test_an_invite_link_seats_whoever_opens_it_in_a_second_browser(
    signed_in: Callable[..., Page],
    open_page: Callable[..., Page],
    alice: User,
    size: ViewportSize,
) -> None:
    host = signed_in(alice, "/play/", size)
    host.get_by_label("Players at the table, you included").select_option("2")
    host.get_by_label("Seat 2").select_option("person")
    host.get_by_role("button", name="Open the table").click()
    expect(host.locator("#board")).to_contain_text("Waiting for players")
    link = host.locator("#invite-link").input_value()
    assert re.fullmatch(r"http://[^/]+/games/\d+/", link)

    friend = open_page(link.split("/", 3)[3].join(["/", ""]), size=size)  # signed out
    expect(friend.locator("ol.lobby")).to_contain_text("alice")
    friend.get_by_role("button", name="Take a seat as a guest").click()

    expect(friend.locator("#hand")).to_be_visible()
    expect(host.locator("#hand")).to_be_visible(timeout=LIVE)
    game = Game.objects.get()
    assert game.status == Game.Status.ACTIVE
    guest = game.seats.get(number=1).user
    assert guest is not None
    assert guest.is_guest
    assert friend.evaluate(FITS)


def test_changes_animate_from_the_stream_lines_and_not_when_asked_not_to(
    signed_in: Callable[..., Page], alice: User, bob: User, staff: User
) -> None:
    game = _pair_started(alice, bob, staff, DUEL_RULES, 5)
    moving = signed_in(alice, f"/games/{game.pk}/")
    still = signed_in(alice, f"/games/{game.pk}/")
    still.emulate_media(reduced_motion="reduce")
    for _ in range(8):
        game = _act(game, _pair_or_discard(store_legal(game)))
        for page in (moving, still):
            expect(page.locator("#board")).to_have_attribute(
                "data-version", str(game.version), timeout=LIVE
            )

    animations = moving.evaluate("window.cyaTable.animations")
    assert {a["type"] for a in animations} & {"pair", "discard"}
    # each started after the stream line that brought its change (how soon after is
    # measured by benchmarks/table.py, not asserted here)
    assert all(a["at"] >= a["line"] for a in animations), animations
    assert still.evaluate("window.cyaTable.animations") == []


def test_the_game_page_weighs_under_150_kb_compressed_with_its_card_art(
    signed_in: Callable[..., Page], alice: User, bob: User, staff: User
) -> None:
    game = _pair_started(alice, bob, staff, RuleSet.preset("2021", seats=2), 3)
    loaded: list[Response] = []
    page = signed_in(alice, "", PHONE)
    page.on("response", lambda r: loaded.append(r))
    page.goto(f"/games/{game.pk}/")
    page.wait_for_timeout(1500)  # the modules and the sprite load after the page

    sizes: dict[str, int] = {}
    for response in loaded:
        if "x-ndjson" in (response.headers.get("content-type") or ""):
            continue  # the live stream: not part of the page
        sizes[response.url] = len(gzip.compress(response.body()))
    kinds = {re.sub(r"^.*\.", "", url.split("?")[0].split("#")[0]) for url in sizes}

    assert {"css", "js", "svg"} <= kinds, sizes  # the styles, the scripts, the card art
    assert sum(sizes.values()) <= WEIGHT, json.dumps(sizes, indent=1)


def test_the_table_lobby_and_replay_have_no_accessibility_violations(
    signed_in: Callable[..., Page], alice: User, bob: User, staff: User
) -> None:
    game = _pair_started(alice, bob, staff, RuleSet.preset("2021", seats=2, ending="quick"), 9)
    if game.to_act != 0:
        game = _first(game)
    page = signed_in(alice, f"/games/{game.pk}/")
    page.locator("#hand .card-button:enabled").first.click()  # a card picked: moves show
    assert violations(page) == []
    while game.status == Game.Status.ACTIVE:
        game = _first(game)
    for path in ("/play/", f"/games/{game.pk}/replay/?step=3&seat=0"):
        page.goto(path)
        assert violations(page) == [], path


@pytest.mark.parametrize("size", SIZES)
def test_the_replay_is_the_same_table_with_a_move_list_steps_and_autoplay(
    open_page: Callable[..., Page], alice: User, bob: User, staff: User, size: ViewportSize
) -> None:
    game = _pair_started(alice, bob, staff, DUEL_RULES, 13)
    pending = open_page(f"/games/{game.pk}/replay/", size=size)
    expect(pending.locator("main")).to_contain_text("will be ready as soon as it ends")
    while game.status == Game.Status.ACTIVE:
        game = _first(game)
    page = open_page(f"/games/{game.pk}/replay/?seat=0", size=size)
    board = page.locator("#replay-board")

    page.locator('#move-list a[data-step="5"]').click()
    expect(board).to_have_attribute("data-step", "5")
    expect(page.locator('#move-list a[aria-current="step"]')).to_have_attribute("data-step", "5")
    expect(board.locator(".others .seat")).to_have_count(1)  # the live game's table
    expect(board.locator("#hand [data-card]").first).to_be_visible()  # seat 0's hand
    page.get_by_role("link", name="Next").click()
    expect(board).to_have_attribute("data-step", "6")
    page.get_by_role("link", name="Previous").click()
    expect(board).to_have_attribute("data-step", "5")
    expect(page).to_have_url(re.compile(r"\?step=5&seat=0$"))

    page.get_by_label("Speed").select_option(label="fast")
    page.get_by_role("button", name="Play").click()
    page.wait_for_function(  # it plays on by itself, step by step
        "() => Number(document.getElementById('replay-board').dataset.step) >= 9", timeout=LIVE
    )
    page.get_by_role("button", name="Pause").click()
    page.wait_for_timeout(500)  # a step asked for before the pause still arrives
    paused = int(board.get_attribute("data-step") or 0)
    page.wait_for_timeout(1200)
    assert int(board.get_attribute("data-step") or 0) == paused
    assert page.evaluate(FITS)
    check_nothing_hidden_shows_replay(page, game, paused)


def check_nothing_hidden_shows_replay(page: Page, game: Game, step: int) -> None:
    """The replay's hand is seat 0's at that step, and nothing of seat 1's shows."""
    hand = page.evaluate(
        "[...document.querySelectorAll('#hand [data-card]')].map(e => e.dataset.card)"
    )
    assert hand == selectors.replay_view(game, 0, step)["hand"]


def test_without_javascript_the_table_plays_through_plain_forms(
    browser: Any, live_server: Any, alice: User, bob: User, staff: User
) -> None:
    game = _pair_started(alice, bob, staff, DUEL_RULES, 17)
    context = browser.new_context(
        base_url=str(live_server), java_script_enabled=False, viewport=PHONE
    )
    client = Client()
    client.force_login(alice)
    cookie = {"name": "sessionid", "value": client.cookies["sessionid"].value}
    context.add_cookies([{**cookie, "url": live_server.url}])
    page = context.new_page()
    try:
        for _ in range(6):
            game.refresh_from_db()
            while game.status == Game.Status.ACTIVE and game.to_act != 0:
                game = _first(game)
            page.goto(f"/games/{game.pk}/")
            groups = page.locator("#board .move-group legend").all_inner_texts()
            assert "Discard a card" in groups  # every move a button, grouped
            before = game.version
            page.locator("#board form.move button").first.click()  # a plain form post
            expect(page).to_have_url(re.compile(rf"/games/{game.pk}/$"))
            game.refresh_from_db()
            assert game.version == before + 1
        assert page.evaluate(FITS)
    finally:
        context.close()
