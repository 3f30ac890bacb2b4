"""The bot pages: the ladder, the bots, a bot's page and its owner's controls.

Through Django's test client, as a visitor, the owner and another player: every page
renders for each, the controls are the owner's alone (and the services refuse anyone
else), each refusal is shown beside its field with what was typed kept, and each page
stays under the weight budget with queries that do not grow with versions or matches.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.test import Client
from django.utils.html import escape
from pytest_django import Settings

from accounts.models import ApiToken, User
from bots import runner, services, strength
from bots.models import Bot, BotVersion, Match, SeatControl, Strike
from bots.validation import builtin_versions
from bots.web import figures
from cya_site.templatetags.pages import percent
from tests.bots.bot_servers import SECRET
from tests.bots.checks import quick
from tests.pages import BUDGET, text, transfer_size

pytestmark = pytest.mark.django_db

URL = "https://bots.example.com/cya"
MU, SIGMA, MINUS = "\u03bc", "\u03c3", "\u2212"  # as the pages write a rating: mu - 3 sigma


@pytest.fixture(autouse=True)
def _bots_host(hosts: dict[str, list[str]]) -> None:
    """URL's host resolves, to loopback (allowed in the suite): never called here."""
    hosts["bots.example.com"] = ["127.0.0.1"]


@pytest.fixture(autouse=True)
def _never_paused(settings: Settings) -> None:
    """The matches played here call a webhook nobody answers (its host leads to loopback,
    where nothing listens): the health rules would pause it after a few games, and these
    tests are about what the page shows (tests/bots/test_health.py tests the pause)."""
    settings.BOT_PAUSE_STRIKES = settings.BOT_PAUSE_AUTOPILOT_GAMES = 10_000


@pytest.fixture
def webhook_bot(alice: User) -> Bot:
    """Alice's webhook bot with one ready version, validated with a log."""
    bot = services.bot_create(
        owner=alice, name="alices-bot", kind=Bot.Kind.WEBHOOK, description="Plays it safe."
    )
    version = services.version_create(bot=bot, by=alice, url=URL, secret=SECRET, tag="first")
    services.version_validated(
        version=version, passed=True, log=["handshake: 'alices-bot', protocol 1", "passed"]
    )
    return bot


@pytest.fixture
def client_bot(alice: User) -> Bot:
    """Alice's API-client bot, with no version yet."""
    return services.bot_create(owner=alice, name="alices-client", kind=Bot.Kind.API_CLIENT)


def signed_in(user: User | None) -> Client:
    client = Client()
    if user is not None:
        client.force_login(user)
    return client


def play_matches(bot: Bot, count: int) -> list[Match]:
    """``count`` rated ladder matches of the bot's ready version against the built-ins."""
    shark, greedy, _ = builtin_versions()
    mine = bot.versions.get(status=BotVersion.Status.READY)
    played = []
    for _ in range(count):
        match = services.match_create(versions=[mine, shark, greedy], rules=quick(3))
        runner.run_match(match)
        played.append(match)
    return played


def field_error(html: str, field: str) -> str:
    """The error shown beside a field (cya/field.html), as text; empty if none."""
    found = re.search(rf'<p class="error" id="id_{re.escape(field)}_error">(.*?)</p>', html, re.S)
    return text(found.group(1)) if found else ""


def value_of(html: str, field: str) -> str | None:
    """The value an input holds (what was typed, kept)."""
    found = re.search(rf'<input[^>]*name="{re.escape(field)}"[^>]*>', html)
    if found is None:
        return None
    value = re.search(r'value="([^"]*)"', found.group(0))
    return value.group(1) if value else ""


PAGES = ("/ladder/", "/bots/", "/bots/alices-bot/", "/bots/alices-client/")


# --- every page, for everyone --------------------------------------------------------------


@pytest.mark.parametrize("who", ["visitor", "owner", "other"])
def test_every_bot_page_renders_for_a_visitor_the_owner_and_another_player(
    who: str, alice: User, bob: User, webhook_bot: Bot, client_bot: Bot
) -> None:
    client = signed_in({"visitor": None, "owner": alice, "other": bob}[who])

    for path in PAGES:
        response = client.get(path)
        assert response.status_code == 200, path
        assert "alices-" in text(response.content), path
        assert transfer_size(client, path) < BUDGET, path


