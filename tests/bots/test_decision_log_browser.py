"""The decision log in the replay, in Chromium at a 360 px phone and a 1280 px desktop: the
owner sees each of their bot's answers, latencies, strikes and debug notes beside the
moves (with no accessibility violation) and downloads the log; another person sees none
of it (issue 30, item 2). Each test saves a screenshot (under the screenshots folder)
for a person to look at."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator

import pytest
from playwright.sync_api import Page, expect

from accounts.models import User
from bots import decision_log, runner
from bots.models import BotVersion, Match
from tests.accessibility import violations
from tests.bots.bot_servers import BotServer, running
from tests.bots.checks import control_of
from tests.bots.test_bot_pages_browser import assert_fits_a_phone, sign_in
from tests.bots.test_decision_log import debugging_bot, webhook_match
from tests.browser import DESKTOP, SCREENSHOTS

pytestmark = pytest.mark.usefixtures("transactional_db")


@pytest.fixture
def played(alice: User) -> Iterator[tuple[Match, BotVersion, BotServer]]:
    with running(debugging_bot()) as (bot,):
        match, version = webhook_match(alice, bot)
        runner.run_match(match)
        yield match, version, bot


def replay_as(open_page: Callable[..., Page], who: str, game_id: int, **size: object) -> Page:
    page = open_page(f"/sign-in/?next=/games/{game_id}/replay/", **size)
    sign_in(page, who)
    page.wait_for_url(f"**/games/{game_id}/replay/")
    return page


def shot(page: Page, name: str) -> None:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / f"decision-log-{name}.png"), full_page=True)


def test_the_owner_reads_each_decision_beside_its_move_and_downloads_the_log(
    open_page: Callable[..., Page], played: tuple[Match, BotVersion, BotServer], alice: User
) -> None:
    match, version, _ = played
    control = control_of(match, version.pk)
    game_id = control.seat.game_id
    lines = decision_log.lines(game_id, [control.seat.number])

    page = replay_as(open_page, "alice", game_id)
    assert_fits_a_phone(page)
    entries = page.locator("#move-list .decision-log")
    expect(entries).to_have_count(len(lines))
    expect(entries.first).to_contain_text("trying a swap")
    expect(entries.first).to_contain_text("Strike: illegal")
    shot(page, "owner-phone")

    first = lines[0]["version"] + 1  # the step the first answer's move made
    page.locator(f'#move-list a[data-step="{first}"]').click()
    expect(page.locator("#step-decision-log")).to_contain_text("trying a swap")
    assert violations(page) == []
    with page.expect_download() as download:
        page.get_by_role("link", name="Download alices-bot's decision log (NDJSON)").click()
    body = download.value.path().read_text(encoding="utf-8")
    assert [json.loads(line) for line in body.splitlines()] == lines

    wide = replay_as(open_page, "alice", game_id, size=DESKTOP)
    expect(wide.locator("#move-list .decision-log")).to_have_count(len(lines))
    shot(wide, "owner-desktop")


def test_another_person_sees_no_decision_log_in_the_replay(
    open_page: Callable[..., Page], played: tuple[Match, BotVersion, BotServer], bob: User
) -> None:
    match, version, _ = played
    game_id = control_of(match, version.pk).seat.game_id
    page = replay_as(open_page, "bob", game_id)
    expect(page.locator("#move-list li").first).to_be_visible()
    expect(page.locator(".decision-log")).to_have_count(0)
    expect(page.get_by_text("trying a swap")).to_have_count(0)
    expect(page.locator("#decision-log-downloads")).to_have_count(0)
    shot(page, "other-phone")
