"""Quick pairing between two browser contexts: the first waits, the second's arrival
starts the table, and both pages open it."""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest
from playwright.sync_api import Page, expect

from accounts.models import User
from tests.games.test_your_turn_browser import sign_in

pytestmark = pytest.mark.django_db(transaction=True)


def _find_a_table(page: Page) -> None:
    page.get_by_role("link", name="Play a person now").click()
    page.get_by_label("Players at the table").select_option("2")
    page.get_by_role("button", name="Find a table").click()


def test_two_people_are_paired_from_two_browsers(
    open_page: Callable[..., Page], alice: User, bob: User
) -> None:
    first, second = open_page(""), open_page("")
    sign_in(first, alice, "/play/")
    sign_in(second, bob, "/play/")

    _find_a_table(first)
    expect(first.get_by_role("status")).to_contain_text("Looking for a table of 2")
    first.screenshot(path="/tmp/quick-wait.png")
    _find_a_table(second)

    expect(second).to_have_url(re.compile(r"/games/\d+/$"))
    expect(first).to_have_url(second.url, timeout=10_000)  # its wait polls every 3 s


def test_leaving_the_queue_from_the_page(open_page: Callable[..., Page], alice: User) -> None:
    page = open_page("")
    sign_in(page, alice, "/play/")
    _find_a_table(page)
    page.get_by_role("button", name="Leave the queue").click()

    expect(page.get_by_text("You left the queue.")).to_be_visible()
    expect(page.get_by_role("button", name="Find a table")).to_be_visible()
