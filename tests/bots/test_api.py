"""The bots API: entries, versions, tokens, strikes, the ladder and matches.

Every request goes through ``APIClient`` and checks the status, the body's ``code`` and
the database. The permission matrix at the end covers every bots endpoint for the four
kinds of caller: anonymous, another user (bob), the owner (alice) and staff.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from django.db import IntegrityError
from prometheus_client import REGISTRY
from pytest_django import Settings
from rest_framework.test import APIClient

from accounts.models import ApiToken, User
from bots import ratings, runner, services
from bots.models import Bot, BotVersion, Match, RatingChange, SeatControl, Strike
from bots.strategies import STRATEGIES
from bots.validation import builtin_versions
from cya_site.errors import DomainError
from tests.bots.bot_servers import SECRET
from tests.bots.checks import quick
from tests.factories import UserFactory

ROOT = Path(__file__).resolve().parents[2]
WEBHOOK = {"url": "https://bots.example.com/cya", "secret": SECRET}

Caller = Callable[[User | None], APIClient]


@pytest.fixture(autouse=True)
def _bots_host(hosts: dict[str, list[str]]) -> None:
    """WEBHOOK's host resolves, to loopback: the versions here are never called."""
    hosts["bots.example.com"] = ["127.0.0.1"]


@pytest.fixture
def as_(api_as: Callable[[User], APIClient]) -> Caller:
    """An API client for a user, or an anonymous one for None."""

    def build(user: User | None) -> APIClient:
        return APIClient() if user is None else api_as(user)

    return build


def assert_error(response: Any, status: int, code: str) -> dict[str, Any]:
    """The one error shape, with this status and stable code; returns its details."""
    assert response.status_code == status, response.content
    body = response.json()
    assert set(body) == {"code", "message", "details", "request_id"}
    assert body["code"] == code, body
    assert isinstance(body["message"], str)
    assert body["message"]
    details: dict[str, Any] = body["details"]
    return details


@pytest.fixture
def webhook_bot(alice: User) -> Bot:
    """Alice's webhook bot with one ready version, validated with a log."""
    bot = services.bot_create(owner=alice, name="alices-bot", kind=Bot.Kind.WEBHOOK)
    version = services.version_create(bot=bot, by=alice, **WEBHOOK)
    services.version_validated(
        version=version, passed=True, log=["handshake: 'alices-bot', protocol 1", "passed"]
    )
    return bot


@pytest.fixture
def client_bot(alice: User) -> Bot:
    """Alice's API-client bot."""
    return services.bot_create(owner=alice, name="alices-client", kind=Bot.Kind.API_CLIENT)


# --- registering bots ---------------------------------------------------------------------


@pytest.mark.parametrize("kind", [Bot.Kind.WEBHOOK, Bot.Kind.API_CLIENT])
def test_a_player_registers_a_bot_that_plays_as_its_own_user(
    kind: str, as_: Caller, alice: User
) -> None:
    response = as_(alice).post(
        "/api/v1/bots/", {"name": "Alices-Bot", "kind": kind, "description": "mine"}
    )

    assert response.status_code == 201, response.content
    body = response.json()
    assert body["name"] == "Alices-Bot"
    assert body["kind"] == kind
    assert body["owner"] == "alice"
    assert body["username"] == "bot.Alices-Bot"
    assert body["latest"] is None
    bot = Bot.objects.get(pk=body["id"])
    assert bot.owner == alice
    assert bot.user.is_bot
    assert not bot.user.has_usable_password()


def test_only_staff_register_built_in_strategies(as_: Caller, alice: User, staff: User) -> None:
    refused = as_(alice).post("/api/v1/bots/", {"name": "alices-shark", "kind": "builtin"})
    assert_error(refused, 403, "permission_denied")
    assert refused.json()["message"] == "Only staff register built-in strategies."
    assert not Bot.objects.filter(name="alices-shark").exists()

    created = as_(staff).post("/api/v1/bots/", {"name": "house-shark", "kind": "builtin"})
    assert created.status_code == 201
    assert Bot.objects.get(name="house-shark").kind == Bot.Kind.BUILTIN