def test_the_ladder_shows_ratings_and_links_each_bot_and_entering_one(
    client: Client, webhook_bot: Bot
) -> None:
    builtin_versions()
    html = client.get("/ladder/").content.decode()

    assert 'href="/bots/alices-bot/">alices-bot</a>' in html
    assert 'href="/bots/builtin-shark/">builtin-shark</a>' in html
    assert 'href="/bots/new/">Enter a bot</a>' in html
    assert f"Rating ({MU} {MINUS} 3{SIGMA})" in html
    assert "provisional" in text(html)


def test_the_ladder_shows_every_recorded_strength_table_with_its_command(
    client: Client,
) -> None:
    """bots/strength.json, as the arena and benchmarks/strength.py recorded it."""
    tables = strength.load()
    assert tables  # the repository ships measured tables
    html = client.get("/ladder/").content.decode()
    page = text(html)

    assert "How strong the built-ins are" in page
    for table in tables:
        assert escape(table.command) in html
        assert f"{table.games} games ({table.deals} deals)" in page
        for row in table.rows:
            label = str(figures.STRATEGY_NAMES[row.name])
            assert f"{label} {row.seats} {percent(row.win)} ± {percent(row.win_ci95)}" in page


def test_the_strength_tables_read_in_german(client: Client) -> None:
    page = text(client.get("/ladder/", HTTP_ACCEPT_LANGUAGE="de").content.decode())

    assert "Wie stark die eingebauten Spieler sind" in page
    assert re.search(r"\d+,\d %", page)


def test_entering_a_bot_asks_a_visitor_to_sign_in_first(client: Client) -> None:
    response = client.get("/bots/new/")

    assert response.status_code == 302
    assert response["Location"] == "/sign-in/?next=/bots/new/"


def test_a_bot_has_one_address_and_an_unknown_one_is_not_found(
    client: Client, webhook_bot: Bot
) -> None:
    response = client.get("/bots/ALICES-BOT/")

    assert response.status_code == 301
    assert response["Location"] == "/bots/alices-bot/"
    assert client.get("/bots/nobody-here/").status_code == 404


def test_my_bots_lists_the_signed_in_users_own_and_all_bots_lists_everyones(
    alice: User, bob: User, webhook_bot: Bot, client_bot: Bot
) -> None:
    services.bot_create(owner=bob, name="bobs-bot", kind=Bot.Kind.API_CLIENT)

    mine = text(signed_in(alice).get("/bots/").content)
    theirs = text(signed_in(bob).get("/bots/").content)
    visitor = text(signed_in(None).get("/bots/").content)

    my_part, all_part = mine.split("All bots")
    assert "alices-bot" in my_part
    assert "alices-client" in my_part
    assert "bobs-bot" not in my_part
    assert all(name in all_part for name in ("alices-bot", "alices-client", "bobs-bot"))
    assert "bobs-bot" in theirs.split("All bots")[0]
    assert "alices-bot" not in theirs.split("All bots")[0]
    assert "My bots" not in visitor
    assert "ready: plays ranked games" in all_part


# --- a bot's page -------------------------------------------------------------------------


def test_a_bots_page_shows_its_versions_with_status_times_rating_and_games(
    client: Client, alice: User, webhook_bot: Bot
) -> None:
    services.version_create(bot=webhook_bot, by=alice, url=URL, secret=SECRET, tag="second")

    page = text(client.get("/bots/alices-bot/").content)

    assert "Plays it safe." in page
    assert "webhook: the platform calls the bot's URL" in page
    assert "entered by alice" in page
    assert "Version 2 tagged “second” pending: waiting for validation" in page
    assert "Version 1 tagged “first” ready: plays ranked games" in page
    assert page.index("Version 2") < page.index("Version 1")  # newest first
    assert f"Rating ({MU} {MINUS} 3{SIGMA}) 0.00 ({MU} 25.00, {SIGMA} 8.33)" in page
    assert "Games 0" in page


def test_recent_matches_show_place_opponents_rating_change_and_replays(
    client: Client, webhook_bot: Bot
) -> None:
    matches = play_matches(webhook_bot, 2)
    html = client.get("/bots/alices-bot/").content.decode()

    rows = re.findall(r'<tr id="match-(\d+)">(.*?)</tr>', html, re.S)
    assert [int(pk) for pk, _ in rows] == [m.pk for m in reversed(matches)]
    for match, (_, row) in zip(reversed(matches), rows, strict=True):
        mine = match.entries.get(version__bot=webhook_bot)
        change = match.rating_changes.get(version__bot=webhook_bot)
        delta = (change.mu_after - 3 * change.sigma_after) - (
            change.mu_before - 3 * change.sigma_before
        )
        cells = text(row)
        assert f"{mine.place} v1" in cells
        assert f"{delta:+.2f}" in cells
        assert 'href="/bots/builtin-shark/">builtin-shark</a>' in row
        for game_id in match.match_games.values_list("game_id", flat=True):
            assert f'href="/games/{game_id}/replay/"' in row
    assert '<svg xmlns="http://www.w3.org/2000/svg" class="chart"' in html
    assert "Over 2 rated matches" in text(html)


