"""A challenge played by the session's real Celery worker (``celery_worker``), on Redis,
against the test database: started through the API, its deals sent as ``bots.play_match``
tasks, played to the end, with a real webhook bot among the entrants, and read back as
a per-deal table with replays. Nobody's rating moves.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable

import pytest
from django.test import Client
from rest_framework.test import APIClient

from accounts.models import User
from bots.models import BotVersion, Challenge, RatingChange, Strike
from bots.validation import builtin_versions
from tests.bots.bot_servers import builtin_version, good_bot, running, webhook_version

pytestmark = pytest.mark.usefixtures("transactional_db")
TIMEOUT = 120


def ratings_of(ids: list[int]) -> dict[int, tuple[float, float, int, int]]:
    return {
        v.pk: (v.mu, v.sigma, v.games_played, v.matches_played)
        for v in BotVersion.objects.filter(pk__in=ids)
    }


def test_a_challenge_runs_through_the_worker_to_its_per_deal_results(
    celery_worker: str, api_as: Callable[[User], APIClient], alice: User, bob: User
) -> None:
    mine = builtin_version(alice, "alices-bot", "greedy")
    shark, _, random_ = builtin_versions()
    with running(good_bot("bobs-hook", delay=0.005)) as (server,):
        theirs = webhook_version(bob, "bobs-hook", server)
        entrants = [mine.pk, theirs.pk, shark.pk, random_.pk]
        BotVersion.objects.filter(pk__in=entrants).update(mu=26.0, sigma=4.0, games_played=12)
        before = ratings_of(entrants)
        response = api_as(alice).post(
            "/api/v1/challenges/",
            {
                "bot": mine.bot_id,
                "opponents": [
                    {"version": theirs.pk},
                    {"strategy": "shark"},
                    {"strategy": "random"},
                ],
                "deals": 2,
                "options": {"ending": "quick"},
            },
            format="json",
        )
        assert response.status_code == 201, response.json()
        url = f"/api/v1/challenges/{response.json()['id']}/"
        give_up = time.monotonic() + TIMEOUT
        while (body := APIClient().get(url).json())["status"] != "finished":
            assert time.monotonic() < give_up, f"not finished within {TIMEOUT} s: {body}"
            time.sleep(0.25)

    assert body["deals_finished"] == 2
    assert [d["status"] for d in body["deals"]] == ["finished", "finished"]
    for deal in body["deals"]:
        assert sorted(r["place"] for r in deal["results"])[0] == 1
        assert len(deal["games"]) == 4
        assert all(g["replay"] for g in deal["games"])
    assert {e["deals_played"] for e in body["entrants"]} == {2}
    assert server.decisions()  # the webhook bot was asked, over HTTP
    assert server.signatures_all_valid()
    assert not Strike.objects.exists()
    assert ratings_of(entrants) == before
    assert not RatingChange.objects.exists()
    challenge = Challenge.objects.get()
    html = Client().get(f"/challenges/{challenge.pk}/").content.decode()
    for number in (1, 2):
        row = re.search(rf'<tbody id="deal-{number}">(.*?)</tbody>', html, re.S)
        assert row is not None
        assert len(re.findall(r"place \d", row[1])) == 4
        assert len(re.findall(r'href="/games/\d+/replay/"', row[1])) == 4
