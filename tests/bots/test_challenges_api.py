"""``/api/v1/challenges/``: start a challenge (the bot's owner), read them (anyone), and
the refusals with their stable codes, the day's limit as 429 with ``Retry-After``."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from pytest_django import Settings
from rest_framework.test import APIClient

from accounts.models import User
from bots import health, runner
from bots.models import BotVersion, Challenge, Match, RatingChange

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("sent")]
URL = "/api/v1/challenges/"


def body(version: BotVersion, **over: Any) -> dict[str, Any]:
    return {
        "bot": version.bot_id,
        "opponents": [{"strategy": "random"}],
        "deals": 2,
        "options": {"ending": "quick"},
        **over,
    }


def test_an_owner_challenges_and_anyone_reads_the_results(
    api_as: Callable[[User], APIClient], api: APIClient, alice: User, mine: BotVersion,
    theirs: BotVersion,
) -> None:  # fmt: skip
    opponents = [{"version": theirs.pk}, {"strategy": "random"}]
    response = api_as(alice).post(URL, body(mine, opponents=opponents, deals=3), format="json")

    assert response.status_code == 201, response.json()
    created = response.json()
    assert (created["bot"], created["by"], created["status"]) == (
        "alices-bot",
        "alice",
        "scheduled",
    )
    assert (created["deal_count"], created["deals_finished"]) == (3, 0)
    assert created["rules"]["ending"] == "quick"
    assert created["rules"]["seats"] == 3
    assert [(e["position"], e["bot"], e["owner"]) for e in created["entrants"]] == [
        (0, "alices-bot", "alice"),
        (1, "bobs-bot", "bob"),
        (2, "builtin-random", "platform"),
    ]
    assert [d["number"] for d in created["deals"]] == [1, 2, 3]
    first = created["deals"][0]
    assert first["status"] == "scheduled"
    assert first["results"] == [{"place": None, "dollars": None, "forfeited": False}] * 3
    assert [(g["rotation"], g["finished"], g["replay"]) for g in first["games"]] == [
        (0, False, None),
        (1, False, None),
        (2, False, None),
    ]
    challenge = Challenge.objects.get()
    for deal in challenge.deal_rows.select_related("match"):
        runner.run_match(deal.match)

    read = api.get(f"{URL}{challenge.pk}/")  # anyone, signed in or not
    listed = api.get(URL)

    assert read.status_code == 200
    results = read.json()
    assert (results["status"], results["deals_finished"]) == ("finished", 3)
    for deal in results["deals"]:
        assert sorted(r["place"] for r in deal["results"])[0] == 1
        assert all(g["replay"] == f"/games/{g['game']}/replay/" for g in deal["games"])
    assert {e["deals_played"] for e in results["entrants"]} == {3}
    assert listed.status_code == 200
    assert [c["id"] for c in listed.json()["results"]] == [challenge.pk]
    assert not RatingChange.objects.exists()


def test_signing_in_is_needed_to_challenge(api: APIClient, mine: BotVersion) -> None:
    response = api.post(URL, body(mine), format="json")

    assert response.status_code == 401
    assert response.json()["code"] == "not_authenticated"


def test_only_the_bots_owner_challenges_with_it(
    api_as: Callable[[User], APIClient], bob: User, mine: BotVersion
) -> None:
    response = api_as(bob).post(URL, body(mine), format="json")

    assert response.status_code == 403
    assert response.json()["code"] == "permission_denied"
    assert not Challenge.objects.exists()


@pytest.mark.parametrize(
    ("over", "status", "code"),
    [
        ({"bot": 10**12}, 422, "no_such_bot"),
        ({"opponents": [{"strategy": "nobody"}]}, 422, "unknown_strategy"),
        ({"opponents": [{"version": 10**12}]}, 422, "no_such_version"),
        ({"opponents": [{"strategy": "shark"}, {"strategy": "shark"}]}, 422, "same_entrant"),
        ({"options": {"ending": "sudden"}}, 422, "invalid_rules"),
        ({"options": {"seats": 3}}, 400, "invalid"),
        ({"opponents": []}, 400, "invalid"),
        ({"opponents": [{"strategy": "shark"}] * 6}, 400, "invalid"),
        ({"deals": 21}, 400, "invalid"),
        ({"opponents": [{"strategy": "shark", "version": 1}]}, 400, "invalid"),
    ],
)
def test_bad_challenges_are_refused_with_a_stable_code_and_nothing_is_made(
    api_as: Callable[[User], APIClient],
    alice: User,
    mine: BotVersion,
    over: dict[str, Any],
    status: int,
    code: str,
) -> None:
    response = api_as(alice).post(URL, body(mine, **over), format="json")

    assert response.status_code == status, response.json()
    assert response.json()["code"] == code
    assert not Challenge.objects.exists()
    assert not Match.objects.exists()


def test_a_paused_opponent_is_refused_clearly(
    api_as: Callable[[User], APIClient], alice: User, bob: User, mine: BotVersion,
    theirs: BotVersion,
) -> None:  # fmt: skip
    health.version_pause(bot=theirs.bot, by=bob)

    response = api_as(alice).post(
        URL, body(mine, opponents=[{"version": theirs.pk}]), format="json"
    )

    assert response.status_code == 409
    error = response.json()
    assert error["code"] == "version_paused"
    assert error["details"] == {"field": "opponents", "version": theirs.pk, "opponent": 0}
    assert "paused" in error["message"]


def test_past_the_days_limit_a_challenge_gets_429_with_retry_after(
    api_as: Callable[[User], APIClient], alice: User, mine: BotVersion, settings: Settings
) -> None:
    settings.CHALLENGES_PER_DAY = 2
    client = api_as(alice)
    for _ in range(2):
        assert client.post(URL, body(mine), format="json").status_code == 201

    response = client.post(URL, body(mine), format="json")

    assert response.status_code == 429
    error = response.json()
    assert error["code"] == "too_many_challenges"
    wait = error["details"]["wait_seconds"]
    assert 86_000 < wait <= 86_400
    assert response["Retry-After"] == str(wait)
    assert error["details"]["limit"] == 2
    assert Challenge.objects.count() == 2
