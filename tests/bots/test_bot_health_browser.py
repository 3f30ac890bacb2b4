"""A bot's page in Chromium at a 360 px phone, for its owner: secrets typed or generated
(never two pre-filled), every field error at once, no replay links for games not played
yet, the validation game linked, versions headed in words, and a paused version saying
why, with "Resume" (issue 30, items 1 and 6). Each test saves a screenshot of the page
(under the screenshots folder) for a person to look at."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from accounts.models import User
from bots import health, services
from bots.models import BotVersion, Match
from bots.validation import builtin_versions
from cya_site import dispatch
from tests.bots.bot_servers import BotServer, good_bot, webhook_version
from tests.bots.checks import quick
from tests.bots.test_bot_pages_browser import assert_fits_a_phone, sign_in
from tests.browser import SCREENSHOTS

pytestmark = pytest.mark.usefixtures("transactional_db")

GENERATED = re.compile(r"^[A-Za-z0-9_-]{43}$")  # 32 random bytes, base64url


@pytest.fixture
def server() -> Iterator[BotServer]:
    with good_bot("phone-bot") as bot:
        yield bot


@pytest.fixture
def sent(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, tuple[Any, ...]]]:
    """Tasks the pages send (no worker runs here): recorded, never queued."""
    tasks: list[tuple[str, tuple[Any, ...]]] = []
    monkeypatch.setattr(dispatch, "send", lambda task, args=(), **_: tasks.append((task, args)))
    return tasks


def owner_page(open_page: Callable[..., Page], name: str) -> Page:
    page = open_page(f"/sign-in/?next=/bots/{name}/")
    sign_in(page, "alice")
    page.wait_for_url(f"**/bots/{name}/")
    return page


def shot(page: Page, name: str) -> None:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / f"bot-health-{name}.png"), full_page=True)


def test_a_secret_is_typed_or_generated_and_never_two_are_offered(
    open_page: Callable[..., Page],
    alice: User,
    server: BotServer,
    sent: list[tuple[str, tuple[Any, ...]]],
) -> None:
    version = webhook_version(alice, "phone-bot", server)
    page = owner_page(open_page, "phone-bot")
    add, rotate = page.locator("#new-version"), page.locator("#rotate")

    expect(add.get_by_label("Secret")).to_have_value("")
    expect(rotate.get_by_label("Secret")).to_have_value("")
    add.get_by_role("button", name="Generate a secret").click()
    generated = add.get_by_label("Secret").input_value()
    assert GENERATED.match(generated), generated
    expect(rotate.get_by_label("Secret")).to_have_value("")  # only what was asked for
    add.get_by_role("button", name="Generate a secret").click()
    assert add.get_by_label("Secret").input_value() not in ("", generated)  # a new one
    generated = add.get_by_label("Secret").input_value()
    assert_fits_a_phone(page)
    shot(page, "generated-secret")

    add.get_by_label("Tag").fill("v2")
    add.get_by_role("button", name="Add the version").click()

    page.wait_for_url("**/bots/phone-bot/#version-2")
    newer = BotVersion.objects.get(bot=version.bot, number=2)
    assert newer.secret == generated  # what the page showed is what signs its requests
    assert len(sent) == 1
    assert generated not in page.content()  # shown once: never again


def test_every_field_error_shows_at_once_with_what_was_typed(
    open_page: Callable[..., Page], alice: User, server: BotServer
) -> None:
    webhook_version(alice, "phone-bot", server)
    page = owner_page(open_page, "phone-bot")
    add = page.locator("#new-version")

    add.get_by_label("Webhook URL").fill("bots.example.com/cya")
    add.get_by_label("Secret").fill("short")
    add.get_by_role("button", name="Add the version").click()

    add = page.locator("#new-version")
    expect(add.locator("#id_url_error")).to_contain_text("must start with http:// or https://")
    expect(add.locator("#id_secret_error")).to_contain_text("16 characters or more")
    expect(add.get_by_label("Webhook URL")).to_have_value("bots.example.com/cya")
    expect(add.get_by_label("Secret")).to_have_value("short")
    assert_fits_a_phone(page)
    shot(page, "field-errors")


def test_versions_read_plainly_the_validation_game_is_a_link_and_unplayed_games_are_not(
    open_page: Callable[..., Page], alice: User, server: BotServer
) -> None:
    version = webhook_version(alice, "phone-bot", server)
    BotVersion.objects.filter(pk=version.pk).update(tag="v1", status=BotVersion.Status.RETIRED)
    newer = BotVersion.objects.create(
        bot=version.bot, number=2, tag="v1", url=server.url, secret=server.secret,
        status=BotVersion.Status.READY,
    )  # fmt: skip
    shark, greedy, _ = builtin_versions()
    checked = services.match_create(
        versions=[newer, shark, greedy], kind=Match.Kind.VALIDATION, rules=quick(3),
        duplicate=False,
    )  # fmt: skip
    game = checked.match_games.get().game_id
    newer.validation_log = [f"validation game {game} (match {checked.pk})", "passed"]
    newer.save(update_fields=["validation_log"])
    services.match_create(versions=[newer, shark, greedy], rules=quick(3))  # scheduled

    page = owner_page(open_page, "phone-bot")

    card = page.locator("#version-2")
    expect(card.get_by_role("heading")).to_have_text(re.compile(r"^Version 2 tagged “v1”"))
    expect(page.get_by_text("v2 · v1")).to_have_count(0)
    link = card.get_by_role("link", name=f"validation game {game} (match {checked.pk})")
    expect(link).to_have_attribute("href", f"/games/{game}/replay/")
    matches = page.locator("#matches-heading + .table-wrap")
    expect(matches.get_by_text("not played yet")).to_have_count(2)
    expect(matches.get_by_role("link", name=re.compile(r"^Game \d"))).to_have_count(0)
    assert_fits_a_phone(page)
    shot(page, "versions-and-matches")
    card.screenshot(path=str(SCREENSHOTS / "bot-health-version-card.png"))
    page.locator("section", has=page.locator("#matches-heading")).screenshot(
        path=str(SCREENSHOTS / "bot-health-recent-matches.png")
    )


def test_a_paused_version_says_why_and_resumes_after_its_handshake(
    open_page: Callable[..., Page], alice: User, server: BotServer
) -> None:
    version = webhook_version(alice, "phone-bot", server)
    health.version_pause(bot=version.bot, by=alice)
    server.stop_answering()
    page = owner_page(open_page, "phone-bot")

    card = page.locator("#version-1")
    expect(card).to_contain_text("paused: off the ladder until resumed")
    expect(card).to_contain_text("its owner paused it")
    card.get_by_role("button", name="Resume").click()
    expect(page.locator("#health-error")).to_contain_text("The handshake failed")
    assert_fits_a_phone(page)
    shot(page, "resume-refused")
    assert BotVersion.objects.get(pk=version.pk).status == BotVersion.Status.PAUSED

    server.answer_again()
    page.locator("#version-1").get_by_role("button", name="Resume").click()

    expect(page.locator("#version-1")).to_contain_text("ready: plays ranked games")
    expect(page.locator("#version-1").get_by_role("button", name="Pause")).to_be_visible()
    assert BotVersion.objects.get(pk=version.pk).status == BotVersion.Status.READY
    assert_fits_a_phone(page)
    shot(page, "resumed")
