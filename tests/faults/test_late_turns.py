"""A bot turn at a people's table lost with Redis comes within seconds of its return, not
after the sweep (issue 25 item 2; bots.check_turns).

The platform runs as deployed (gunicorn, a worker on every queue, beat) on a PostgreSQL
and a Redis of this module's own. Alice plays against three built-ins through the API.
On her turn Redis stops; her action still commits, but its bot turn cannot be sent. Redis
comes back: the next bot's move must follow within 5 s, while the sweep, which would
also find it, waits ten minutes here.
"""

from __future__ import annotations

import re
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.faults.conftest import Servers
from tests.faults.platform import Platform, platform_on

pytestmark = pytest.mark.faults

BACK_WITHIN_SECONDS = 5.0


@pytest.fixture
def platform(platform_servers: Servers, tmp_path: Path) -> Iterator[Platform]:
    postgres, redis_server, var_dir = platform_servers
    with platform_on(postgres, redis_server, var_dir, tmp_path) as running_platform:
        running_platform.overrides.update(
            SWEEP_AFTER_SECONDS="600",  # the sweep is not what brings the turn back
            BOT_MOVE_DELAY_MS="200",
            TURN_CHECK_SECONDS="1",
            TURN_LATE_SECONDS="1",
        )
        for name in ("web", "worker", "beat"):
            running_platform.start(name)
        yield running_platform


class Alice:
    """Alice at her table through the API."""

    def __init__(self, platform: Platform, token: str) -> None:
        self.client = httpx.Client(
            base_url=platform.url(""), headers={"Authorization": f"Bearer {token}"}, timeout=30
        )

    def open_table(self) -> int:
        bots = [{"seat": n, "strategy": "greedy"} for n in (1, 2, 3)]
        table = {"preset": "2021", "seats": 4, "options": {"ending": "quick"}, "bots": bots}
        created = self.client.post("/api/v1/games/", json=table)
        assert created.status_code == 201, created.text
        return int(created.json()["id"])

    def decision(self, game: int) -> dict[str, Any]:
        """Her next decision, waiting for the bots to move (None-free: fails after 60 s)."""
        deadline = time.monotonic() + 60
        while True:
            answer = self.client.get(f"/api/v1/games/{game}/decision/").json()
            assert answer["status"] == "active", answer
            if answer.get("decision"):
                return dict(answer["decision"])
            assert time.monotonic() < deadline, "alice's turn never came"
            time.sleep(0.1)

    def act(self, game: int, decision: dict[str, Any]) -> int:
        """Play her first legal action; the version it made."""
        action = {"action": decision["legal_actions"][0], "version": decision["version"]}
        headers = {"Idempotency-Key": uuid.uuid4().hex}
        while True:
            answer = self.client.post(
                f"/api/v1/games/{game}/actions/", json=action, headers=headers
            )
            if answer.status_code != 503:
                break
            time.sleep(0.2)
        assert answer.status_code in (200, 201), answer.text
        return int(decision["version"]) + 1


def test_a_bot_turn_lost_with_redis_comes_within_seconds_of_its_return(
    platform: Platform,
) -> None:
    alice = Alice(platform, platform.seed("people")["tokens"]["alice"])
    try:
        waited = _turn_lost_with_redis(platform, alice)
    finally:
        alice.client.close()

    print(f"the lost bot turn came {waited:.2f} s after Redis came back")
    assert waited <= BACK_WITHIN_SECONDS, f"{waited:.1f} s after Redis came back"
    # the check sent it (a resend of one turn), not the action's own task
    assert re.search(
        r"bots\.check_turns\[[^]]+\] succeeded in [\d.]+s: 1\b", platform.log("worker")
    )


def _turn_lost_with_redis(platform: Platform, alice: Alice) -> float:
    """Seconds from Redis's return to the bot's move after the action Redis missed."""
    game = alice.open_table()
    alice.act(game, alice.decision(game))  # the bots answer as usual first
    decision = alice.decision(game)

    platform.redis.stop()
    moved = alice.act(game, decision)  # committed; its bot turn cannot be sent
    time.sleep(1.0)
    platform.redis.start()
    back = time.monotonic()
    query = "SELECT version, status FROM games_game WHERE id = %s"
    while True:
        version, status = platform.rows(query, game)[0]
        if version > moved or status != "active":
            break
        assert time.monotonic() - back < 60, "the lost bot turn never came"
        time.sleep(0.05)
    return time.monotonic() - back
