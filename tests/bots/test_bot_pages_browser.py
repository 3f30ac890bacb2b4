"""The bot pages in Chromium, as a bot author uses them: sign in, enter a webhook bot from
the ladder, add a version pointing at a real local bot, and watch its validation (run by
a real Celery worker) reach "ready" on the bot's page, which follows it by itself.
Every bot page fits a 360 px phone without sideways scrolling."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from playwright.sync_api import Page, expect

from accounts.models import User
from bots.models import Bot, BotVersion
from tests.bots.bot_servers import good_bot, running
from tests.factories import DEFAULT_PASSWORD

pytestmark = pytest.mark.usefixtures("transactional_db")

VALIDATION_TIMEOUT_MS = 120_000  # a whole four-seat game against the built-ins


def sign_in(page: Page, username: str) -> None:
    page.get_by_label("Username").fill(username)
    page.get_by_label("Password").fill(DEFAULT_PASSWORD)
    page.get_by_role("button", name="Sign in").click()


def assert_fits_a_phone(page: Page) -> None:
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= 360, f"{page.url} is {width} px wide at a 360 px phone"


def test_an_owner_enters_a_webhook_bot_and_sees_its_version_validated(
    celery_worker: str, open_page: Callable[..., Page], alice: User
) -> None:
    page = open_page("/ladder/")
    assert_fits_a_phone(page)
    page.get_by_role("link", name="Enter a bot").click()
    sign_in(page, "alice")  # visitors sign in first, then come back here

    page.wait_for_url("**/bots/new/")
    assert_fits_a_phone(page)
    page.get_by_label("Name").fill("pages-bot")
    page.get_by_label("Webhook: the platform calls your bot's URL").check()
    page.get_by_label("Description").fill("Entered through the pages.")
    page.get_by_role("button", name="Register the bot").click()

    page.wait_for_url("**/bots/pages-bot/")
    expect(page.get_by_text("No version yet.")).to_be_visible()
    with running(good_bot("pages-bot")) as (server,):
        form = page.locator("#new-version")
        form.get_by_label("Webhook URL").fill(server.url)
        form.get_by_label("Secret").fill(server.secret)
        form.get_by_label("Tag").fill("first")
        form.get_by_role("button", name="Add the version").click()

        version = page.locator("#version-1")
        expect(version).to_contain_text("Version 1")
        expect(version.get_by_text("ready: plays ranked games")).to_be_visible(
            timeout=VALIDATION_TIMEOUT_MS
        )
        expect(version).to_contain_text("handshake: 'pages-bot', protocol 1")
        expect(version).to_contain_text("passed")
        assert server.signatures_all_valid()
    assert_fits_a_phone(page)
    stored = BotVersion.objects.get(bot__name="pages-bot")
    assert stored.status == BotVersion.Status.READY
    assert Bot.objects.get(name="pages-bot").owner == alice

    page.reload()  # the versions follow validation by themselves; the rest of the page not
    recent = page.locator("#matches-heading + .table-wrap")
    expect(recent).to_contain_text("validation")
    for path in ("/bots/", "/ladder/"):
        page.goto(path)
        expect(page.get_by_role("link", name="pages-bot").first).to_be_visible()
        assert_fits_a_phone(page)


def test_a_refused_version_says_why_beside_the_field_in_the_browser(
    open_page: Callable[..., Page], alice: User
) -> None:
    from bots import services

    services.bot_create(owner=alice, name="refused-bot", kind=Bot.Kind.WEBHOOK)
    page = open_page("/sign-in/?next=/bots/refused-bot/")
    sign_in(page, "alice")
    page.wait_for_url("**/bots/refused-bot/")

    form = page.locator("#new-version")
    form.get_by_label("Webhook URL").fill("http://10.0.0.9/bot")
    form.get_by_label("Secret").fill("short")
    form.get_by_role("button", name="Add the version").click()

    form = page.locator("#new-version")
    expect(form.locator("#id_secret_error")).to_contain_text("16 characters or more")
    expect(form.get_by_label("Webhook URL")).to_have_value("http://10.0.0.9/bot")
    expect(form.get_by_label("Secret")).to_have_value("short")
    assert_fits_a_phone(page)