@pytest.mark.parametrize(
    "name",
    ["a", "-starts-with-a-dash", "_underscore-first", "has space", "dots.in.it", "émigré", "new"],
)
def test_a_bot_name_must_be_2_to_40_letters_digits_dashes_or_underscores_and_not_new(
    name: str, as_: Caller, alice: User
) -> None:
    response = as_(alice).post("/api/v1/bots/", {"name": name, "kind": "webhook"})
    details = assert_error(response, 422, "invalid_bot_name")
    assert details == {"name": name}
    assert response.json()["message"] == (
        "A bot name is 2-40 letters, digits, '-' or '_', starting with a letter or digit, "
        "and not 'new'."
    )
    assert not Bot.objects.exists()


def test_no_bot_is_named_new_in_any_letter_case(alice: User) -> None:
    for name in ("New", "NEW"):
        with pytest.raises(DomainError) as refused:
            services.bot_create(owner=alice, name=name, kind=Bot.Kind.WEBHOOK)
        assert refused.value.code == "invalid_bot_name"
    assert not Bot.objects.exists()


def test_a_bot_of_an_unknown_kind_is_told_the_kinds_there_are(alice: User) -> None:
    with pytest.raises(DomainError) as refused:
        services.bot_create(owner=alice, name="alices-bot", kind="robot")

    kinds = ", ".join(Bot.Kind.values)
    assert (refused.value.code, refused.value.message) == (
        "invalid_bot_kind",
        f"kind must be one of {kinds}",
    )
    assert not Bot.objects.exists()


def test_a_bot_keeps_its_description_and_one_registered_without_has_none(alice: User) -> None:
    described = services.bot_create(
        owner=alice, name="alices-bot", kind=Bot.Kind.WEBHOOK, description="plays for pairs"
    )
    plain = services.bot_create(owner=alice, name="alices-other", kind=Bot.Kind.WEBHOOK)

    described.refresh_from_db()
    assert (described.description, plain.description) == ("plays for pairs", "")


def test_a_bot_name_over_40_characters_is_invalid_input(as_: Caller, alice: User) -> None:
    response = as_(alice).post("/api/v1/bots/", {"name": "x" * 41, "kind": "webhook"})
    details = assert_error(response, 400, "invalid")
    assert details["name"][0]["code"] == "max_length"


def test_bot_names_are_unique_whatever_their_letter_case(
    as_: Caller, alice: User, bob: User
) -> None:
    assert as_(alice).post("/api/v1/bots/", {"name": "Shark", "kind": "webhook"}).status_code == 201

    response = as_(bob).post("/api/v1/bots/", {"name": "sHARK", "kind": "api_client"})

    assert assert_error(response, 409, "bot_name_taken") == {"name": "sHARK"}
    assert response.json()["message"] == "A bot with this name exists."
    assert list(Bot.objects.values_list("name", flat=True)) == ["Shark"]


def taken(name: str, owner: User) -> DomainError:
    with pytest.raises(DomainError) as refused:
        services.bot_create(owner=owner, name=name, kind=Bot.Kind.WEBHOOK)
    return refused.value


# the refusal of the name "orca", however it was found taken
ORCA_TAKEN = ("bot_name_taken", "A bot with this name exists.", {"name": "orca"}, 409)


def test_a_name_whose_bot_account_exists_is_taken(alice: User) -> None:
    UserFactory.create(username="bot.Orca")

    refused = taken("orca", alice)

    assert (refused.code, refused.message, refused.details, refused.http_status) == ORCA_TAKEN
    assert not Bot.objects.exists()


def test_the_second_of_two_registrations_of_one_name_at_once_is_told_it_is_taken(
    alice: User, monkeypatch: pytest.MonkeyPatch
) -> None:
    def registered_meanwhile(**fields: Any) -> User:  # the other registration's account
        raise IntegrityError("duplicate key value violates unique constraint")

    monkeypatch.setattr(User.objects, "create_user", registered_meanwhile)

    refused = taken("orca", alice)

    assert (refused.code, refused.message, refused.details, refused.http_status) == ORCA_TAKEN