def test_a_bot_without_matches_says_so(client: Client, client_bot: Bot) -> None:
    page = text(client.get("/bots/alices-client/").content)

    assert "No version yet." in page
    assert "No match yet." in page
    assert "No rated match yet." in page


# --- the owner's view and controls ----------------------------------------------------------


@pytest.fixture
def struck(alice: User, webhook_bot: Bot) -> Strike:
    """A timeout of alice's webhook version in a validation game."""
    version = webhook_bot.versions.get()
    match = services.match_create(
        versions=[version, *builtin_versions()], kind=Match.Kind.VALIDATION, duplicate=False
    )
    control = SeatControl.objects.get(seat__game__match_game__match=match, version=version)
    services.strike_record(
        control=control, game_version=3, reason="timeout", detail="no answer", elapsed_ms=16000
    )
    return Strike.objects.get(control=control)


def test_the_owner_sees_the_url_validation_log_strikes_and_controls(
    alice: User, struck: Strike
) -> None:
    html = signed_in(alice).get("/bots/alices-bot/").content.decode()
    page = text(html)

    assert URL in page
    assert "handshake: 'alices-bot', protocol 1" in page
    assert 'action="/bots/alices-bot/versions/"' in html
    assert 'name="rotate-secret"' in html
    game = struck.control.seat.game_id
    strikes = page.split("Strikes", 1)[1]
    assert f"v1 game {game} seat {struck.control.seat.number}, decision 3" in strikes
    assert "timeout no answer (16000 ms)" in strikes
    assert f'href="/games/{game}/replay/"' in html


@pytest.mark.parametrize("who", ["visitor", "other"])
def test_nobody_else_sees_the_url_log_strikes_or_controls(
    who: str, bob: User, struck: Strike
) -> None:
    html = signed_in(None if who == "visitor" else bob).get("/bots/alices-bot/").content.decode()

    assert URL not in html
    assert "handshake:" not in html
    assert "<form" not in html.split('<main id="main">')[1]
    assert "Strikes" not in text(html)
    assert "no answer" not in html


@pytest.mark.parametrize("path", ["/bots/alices-bot/versions/", "/bots/alices-client/tokens/"])
def test_the_services_refuse_the_controls_to_anyone_else(
    path: str, bob: User, webhook_bot: Bot, client_bot: Bot
) -> None:
    form = {"url": URL, "secret": SECRET, "name": "stolen", "tag": "x"}

    assert signed_in(bob).post(path, form).status_code == 403
    visitor = signed_in(None).post(path, form)
    assert visitor.status_code == 302
    assert visitor["Location"].startswith("/sign-in/")
    assert BotVersion.objects.filter(tag="x").count() == 0
    assert not ApiToken.objects.filter(name="stolen").exists()


def test_an_owner_registers_a_bot_and_lands_on_its_page(alice: User) -> None:
    client = signed_in(alice)
    form = {"name": "new-pair", "kind": "api_client", "description": "Greedy, then not."}

    response = client.post("/bots/new/", form)

    assert response.status_code == 302
    assert response["Location"] == "/bots/new-pair/"
    bot = Bot.objects.get(name="new-pair")
    assert (bot.owner, bot.kind, bot.description) == (alice, "api_client", "Greedy, then not.")


@pytest.mark.parametrize(
    ("name", "kind", "field", "message"),
    [
        ("-bad", "webhook", "name", "A bot name is 2-40 letters"),
        ("ALICES-BOT", "webhook", "name", "A bot with this name exists."),
        ("new", "webhook", "name", "and not 'new'"),
        ("my-builtin", "builtin", "kind", "Select a valid choice."),
    ],
)
def test_a_refused_registration_is_shown_beside_its_field_with_what_was_typed(
    name: str, kind: str, field: str, message: str, alice: User, webhook_bot: Bot
) -> None:
    response = signed_in(alice).post(
        "/bots/new/", {"name": name, "kind": kind, "description": "kept"}
    )
    html = response.content.decode()

    assert response.status_code == 400
    assert message in field_error(html, field)
    assert value_of(html, "name") == name
    assert "kept</textarea>" in html
    assert Bot.objects.count() == 1


