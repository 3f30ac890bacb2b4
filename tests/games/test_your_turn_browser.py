"""Your turn, wherever you are: the page title changes and, once opted in, the browser
may notify; in a real browser."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from playwright.sync_api import Page, expect

from accounts.models import User
from games.models import Game
from tests.factories import DEFAULT_PASSWORD

pytestmark = pytest.mark.django_db(transaction=True)


def sign_in(page: Page, user: User, next_path: str = "/") -> None:
    page.goto(f"/sign-in/?next={next_path}")
    page.get_by_label("Username").fill(user.username)
    page.get_by_label("Password").fill(DEFAULT_PASSWORD)
    page.keyboard.press("Enter")
    page.wait_for_url(f"**{next_path}")


def test_the_title_says_your_turn_and_notifications_are_opt_in(
    open_page: Callable[..., Page], started: Game
) -> None:
    seat = started.seats.get(number=started.to_act or 0)
    assert seat.user is not None
    page = open_page("")
    page.context.grant_permissions(["notifications"])
    sign_in(page, seat.user, "/leagues/")

    expect(page).to_have_title("Your turn (1) · Leagues · Cover Your Assets club platform")
    strip = page.locator("#your-turn")
    expect(strip.get_by_role("link", name=f"Game {started.pk}")).to_be_visible()
    strip.get_by_role("button", name="Notify me").click()
    expect(strip.get_by_role("button", name="Notify me")).to_be_hidden()
    assert page.evaluate("localStorage.getItem('cya-notify-turns')") == "yes"
    assert page.evaluate("JSON.parse(sessionStorage.getItem('cya-turns-notified'))") == [
        str(started.pk)
    ]
    page.screenshot(path="/tmp/yourturn.png")