@pytest.mark.parametrize(
    ("body", "field", "code"),
    [
        ({"name": "ok-bot"}, "kind", "required"),
        ({"name": "ok-bot", "kind": "telepathic"}, "kind", "invalid_choice"),
        ({"name": "ok-bot", "kind": "webhook", "colour": "red"}, "colour", "unknown_field"),
    ],
)
def test_bad_registrations_name_the_field_and_why(
    body: dict[str, Any], field: str, code: str, as_: Caller, alice: User
) -> None:
    details = assert_error(as_(alice).post("/api/v1/bots/", body), 400, "invalid")
    assert details[field][0]["code"] == code
    assert not Bot.objects.exists()


def test_a_body_that_is_not_json_is_refused_with_its_code(as_: Caller, alice: User) -> None:
    response = as_(alice).post("/api/v1/bots/", data="{not json", content_type="application/json")
    assert_error(response, 400, "malformed_json")


# --- versions -----------------------------------------------------------------------------


def test_versions_are_numbered_pending_validation_and_never_show_their_secret(
    as_: Caller, alice: User, client_bot: Bot
) -> None:
    bot = services.bot_create(owner=alice, name="alices-hook", kind=Bot.Kind.WEBHOOK)
    client = as_(alice)
    url = f"/api/v1/bots/{bot.pk}/versions/"

    first = client.post(url, {**WEBHOOK, "tag": "first"})
    second = client.post(url, {**WEBHOOK, "tag": "second"})

    assert first.status_code == second.status_code == 201
    assert [first.json()["number"], second.json()["number"]] == [1, 2]
    assert first.json()["status"] == BotVersion.Status.PENDING
    assert "secret" not in first.json()
    for response in (first, second, client.get(url), client.get(f"/api/v1/bots/{bot.pk}/")):
        assert SECRET not in response.content.decode()
    assert list(bot.versions.order_by("number").values_list("tag", "secret")) == [
        ("first", SECRET),
        ("second", SECRET),
    ]


def test_versions_cannot_be_changed_or_deleted(as_: Caller, alice: User, webhook_bot: Bot) -> None:
    client = as_(alice)
    url = f"/api/v1/bots/{webhook_bot.pk}/versions/"
    before = list(BotVersion.objects.values())
    for method in (client.put, client.patch, client.delete):
        assert_error(method(url, {"url": "https://evil.example.com/"}), 405, "method_not_allowed")
    for method in (client.put, client.patch, client.delete):
        response = method(f"/api/v1/bots/{webhook_bot.pk}/", {"name": "renamed"})
        assert_error(response, 405, "method_not_allowed")
    assert list(BotVersion.objects.values()) == before
    assert Bot.objects.get(pk=webhook_bot.pk).name == "alices-bot"


@pytest.mark.parametrize(
    ("kind", "body", "code", "field"),
    [
        ("webhook", {"secret": SECRET}, "invalid", "url"),
        ("webhook", {"url": "ftp://bots.example.com/", "secret": SECRET}, "invalid", "url"),
        ("webhook", {"url": "https://bots.example.com/", "secret": "short"}, "invalid", "secret"),
        ("webhook", {**WEBHOOK, "strategy": "greedy"}, "invalid", "strategy"),
        ("api_client", WEBHOOK, "invalid", "url"),
        ("builtin", {}, "unknown_strategy", None),
    ],
)
def test_a_version_must_fit_its_bots_kind(
    kind: str,
    body: dict[str, Any],
    code: str,
    field: str | None,
    as_: Caller,
    staff: User,
) -> None:
    bot = services.bot_create(owner=staff, name="house-bot", kind=kind)

    response = as_(staff).post(f"/api/v1/bots/{bot.pk}/versions/", body)

    details = assert_error(response, 422, code)
    if field is not None:
        assert details == {"field": field}
    assert not bot.versions.exists()


SHORT_SECRET = "A webhook secret needs 16 characters or more."
NOT_BUILTIN = "Only built-in bots take a strategy."
NOT_WEBHOOK = "Only webhook bots take a URL and secret."