def test_staff_may_register_a_built_in_strategy(staff: User) -> None:
    client = signed_in(staff)
    assert 'value="builtin"' in client.get("/bots/new/").content.decode()

    response = client.post("/bots/new/", {"name": "house", "kind": "builtin"})

    assert response.status_code == 302
    assert Bot.objects.get(name="house").kind == Bot.Kind.BUILTIN


def test_an_owner_adds_a_webhook_version_with_a_secret_of_their_own(
    alice: User, webhook_bot: Bot
) -> None:
    client = signed_in(alice)
    html = client.get("/bots/alices-bot/").content.decode()
    # no secret is filled in: the owner types one, or makes one with the Generate button
    assert value_of(html, "secret") == ""
    assert 'data-generate-secret="#id_secret"' in html
    assert value_of(html, "url") == URL  # the newest version's, to start from
    typed = "my-own-secret-for-v2-0123"

    response = client.post("/bots/alices-bot/versions/", {"url": URL, "secret": typed, "tag": "v2"})

    assert response.status_code == 302
    assert response["Location"] == "/bots/alices-bot/#version-2"
    version = webhook_bot.versions.get(number=2)
    assert (version.url, version.secret, version.tag, version.status) == (
        URL,
        typed,
        "v2",
        BotVersion.Status.PENDING,
    )


@pytest.mark.parametrize(
    ("url", "secret", "field", "message"),
    [
        (URL, "too-short", "secret", "A webhook secret needs 16 characters or more."),
        ("http://10.1.2.3/bot", SECRET, "url", "not a public internet address"),
        ("https://nowhere.example.test/bot", SECRET, "url", "resolves to no address"),
        ("ftp://bots.example.com/bot", SECRET, "url", "must start with http:// or https://"),
        ("", SECRET, "url", "This field is required."),
    ],
)
def test_a_refused_version_is_shown_beside_its_field_with_what_was_typed(
    url: str, secret: str, field: str, message: str, alice: User, webhook_bot: Bot
) -> None:
    response = signed_in(alice).post(
        "/bots/alices-bot/versions/", {"url": url, "secret": secret, "tag": "typed"}
    )
    html = response.content.decode()

    assert response.status_code == 400
    assert message in field_error(html, field)
    assert value_of(html, "url") == url
    assert value_of(html, "secret") == secret
    assert value_of(html, "tag") == "typed"
    assert webhook_bot.versions.count() == 1


def test_rotating_the_secret_is_a_new_version_with_the_same_url(
    alice: User, webhook_bot: Bot
) -> None:
    client = signed_in(alice)
    html = client.get("/bots/alices-bot/").content.decode()
    assert value_of(html, "rotate-secret") == ""  # typed or generated, never filled in
    assert 'data-generate-secret="#id_rotate-secret"' in html
    rotated = "the-rotated-secret-0123456"

    form = {"form": "rotate", "rotate-url": URL, "rotate-secret": rotated, "rotate-tag": "first"}
    response = client.post("/bots/alices-bot/versions/", form)

    assert response.status_code == 302
    newest = webhook_bot.versions.get(number=2)
    assert (newest.url, newest.secret) == (URL, rotated)


def test_no_two_different_secrets_are_offered_on_one_page(alice: User, webhook_bot: Bot) -> None:
    html = signed_in(alice).get("/bots/alices-bot/").content.decode()

    assert value_of(html, "secret") == value_of(html, "rotate-secret") == ""
    assert SECRET not in html  # the stored one is never shown either


def test_every_field_error_of_a_version_shows_at_once(alice: User, webhook_bot: Bot) -> None:
    typed = {"url": "bots.example.com/cya", "secret": "short", "tag": "typed"}

    response = signed_in(alice).post("/bots/alices-bot/versions/", typed)
    html = response.content.decode()

    assert response.status_code == 400
    assert "must start with http:// or https://" in field_error(html, "url")
    assert "16 characters or more" in field_error(html, "secret")
    assert (value_of(html, "url"), value_of(html, "secret")) == (typed["url"], "short")
    assert webhook_bot.versions.count() == 1


