"""The phone score sheet on poor Wi-Fi, in Chromium: a round typed offline waits on the
phone, is sent once when the connection returns, and a double tap records it once."""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest
from playwright.sync_api import Page, expect

from accounts.models import User
from games.models import Game
from tests.factories import DEFAULT_PASSWORD
from tests.tournaments.conftest import QUICK, Club, recorded_game
from tournaments.models import ScoreRecord

pytestmark = pytest.mark.django_db(transaction=True)
CLASSIC = QUICK.with_options(ending="classic")


@pytest.fixture
def table(club: Club, alice: User) -> Game:
    """alice, bob and Dora at a first-to-$1,000,000 table."""
    return recorded_game(club, alice, ["Alice", "Bob", "Dora"], rules=CLASSIC)


def phone(open_page: Callable[..., Page], game: Game) -> Page:
    page = open_page(f"/sheets/{game.pk}/")
    page.get_by_label("Username").fill("alice")
    page.get_by_label("Password").fill(DEFAULT_PASSWORD)
    page.get_by_role("button", name="Sign in").click()
    expect(page.get_by_role("heading", name=re.compile("Round 1"))).to_be_visible()
    return page


def type_round(page: Page, *thousands: str) -> None:
    fields = page.locator("form[data-entry] input.thousands")
    for n, value in enumerate(thousands):
        fields.nth(n).fill(value)


def test_a_round_typed_offline_waits_on_the_phone_and_is_sent_once_back_online(
    open_page: Callable[..., Page], table: Game
) -> None:
    page = phone(open_page, table)
    page.context.set_offline(True)
    type_round(page, "300", "150", "0")
    page.get_by_role("button", name=re.compile(r"^Record round 1")).click()

    waiting = page.locator("#sync")
    expect(waiting).to_contain_text("No connection")
    expect(waiting).to_contain_text("Round 1: Alice 300, Bob 150, Dora 0")
    expect(page.get_by_role("heading", name="Round 2", exact=True)).to_be_visible()
    assert not ScoreRecord.objects.filter(game=table).exists()

    type_round(page, "100", "200", "50")  # the next round, still offline
    page.get_by_role("button", name=re.compile(r"^Record round 2")).click()
    expect(waiting).to_contain_text("Round 2: Alice 100, Bob 200, Dora 50")

    page.context.set_offline(False)
    page.evaluate("window.dispatchEvent(new Event('online'))")
    expect(page.locator("#round-2")).to_be_visible(timeout=15_000)
    expect(page.locator("#sync-list li")).to_have_count(0)
    records = ScoreRecord.objects.filter(game=table).order_by("round_number")
    assert [(r.round_number, r.dollars) for r in records] == [
        (1, [300_000, 150_000, 0]),
        (2, [100_000, 200_000, 50_000]),
    ]


def test_a_double_tap_records_the_round_once(open_page: Callable[..., Page], table: Game) -> None:
    page = phone(open_page, table)
    type_round(page, "300", "150", "0")
    button = page.get_by_role("button", name=re.compile(r"^Record round 1"))
    button.dblclick()

    expect(page.get_by_role("heading", name="Round 2", exact=True)).to_be_visible()
    assert ScoreRecord.objects.filter(game=table).count() == 1


def test_a_typo_sent_from_the_queue_comes_back_beside_its_field(
    open_page: Callable[..., Page], table: Game
) -> None:
    page = phone(open_page, table)
    page.context.set_offline(True)
    type_round(page, "300", "151", "0")
    page.get_by_role("button", name=re.compile(r"^Record round 1")).click()
    page.context.set_offline(False)
    page.evaluate("window.dispatchEvent(new Event('online'))")

    expect(page.locator("#id_seat_1_error")).to_contain_text(
        "No stack of this deck is worth $151,000", timeout=15_000
    )
    expect(page.locator("#id_seat_1")).to_have_value("151")
    assert not ScoreRecord.objects.filter(game=table).exists()


def test_rounds_typed_after_the_session_ended_wait_until_the_player_signs_in_again(
    open_page: Callable[..., Page], table: Game
) -> None:
    page = phone(open_page, table)
    page.context.clear_cookies()  # the session ended (expired, or signed out elsewhere)
    type_round(page, "300", "150", "0")
    page.get_by_role("button", name=re.compile(r"^Record round 1")).click()

    expect(page.locator("#sync")).to_contain_text("You are signed out")
    expect(page.locator("#sync")).to_contain_text("Round 1: Alice 300, Bob 150, Dora 0")
    assert not ScoreRecord.objects.filter(game=table).exists()

    page.locator("#sync-signin").get_by_role("link", name="Sign in").click()
    page.get_by_label("Username").fill("alice")
    page.get_by_label("Password").fill(DEFAULT_PASSWORD)
    page.get_by_role("button", name="Sign in").click()

    expect(page.locator("#round-1")).to_be_visible(timeout=15_000)
    assert ScoreRecord.objects.get(game=table).dollars == [300_000, 150_000, 0]