@pytest.mark.parametrize(
    ("kind", "fields", "field", "message"),
    [
        ("webhook", {**WEBHOOK, "secret": "s" * 15}, "secret", SHORT_SECRET),
        ("webhook", {**WEBHOOK, "strategy": "greedy"}, "strategy", NOT_BUILTIN),
        ("api_client", {"url": WEBHOOK["url"]}, "url", NOT_WEBHOOK),
        ("api_client", {"secret": SECRET}, "url", NOT_WEBHOOK),
    ],
)
def test_a_version_that_does_not_fit_its_bots_kind_is_told_why(
    kind: str, fields: dict[str, str], field: str, message: str, staff: User
) -> None:
    bot = services.bot_create(owner=staff, name="house-bot", kind=kind)

    with pytest.raises(DomainError) as refused:
        services.version_create(bot=bot, by=staff, **fields)

    assert (refused.value.code, refused.value.details, refused.value.message) == (
        "invalid",
        {"field": field},
        message,
    )
    assert not bot.versions.exists()


def test_only_the_owner_or_staff_make_a_bots_versions(alice: User, bob: User) -> None:
    bot = services.bot_create(owner=alice, name="alices-bot", kind=Bot.Kind.WEBHOOK)

    with pytest.raises(DomainError) as refused:
        services.version_create(bot=bot, by=bob, **WEBHOOK)

    assert (refused.value.code, refused.value.message, refused.value.http_status) == (
        "permission_denied",
        "This bot is someone else's.",
        403,
    )
    assert not bot.versions.exists()


def test_a_webhook_secret_of_16_characters_is_enough(alice: User) -> None:
    bot = services.bot_create(owner=alice, name="alices-bot", kind=Bot.Kind.WEBHOOK)

    version = services.version_create(bot=bot, by=alice, url=WEBHOOK["url"], secret="s" * 16)

    assert version.secret == "s" * 16


def test_a_built_in_version_without_a_strategy_is_told_every_strategy_there_is(
    as_: Caller, staff: User
) -> None:
    bot = services.bot_create(owner=staff, name="house-bot", kind=Bot.Kind.BUILTIN)

    response = as_(staff).post(f"/api/v1/bots/{bot.pk}/versions/", {})

    assert_error(response, 422, "unknown_strategy")
    names = ", ".join(sorted(STRATEGIES))
    assert response.json()["message"] == f"strategy must be one of {names}"


def test_an_unknown_strategy_is_invalid_input(as_: Caller, staff: User) -> None:
    bot = services.bot_create(owner=staff, name="house-bot", kind=Bot.Kind.BUILTIN)
    response = as_(staff).post(f"/api/v1/bots/{bot.pk}/versions/", {"strategy": "psychic"})
    assert assert_error(response, 400, "invalid")["strategy"][0]["code"] == "invalid_choice"


def test_a_new_version_starts_from_the_previous_mu_with_its_uncertainty_reset(
    as_: Caller, alice: User, webhook_bot: Bot
) -> None:
    webhook_bot.versions.update(mu=30.0, sigma=1.5)
    response = as_(alice).post(f"/api/v1/bots/{webhook_bot.pk}/versions/", WEBHOOK)
    assert (response.json()["mu"], response.json()["sigma"]) == (30.0, 25.0 / 3)


@pytest.mark.parametrize("field", ["url", "validation_log"])
def test_the_webhook_url_and_validation_log_are_shown_to_the_owner_and_staff_only(
    as_: Caller, alice: User, bob: User, staff: User, webhook_bot: Bot, field: str
) -> None:
    owners_view = {
        "url": webhook_bot.versions.get().url,
        "validation_log": ["handshake: 'alices-bot', protocol 1", "passed"],
    }[field]
    assert owners_view
    for user, shown in ((alice, owners_view), (staff, owners_view), (bob, None), (None, None)):
        client = as_(user)
        versions = client.get(f"/api/v1/bots/{webhook_bot.pk}/versions/").json()["results"]
        assert versions[0][field] == shown
        detail = client.get(f"/api/v1/bots/{webhook_bot.pk}/").json()
        assert detail["latest"][field] == shown
        listed = client.get("/api/v1/bots/").json()["results"]
        assert [b["latest"][field] for b in listed if b["id"] == webhook_bot.pk] == [shown]


# --- tokens -------------------------------------------------------------------------------