def test_a_refused_rotation_is_shown_in_the_rotation_form(alice: User, webhook_bot: Bot) -> None:
    form = {"form": "rotate", "rotate-url": URL, "rotate-secret": "short", "rotate-tag": ""}

    response = signed_in(alice).post("/bots/alices-bot/versions/", form)
    html = response.content.decode()

    assert response.status_code == 400
    assert "16 characters or more" in field_error(html, "rotate-secret")
    assert value_of(html, "rotate-secret") == "short"
    assert field_error(html, "secret") == ""
    assert webhook_bot.versions.count() == 1


def test_an_api_client_version_takes_a_tag_only(alice: User, client_bot: Bot) -> None:
    client = signed_in(alice)
    html = client.get("/bots/alices-client/").content.decode()
    assert value_of(html, "url") is None
    assert value_of(html, "secret") is None

    response = client.post("/bots/alices-client/versions/", {"tag": "laptop build"})

    assert response.status_code == 302
    version = client_bot.versions.get()
    assert (version.tag, version.url, version.secret) == ("laptop build", "", "")


def test_an_owner_gets_a_token_shown_once_with_a_copy_button(alice: User, client_bot: Bot) -> None:
    client = signed_in(alice)

    response = client.post("/bots/alices-client/tokens/", {"name": "laptop"})
    html = response.content.decode()

    assert response.status_code == 201
    key = value_of(html, "token-key") or re.search(r'id="token-key"[^>]*value="([^"]+)"', html)
    match = re.search(r'id="token-key" type="text" readonly value="([^"]+)"', html)
    assert match is not None, key
    token = ApiToken.objects.get(user=client_bot.user)
    assert token.name == "laptop"
    assert match.group(1).startswith(token.prefix)
    assert 'data-copy="#token-key"' in html
    assert match.group(1) not in client.get("/bots/alices-client/").content.decode()


def test_a_webhook_bot_offers_no_token(alice: User, webhook_bot: Bot) -> None:
    html = signed_in(alice).get("/bots/alices-bot/").content.decode()
    response = signed_in(alice).post("/bots/alices-bot/tokens/", {"name": "laptop"})

    assert "/tokens/" not in html
    assert response.status_code == 400
    assert "Only API-client bots hold tokens." in text(response.content)
    assert not ApiToken.objects.filter(user=webhook_bot.user).exists()


# --- budgets ------------------------------------------------------------------------------


def test_a_bots_page_takes_the_same_queries_however_many_versions_and_matches(
    alice: User, webhook_bot: Bot, struck: Strike, django_assert_max_num_queries: Any
) -> None:
    client = signed_in(alice)
    play_matches(webhook_bot, 1)
    with django_assert_max_num_queries(14) as few:
        client.get("/bots/alices-bot/")

    for tag in ("b", "c", "d"):
        services.version_create(bot=webhook_bot, by=alice, url=URL, secret=SECRET, tag=tag)
    BotVersion.objects.filter(bot=webhook_bot).update(status=BotVersion.Status.RETIRED)
    BotVersion.objects.filter(bot=webhook_bot, number=4).update(status=BotVersion.Status.READY)
    play_matches(webhook_bot, 3)
    with django_assert_max_num_queries(len(few.captured_queries)):
        response = client.get("/bots/alices-bot/")

    assert "Version 4 tagged “d”" in text(response.content)
    assert transfer_size(client, "/bots/alices-bot/") < BUDGET


def test_the_bot_list_takes_the_same_queries_however_many_bots(
    alice: User, django_assert_max_num_queries: Any
) -> None:
    client = signed_in(alice)
    services.bot_create(owner=alice, name="one", kind=Bot.Kind.API_CLIENT)
    with django_assert_max_num_queries(14) as few:
        client.get("/bots/")

    for n in range(5):
        bot = services.bot_create(owner=alice, name=f"more-{n}", kind=Bot.Kind.API_CLIENT)
        services.version_create(bot=bot, by=alice, tag="t")
    with django_assert_max_num_queries(len(few.captured_queries)):
        response = client.get("/bots/")

    assert "more-4" in text(response.content)


def test_the_versions_follow_a_validation_by_themselves_and_stop_once_it_ends(
    alice: User, webhook_bot: Bot
) -> None:
    client = signed_in(alice)
    assert 'hx-trigger="every 3s"' not in client.get("/bots/alices-bot/").content.decode()

    services.version_create(bot=webhook_bot, by=alice, url=URL, secret=SECRET)
    refused = client.post("/bots/alices-bot/versions/", {"url": URL, "secret": "short"})

    for html in (client.get("/bots/alices-bot/").content.decode(), refused.content.decode()):
        assert 'id="versions" hx-get="/bots/alices-bot/" hx-trigger="every 3s"' in html
