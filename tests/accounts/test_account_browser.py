"""Account flows in a real browser: a reset through the outbox's link, the account page."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import pytest
from django.core import mail
from playwright.sync_api import Page, expect

from accounts.models import User
from tests.browser import open_menu

pytestmark = pytest.mark.django_db(transaction=True)

NEW_PASSWORD = "a fresh and long passphrase"


def test_a_player_resets_a_forgotten_password_through_the_mailed_link(
    open_page: Callable[..., Page], alice: User
) -> None:
    alice.email = "alice@example.org"
    alice.save()
    page = open_page("/sign-in/")
    page.get_by_role("link", name="Forgot your password?").click()
    page.get_by_label("Email").fill("alice@example.org")
    page.get_by_role("button", name="Send the link").click()
    expect(page.get_by_role("heading", name="Check your inbox")).to_be_visible()

    (message,) = mail.outbox
    link = re.search(r"https?://\S+/password-reset/\S+/", str(message.body))
    assert link
    page.goto(link.group(0))
    page.get_by_label("New password", exact=True).fill(NEW_PASSWORD)
    page.get_by_label("New password confirmation").fill(NEW_PASSWORD)
    page.get_by_role("button", name="Set the password").click()
    expect(page.get_by_role("heading", name="Password set")).to_be_visible()
    page.get_by_role("main").get_by_role("link", name="Sign in").click()
    page.get_by_label("Username").fill("alice")
    page.get_by_label("Password").fill(NEW_PASSWORD)
    page.keyboard.press("Enter")

    expect(page).not_to_have_url(re.compile(r"/sign-in/"))
    open_menu(page)  # on a phone the account is in the folded menu
    expect(page.get_by_text("Signed in as alice")).to_be_visible()


def test_a_player_downloads_their_data_and_deletes_the_account(
    open_page: Callable[..., Page], alice: User, tmp_path: Path
) -> None:
    page = open_page("/")
    page.goto("/sign-in/?next=/account/")
    page.get_by_label("Username").fill("alice")
    page.get_by_label("Password").fill("correct horse battery staple")
    page.keyboard.press("Enter")
    expect(page.get_by_role("heading", name="Your account")).to_be_visible()
    assert page.evaluate("document.documentElement.scrollWidth") <= 360

    with page.expect_download() as download:
        page.get_by_role("link", name="Download your data").click()
    saved = tmp_path / "data.json"
    download.value.save_as(saved)
    assert '"username": "alice"' in saved.read_text()

    page.get_by_label("Your password").fill("correct horse battery staple")
    page.get_by_label("I understand").check()
    page.get_by_role("button", name="Delete my account").click()

    expect(page.get_by_text("Your account is deleted.")).to_be_visible()
    alice.refresh_from_db()
    assert alice.deleted_at is not None