def test_an_api_client_bots_token_is_shown_once_and_lets_the_bot_act_as_itself(
    as_: Caller, alice: User, client_bot: Bot
) -> None:
    response = as_(alice).post(f"/api/v1/bots/{client_bot.pk}/tokens/", {"name": "laptop"})

    assert response.status_code == 201
    body = response.json()
    assert set(body) == {"id", "name", "prefix", "key"}
    token = ApiToken.objects.get(pk=body["id"])
    assert token.user == client_bot.user
    assert body["key"].startswith(token.prefix)
    assert body["key"] not in (token.key_hash, token.prefix)  # only a hash is stored
    me = APIClient()
    me.credentials(HTTP_AUTHORIZATION=f"Bearer {body['key']}")
    assert me.get("/api/v1/auth/me/").json()["username"] == "bot.alices-client"
    # and it is never shown again
    listing = as_(alice).get(f"/api/v1/bots/{client_bot.pk}/").content.decode()
    assert body["key"] not in listing


def test_only_api_client_bots_hold_tokens(as_: Caller, alice: User, webhook_bot: Bot) -> None:
    response = as_(alice).post(f"/api/v1/bots/{webhook_bot.pk}/tokens/", {"name": "x"})
    assert_error(response, 409, "invalid_bot_kind")
    assert response.json()["message"] == "Only API-client bots hold tokens."
    assert not ApiToken.objects.filter(user=webhook_bot.user).exists()


@pytest.mark.parametrize("who", ["bob", "staff"])
def test_only_the_owner_gets_a_token_for_a_bot(
    who: str, as_: Caller, request: pytest.FixtureRequest, client_bot: Bot
) -> None:
    user: User = request.getfixturevalue(who)
    response = as_(user).post(f"/api/v1/bots/{client_bot.pk}/tokens/", {"name": "mine-now"})
    assert_error(response, 403, "permission_denied")
    assert response.json()["message"] == "Only the bot's owner gets its tokens."
    assert not ApiToken.objects.filter(user=client_bot.user).exists()


# --- strikes ------------------------------------------------------------------------------


@pytest.fixture
def seated(webhook_bot: Bot) -> SeatControl:
    """Alice's ready bot seated against the built-ins, not struck yet."""
    version = webhook_bot.versions.get()
    match = services.match_create(versions=[version, *builtin_versions()[:2]], duplicate=False)
    return SeatControl.objects.get(seat__game__match_game__match=match, version=version)


@pytest.fixture
def struck(seated: SeatControl) -> SeatControl:
    """Alice's bot seated against the built-ins, with one timeout strike."""
    return services.strike_record(
        control=seated,
        game_version=0,
        reason="timeout",
        detail="no answer within 16000 ms",
        elapsed_ms=16000,
    )


def test_a_bots_strikes_say_where_and_why_to_its_owner(
    as_: Caller, alice: User, struck: SeatControl, webhook_bot: Bot
) -> None:
    response = as_(alice).get(f"/api/v1/bots/{webhook_bot.pk}/strikes/")

    assert response.status_code == 200
    assert response.json() == [
        {
            "game": struck.seat.game_id,
            "seat": struck.seat.number,
            "version_number": struck.version.number,
            "game_version": 0,
            "reason": "timeout",
            "detail": "no answer within 16000 ms",
            "elapsed_ms": 16000,
            "created_at": response.json()[0]["created_at"],
        }
    ]


def test_nobody_else_sees_a_bots_strikes(
    as_: Caller, bob: User, struck: SeatControl, webhook_bot: Bot
) -> None:
    assert_error(as_(bob).get(f"/api/v1/bots/{webhook_bot.pk}/strikes/"), 403, "permission_denied")
    assert_error(as_(None).get(f"/api/v1/bots/{webhook_bot.pk}/strikes/"), 401, "not_authenticated")


def strike(control: SeatControl, reason: str = "illegal", detail: str = "") -> SeatControl:
    return services.strike_record(
        control=control, game_version=2, reason=reason, detail=detail, elapsed_ms=40
    )


def test_a_strikes_detail_is_kept_to_its_first_500_characters(seated: SeatControl) -> None:
    strike(seated, detail="y" * 600)

    assert Strike.objects.get(control=seated).detail == "y" * 500


