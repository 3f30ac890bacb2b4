"""The challenge pages: starting one (every field error at once, what was chosen kept,
the day's limit as 429 with ``Retry-After``, a paused bot refused beside its field) and
reading one's results, a row per deal, for anyone."""

from __future__ import annotations

import re

import pytest
from django.test import Client
from pytest_django import Settings

from accounts.models import User
from bots import health, runner
from bots.models import BotVersion, Challenge
from bots.validation import builtin_versions
from tests.bots.bot_servers import builtin_version

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("sent")]
NEW = "/challenges/new/"


@pytest.fixture
def owner(alice: User) -> Client:
    client = Client()
    client.force_login(alice)
    return client


def form(version: BotVersion, **over: str) -> dict[str, str]:
    return {
        "bot": str(version.bot_id),
        "opponent_1": "strategy:shark",
        "deals": "2",
        "preset": "2021",
        "ending": "quick",
        "target": "1000000",
        "tie_policy": "extra_round",
        **over,
    }


def field_error(html: str, name: str) -> str:
    found = re.search(rf'id="id_{name}_error">([^<]*)<', html)
    return found[1] if found else ""


def test_signing_in_comes_first() -> None:
    response = Client().get(NEW)

    assert response.status_code == 302
    assert response["Location"].startswith("/sign-in/")


def test_a_challenge_starts_and_its_page_says_no_deal_is_played_yet(
    owner: Client, mine: BotVersion, bob: User
) -> None:
    theirs = builtin_version(bob, "bobs-bot", "random")
    page = owner.get(f"{NEW}?bot=alices-bot&opponent={theirs.pk}")
    assert page.status_code == 200
    assert "You may start 20 more challenges today." in page.content.decode()

    response = owner.post(NEW, form(mine, opponent_2=f"version:{theirs.pk}"))

    challenge = Challenge.objects.get()
    assert response.status_code == 302
    assert response["Location"] == f"/challenges/{challenge.pk}/"
    results = Client().get(response["Location"]).content.decode()  # anyone may look
    assert results.count("not played yet") == 2
    assert "/replay/" not in results
    assert "bobs-bot" in results
    assert "builtin-shark" in results


def test_every_field_error_shows_at_once_with_what_was_chosen_kept(
    owner: Client, mine: BotVersion
) -> None:
    response = owner.post(
        NEW,
        form(
            mine,
            opponent_1="strategy:greedy",
            opponent_2="strategy:greedy",
            deals="99",
            ending="highest_after_n",
            ending_rounds="0",
        ),
    )

    html = response.content.decode()
    assert response.status_code == 400
    assert "Already chosen" in field_error(html, "opponent_2")
    assert "20" in field_error(html, "deals")
    assert field_error(html, "ending_rounds")
    assert 'value="99"' in html
    assert re.search(r'<option value="strategy:greedy" selected>', html)
    assert not Challenge.objects.exists()


def test_no_opponent_and_rules_the_engine_refuses_show_together(
    owner: Client, mine: BotVersion
) -> None:
    nobody = owner.post(NEW, form(mine, opponent_1="", deals="0"))
    html = nobody.content.decode()
    assert "Choose at least one opponent." in field_error(html, "opponent_1")
    assert field_error(html, "deals")

    bad_rules = owner.post(NEW, form(mine, preset="2011", penny_jar="on", deals="0"))
    html = bad_rules.content.decode()
    assert field_error(html, "deals")
    assert "2011 edition has no Penny Jar" in field_error(html, "penny_jar")
    assert bad_rules.status_code == 400
    assert not Challenge.objects.exists()


def test_a_paused_bot_is_refused_beside_its_field(
    owner: Client, alice: User, mine: BotVersion
) -> None:
    health.version_pause(bot=mine.bot, by=alice)

    response = owner.post(NEW, form(mine))

    assert response.status_code == 409
    assert "is paused" in field_error(response.content.decode(), "bot")
    assert not Challenge.objects.exists()


def test_past_the_days_limit_the_page_says_so_with_429_and_retry_after(
    owner: Client, mine: BotVersion, settings: Settings
) -> None:
    settings.CHALLENGES_PER_DAY = 1
    assert owner.post(NEW, form(mine)).status_code == 302

    response = owner.post(NEW, form(mine, deals="3"))

    html = response.content.decode()
    assert response.status_code == 429
    assert 86_000 < int(response["Retry-After"]) <= 86_400
    assert "the most a day allows" in html
    assert 'value="3"' in html  # what was typed stays
    assert "You may start 0 more challenges today." in html
    assert Challenge.objects.count() == 1


def test_the_results_page_has_a_row_per_deal_with_places_and_replays(
    owner: Client, mine: BotVersion
) -> None:
    owner.post(NEW, form(mine, opponent_2="strategy:random", deals="2"))
    challenge = Challenge.objects.get()
    for deal in challenge.deal_rows.select_related("match"):
        runner.run_match(deal.match)

    html = Client().get(f"/challenges/{challenge.pk}/").content.decode()

    assert "not played yet" not in html
    for number in (1, 2):
        row = re.search(rf'<tbody id="deal-{number}">(.*?)</tbody>', html, re.S)
        assert row is not None
        assert len(re.findall(r"place \d", row[1])) == 3  # each entrant's place
        assert len(re.findall(r'href="/games/\d+/replay/"', row[1])) == 3  # a game per rotation
    assert "finished" in html


def test_an_unknown_challenge_is_404() -> None:
    assert Client().get("/challenges/999999/").status_code == 404


def test_a_bots_page_offers_to_challenge_it_or_with_it(
    owner: Client, mine: BotVersion, bob: User
) -> None:
    theirs = builtin_version(bob, "bobs-bot", "random")

    own = owner.get("/bots/alices-bot/").content.decode()
    other = owner.get("/bots/bobs-bot/").content.decode()

    assert f'href="{NEW}?bot=alices-bot"' in own
    assert f'href="{NEW}?opponent={theirs.pk}"' in other


def test_a_bots_recent_matches_link_each_deal_to_its_challenge(
    owner: Client, mine: BotVersion
) -> None:
    owner.post(NEW, form(mine, deals="2"))
    challenge = Challenge.objects.get()

    html = owner.get("/bots/alices-bot/").content.decode()

    for number in (1, 2):
        assert (
            f'href="/challenges/{challenge.pk}/">challenge {challenge.pk}, deal {number}<' in html
        )


def test_a_built_in_challenged_from_its_page_is_offered_by_its_strategy(
    owner: Client, mine: BotVersion
) -> None:
    shark = builtin_versions(("shark",))[0]

    html = owner.get(f"{NEW}?opponent={shark.pk}").content.decode()

    assert '<option value="strategy:shark" selected>' in html
