"""Signing in and registering in a real browser, at phone size, by keyboard."""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest
from playwright.sync_api import Page, expect

from accounts.models import User
from tests.browser import open_menu
from tests.factories import DEFAULT_PASSWORD

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_player_signs_in_by_keyboard_on_a_phone(
    open_page: Callable[..., Page], alice: User
) -> None:
    page = open_page("/")
    open_menu(page)
    page.get_by_role("link", name="Sign in").first.click()
    page.get_by_label("Username").fill("alice")
    page.get_by_label("Password").fill("wrong")
    page.keyboard.press("Enter")

    expect(page.get_by_role("alert")).to_contain_text("Wrong username or password.")
    expect(page.get_by_label("Username")).to_have_value("alice")

    page.get_by_label("Password").fill(DEFAULT_PASSWORD)
    page.keyboard.press("Enter")

    expect(page).to_have_url(re.compile(r"/$"))  # home again, signed in
    open_menu(page)
    expect(page.get_by_text("Signed in as alice")).to_be_visible()
    assert page.evaluate("document.documentElement.scrollWidth") <= 360


def test_a_visitor_registers_and_switches_to_german(open_page: Callable[..., Page]) -> None:
    page = open_page("/register/")
    page.get_by_label("Username").fill("dora")
    page.get_by_label("Password").fill("a-long-passphrase")
    page.get_by_role("button", name="Create the account").click()
    open_menu(page)
    page.get_by_label("Language").select_option("de")
    page.get_by_role("button", name="Change language").click()

    page.get_by_role("button", name="Menü").click()
    expect(page.get_by_role("link", name="Ligen").first).to_be_visible()
    assert User.objects.get(username="dora").language == "de"