def test_the_third_strike_hands_the_seat_to_the_autopilot_once(seated: SeatControl) -> None:
    handed = [strike(seated).autopilot_since for _ in range(4)]

    assert handed[:2] == [None, None]
    assert handed[2] is not None
    assert handed[3] == handed[2]  # a fourth strike leaves it as it was


def test_each_strike_is_counted_under_its_reason_once_committed(
    seated: SeatControl, django_capture_on_commit_callbacks: Any
) -> None:
    def strikes(reason: str) -> float:
        return REGISTRY.get_sample_value("cya_bot_strikes_total", {"reason": reason}) or 0.0

    before = strikes("malformed")
    with django_capture_on_commit_callbacks(execute=True):
        strike(seated, reason="malformed")

    assert strikes("malformed") == before + 1


def test_a_bot_paused_for_its_strikes_is_told_the_latest_one(
    seated: SeatControl, settings: Settings
) -> None:
    settings.BOT_PAUSE_STRIKES = 1

    strike(seated, reason="timeout", detail="no answer within 16000 ms")

    version = BotVersion.objects.get(pk=seated.version_id)
    assert (version.status, version.pause_detail) == (
        BotVersion.Status.PAUSED,
        "1 strikes in a row across games; the latest: timeout (no answer within 16000 ms)",
    )


def test_a_seat_handed_to_the_autopilot_counts_towards_a_pause(
    seated: SeatControl, settings: Settings
) -> None:
    settings.BOT_PAUSE_STRIKES = 10
    settings.BOT_PAUSE_AUTOPILOT_GAMES = 1

    for _ in range(3):
        strike(seated)

    version = BotVersion.objects.get(pk=seated.version_id)
    assert (version.status, version.pause_reason) == (
        BotVersion.Status.PAUSED,
        BotVersion.PauseReason.AUTOPILOT,
    )


# --- the ladder and matches ---------------------------------------------------------------


def test_the_leaderboard_ranks_ready_versions_by_mu_minus_3_sigma_and_flags_provisional(
    as_: Caller, owners: list[User]
) -> None:
    rows = [  # (mu, sigma, games): ordinals 26, 20, 19, 10
        (32.0, 2.0, 40),
        (35.0, 5.0, 40),
        (22.0, 1.0, 5),
        (25.0, 5.0, 12),
    ]
    versions = []
    for owner, (mu, sigma, games) in zip(owners, rows, strict=False):
        bot = services.bot_create(owner=owner, name=f"{owner.username}-bot", kind="api_client")
        versions.append(
            BotVersion.objects.create(
                bot=bot, number=1, status="ready", mu=mu, sigma=sigma, games_played=games
            )
        )
    hidden = services.bot_create(owner=owners[0], name="switched-off", kind="api_client")
    hidden.is_active = False
    hidden.save()
    BotVersion.objects.create(bot=hidden, number=1, status="ready", mu=50.0, sigma=1.0)
    pending = services.bot_create(owner=owners[1], name="not-yet", kind="api_client")
    BotVersion.objects.create(bot=pending, number=1, status="pending", mu=50.0, sigma=1.0)

    board = as_(None).get("/api/v1/ladder/").json()

    assert [row["version_id"] for row in board] == [v.pk for v in versions]
    assert [row["rank"] for row in board] == [1, 2, 3, 4]
    assert [row["ordinal"] for row in board] == [26.0, 20.0, 19.0, 10.0]
    assert [row["provisional"] for row in board] == [False, True, True, True]
    assert board[0] == {
        "rank": 1,
        "bot": f"{owners[0].username}-bot",
        "owner": owners[0].username,
        "version": 1,
        "version_id": versions[0].pk,
        "mu": 32.0,
        "sigma": 2.0,
        "ordinal": 26.0,
        "games_played": 40,
        "provisional": False,
    }
    assert ratings.provisional(5.0, 40)


@pytest.fixture
def owners(alice: User, bob: User, carol: User, staff: User) -> list[User]:
    return [alice, bob, carol, staff]


def test_a_match_shows_its_entries_games_and_each_rating_change_explained(
    as_: Caller, db: None
) -> None:
    versions = builtin_versions()
    match = services.match_create(versions=versions, rules=quick(3))
    runner.run_match(match)

    body = as_(None).get(f"/api/v1/matches/{match.pk}/").json()

    assert body["status"] == Match.Status.FINISHED
    assert body["games"] == list(match.match_games.values_list("game_id", flat=True))
    assert sorted(e["bot"] for e in body["entries"]) == sorted(v.bot.name for v in versions)
    assert {e["place"] for e in body["entries"]} <= {1, 2, 3}
    assert len(body["rating_changes"]) == 3
    for shown in body["rating_changes"]:
        change = RatingChange.objects.get(match=match, version__bot__name=shown["bot"])
        assert shown["expected_place"] == pytest.approx(change.expected_place)
        assert shown["actual_place"] == change.actual_place
        explanation = shown["explanation"]
        assert explanation.startswith(
            f"expected place {change.expected_place:.2f}, finished {change.actual_place} ("
        )
        assert f"mu {change.mu_after - change.mu_before:+.2f}" in explanation
        assert f"sigma {change.sigma_after - change.sigma_before:+.2f}" in explanation
        verdict = re.search(r"\((better than|worse than|as) expected\)", explanation)
        assert verdict is not None
        if change.actual_place < change.expected_place - 0.25:
            assert verdict.group(1) == "better than"
            assert change.mu_after > change.mu_before


def test_matches_are_listed_and_filtered_by_kind_and_status(as_: Caller, db: None) -> None:
    versions = builtin_versions()
    ladder_match = services.match_create(versions=versions, duplicate=False)
    services.match_create(versions=versions, kind=Match.Kind.VALIDATION, duplicate=False)
    client = as_(None)

    listing = client.get("/api/v1/matches/", {"kind": "ladder"}).json()

    rows = listing["results"] if isinstance(listing, dict) else listing
    assert [row["id"] for row in rows] == [ladder_match.pk]
    finished = client.get("/api/v1/matches/", {"status": "finished"}).json()
    assert (finished["results"] if isinstance(finished, dict) else finished) == []


def test_matches_are_filtered_by_a_bot_by_its_id_or_its_name(
    as_: Caller, alice: User, webhook_bot: Bot
) -> None:
    shark, greedy, random_ = builtin_versions()
    mine = webhook_bot.versions.get()
    with_mine = services.match_create(versions=[mine, shark, greedy], duplicate=False)
    services.match_create(versions=[shark, greedy, random_], duplicate=False)
    client = as_(None)

    for value in (str(webhook_bot.pk), "alices-bot", "ALICES-BOT"):
        listing = client.get("/api/v1/matches/", {"bot": value}).json()
        assert [row["id"] for row in listing["results"]] == [with_mine.pk], value
    shark_played = client.get("/api/v1/matches/", {"bot": shark.bot.name}).json()
    assert shark_played["count"] == 2
    nobody = client.get("/api/v1/matches/", {"bot": "no-such-bot"}).json()
    assert nobody["results"] == []
    assert_error(client.get("/api/v1/matches/", {"bot": ""}), 400, "invalid")
    assert_error(client.get("/api/v1/matches/", {"bot": "x" * 41}), 400, "invalid")


def test_a_missing_bot_or_match_is_not_found(as_: Caller, alice: User) -> None:
    client = as_(alice)
    for url in ("/api/v1/bots/999999/", "/api/v1/bots/999999/versions/", "/api/v1/matches/9999/"):
        assert_error(client.get(url), 404, "not_found")
    assert_error(client.post("/api/v1/bots/999999/versions/", WEBHOOK), 404, "not_found")


# --- the permission matrix ----------------------------------------------------------------

ANYONE = {"anonymous": 200, "other": 200, "owner": 200, "staff": 200}
SIGNED_IN = {"anonymous": 401}
CODES = {401: "not_authenticated", 403: "permission_denied", 405: "method_not_allowed"}

# (what, method, url template, body, expected status by caller)
MATRIX: list[tuple[str, str, str, dict[str, Any] | None, dict[str, int]]] = [
    ("list bots", "get", "/api/v1/bots/", None, ANYONE),
    (
        "register a bot",
        "post",
        "/api/v1/bots/",
        {"name": "{caller}-new-bot", "kind": "webhook"},
        {**SIGNED_IN, "other": 201, "owner": 201, "staff": 201},
    ),
    ("read a bot", "get", "/api/v1/bots/{webhook}/", None, ANYONE),
    (
        "change a bot",
        "patch",
        "/api/v1/bots/{webhook}/",
        {"name": "renamed"},
        {**SIGNED_IN, "other": 405, "owner": 405, "staff": 405},
    ),
    (
        "delete a bot",
        "delete",
        "/api/v1/bots/{webhook}/",
        None,
        {**SIGNED_IN, "other": 405, "owner": 405, "staff": 405},
    ),
    ("list versions", "get", "/api/v1/bots/{webhook}/versions/", None, ANYONE),
    (
        "create a version",
        "post",
        "/api/v1/bots/{webhook}/versions/",
        WEBHOOK,
        {**SIGNED_IN, "other": 403, "owner": 201, "staff": 201},
    ),
    (
        "create a token",
        "post",
        "/api/v1/bots/{client}/tokens/",
        {"name": "t"},
        {**SIGNED_IN, "other": 403, "owner": 201, "staff": 403},
    ),
    (
        "read strikes",
        "get",
        "/api/v1/bots/{webhook}/strikes/",
        None,
        {**SIGNED_IN, "other": 403, "owner": 200, "staff": 200},
    ),
    ("read the ladder", "get", "/api/v1/ladder/", None, ANYONE),
    (
        "post to the ladder",
        "post",
        "/api/v1/ladder/",
        {},
        {**SIGNED_IN, "other": 405, "owner": 405, "staff": 405},
    ),
    ("list matches", "get", "/api/v1/matches/", None, ANYONE),
    ("read a match", "get", "/api/v1/matches/{match}/", None, ANYONE),
    (
        "create a match",
        "post",
        "/api/v1/matches/",
        {},
        {**SIGNED_IN, "other": 405, "owner": 405, "staff": 405},
    ),
]


@pytest.mark.parametrize("caller", ["anonymous", "other", "owner", "staff"])
@pytest.mark.parametrize(
    ("what", "method", "template", "body", "expected"), MATRIX, ids=[m[0] for m in MATRIX]
)
def test_permission_matrix(
    what: str,
    method: str,
    template: str,
    body: dict[str, Any] | None,
    expected: dict[str, int],
    caller: str,
    as_: Caller,
    alice: User,
    bob: User,
    staff: User,
    webhook_bot: Bot,
    client_bot: Bot,
) -> None:
    user = {"anonymous": None, "other": bob, "owner": alice, "staff": staff}[caller]
    match = services.match_create(versions=builtin_versions(), duplicate=False)
    ids = {"webhook": webhook_bot.pk, "client": client_bot.pk, "match": match.pk}
    url = template.format(**ids)
    data = None if body is None else {k: str(v).format(caller=caller) for k, v in body.items()}
    bots_before = Bot.objects.count()
    versions_before = BotVersion.objects.count()

    response = getattr(as_(user), method)(url, data)

    status = expected[caller]
    if status in CODES:
        assert_error(response, status, CODES[status])
        assert Bot.objects.count() == bots_before
        assert BotVersion.objects.count() == versions_before
    else:
        assert response.status_code == status, response.content


# --- the documented codes -----------------------------------------------------------------


def test_every_error_code_the_bots_app_raises_is_documented() -> None:
    source = "\n".join(p.read_text() for p in (ROOT / "bots").rglob("*.py"))
    raised = set(re.findall(r'DomainError\(\s*"([a-z_]+)"', source))
    documented = set(re.findall(r"^\| `([a-z_]+)` \|", (ROOT / "docs/errors.md").read_text(), re.M))
    assert raised
    assert raised <= documented, sorted(raised - documented)
    bots_section = (
        (ROOT / "docs/errors.md").read_text().split("\n## Bots\n", 1)[1].split("\n## ")[0]
    )
    for code in ("invalid_bot_name", "invalid_bot_kind", "bot_name_taken", "unknown_strategy"):
        assert f"| `{code}` |" in bots_section
    assert "| `same_owner` |" in bots_section
