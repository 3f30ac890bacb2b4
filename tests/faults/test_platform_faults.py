"""Faults under the running platform: PostgreSQL and Redis restarted, a worker SIGKILLed,
in the middle of a ladder, a bot tournament's round and people's play.

The platform runs as deployed (gunicorn, a Celery worker, beat) on a PostgreSQL and a
Redis of this module's own (tests.faults.platform), its webhook bots served from this
process. Nobody touches it after the fault: each test then asks that every match and game
ended exactly once (no match voided, ratings applied once, no game half-written: every
log gap-free and replaying to what is stored), that no request answered anything but 200
or a clean 503, and that the worker is still (or again) consuming.
"""

from __future__ import annotations

import itertools
import re
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.bots.bot_servers import BotServer, good_bot, running
from tests.faults.platform import Platform, Traffic, platform_on, prepare
from tests.faults.servers import PostgresCluster, RedisServer, running_postgres, running_redis

pytestmark = pytest.mark.faults

RUNNING = "SELECT count(*) FROM bots_match WHERE status = 'running'"
FINISHED = "SELECT count(*) FROM bots_match WHERE status = 'finished'"
TRAFFIC = ["/api/v1/ladder/", "/api/v1/bots/", "/ladder/"]


Servers = tuple[PostgresCluster, RedisServer, Path]


@pytest.fixture(scope="module")
def servers(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Servers]:
    """The module's PostgreSQL (with the migrated template database), Redis, and the
    folder of the collected static files."""
    var_dir = tmp_path_factory.mktemp("var")
    with running_postgres() as postgres, running_redis() as redis_server:
        prepare(postgres, var_dir)
        yield postgres, redis_server, var_dir


@pytest.fixture
def platform(servers: Servers, tmp_path: Path) -> Iterator[Platform]:
    postgres, redis_server, var_dir = servers
    with platform_on(postgres, redis_server, var_dir, tmp_path) as running_platform:
        running_platform.start("web")
        yield running_platform


@pytest.fixture
def bots() -> Iterator[tuple[BotServer, ...]]:
    """Six webhook bots that answer legally after 5 ms: a tournament's matches take
    seconds, decision by decision, so that some are always in the middle of a game."""
    with running(*(good_bot(f"hook{i}", delay=0.005) for i in range(6))) as servers:
        yield servers


# --- what must hold after any fault ---------------------------------------------------------


def assert_every_match_ended_once(platform: Platform) -> None:
    """Every match finished (none voided, none left), each game of it finished with a
    gap-free log, each ladder match rated once, each version's count matching."""
    statuses = dict(platform.rows("SELECT status, count(*) FROM bots_match GROUP BY status"))
    assert set(statuses) == {"finished"}, (statuses, platform.rows(
        "SELECT id, void_reason FROM bots_match WHERE status = 'voided'"))  # fmt: skip
    unfinished = platform.rows(
        "SELECT g.id, g.status FROM games_game g JOIN bots_matchgame mg ON mg.game_id = g.id"
        " WHERE g.status <> 'finished'"
    )
    assert unfinished == []
    gaps = platform.rows(
        "SELECT g.id, g.version, (SELECT count(*) FROM games_event e WHERE e.game_id = g.id)"
        " + (SELECT coalesce(sum(jsonb_array_length(p.codes)), 0) FROM games_playout p"
        " WHERE p.game_id = g.id) FROM games_game g WHERE g.status <> 'open'"
    )
    assert [row for row in gaps if row[1] + 1 != row[2]] == []
    doubled = platform.rows(
        "SELECT match_id, version_id FROM bots_ratingchange GROUP BY 1, 2 HAVING count(*) > 1"
    )
    assert doubled == []
    unrated = platform.rows(
        "SELECT m.id FROM bots_match m WHERE m.kind = 'ladder' AND (SELECT count(*) FROM"
        " bots_ratingchange r WHERE r.match_id = m.id) <> (SELECT count(*) FROM"
        " bots_matchentry e WHERE e.match_id = m.id)"
    )
    assert unrated == [], unrated_why(platform, [row[0] for row in unrated])
    miscounted = platform.rows(
        "SELECT v.id, v.matches_played, (SELECT count(*) FROM bots_matchentry e JOIN bots_match m"
        " ON m.id = e.match_id WHERE e.version_id = v.id AND m.kind = 'ladder') AS played"
        " FROM bots_botversion v"
    )
    assert [row for row in miscounted if row[1] != row[2]] == []


def unrated_why(platform: Platform, match_ids: list[int]) -> str:
    """What a ladder match rated short had: its entries, their versions and ratings, its
    result, and what the worker logged of it."""
    entries = platform.rows(
        "SELECT e.match_id, e.version_id, e.place, v.status, v.pause_detail, m.rated_at,"
        " m.attempts, m.result, (SELECT count(*) FROM bots_ratingchange r"
        " WHERE r.match_id = e.match_id AND r.version_id = e.version_id)"
        " FROM bots_matchentry e JOIN bots_botversion v ON v.id = e.version_id"
        " JOIN bots_match m ON m.id = e.match_id WHERE e.match_id = ANY(%s)",
        match_ids,
    )
    said = [
        line
        for line in platform.log("worker").splitlines()
        if any(re.search(rf"\bmatch {match_id}\b", line) for match_id in match_ids)
    ]
    return "\n".join(map(str, [*entries, *said]))


def assert_games_replay(platform: Platform) -> None:
    """``manage.py verify_games`` replays every finished game to what is stored."""
    verified = platform.manage("verify_games")
    assert verified.returncode == 0, verified.stdout + verified.stderr


def assert_still_consuming(platform: Platform, worker: str = "worker") -> None:
    assert platform.alive(worker), platform.log(worker)[-4000:]
    assert platform.ping() == "pong"


def ladder_running(platform: Platform) -> int:
    """Seed a ladder of built-ins, start a worker and beat, wait until it plays; the
    number of matches finished so far. (Built-in matches are played in memory and written
    whole: a fault lands on the claim, the play or the write of one.)"""
    platform.seed("ladder", "9")
    platform.start("worker")
    platform.start("beat")
    platform.wait_for(FINISHED, 3, "three ladder matches finished")
    finished: int = platform.value(FINISHED)
    return finished


# --- the ladder -----------------------------------------------------------------------------


def test_the_ladder_heals_by_itself_after_a_postgres_restart(
    platform: Platform,
) -> None:
    before = ladder_running(platform)

    with Traffic(platform, TRAFFIC) as traffic:
        platform.postgres.restart(gap=1.0)
        platform.wait_for(FINISHED, before + 4, "four more matches after the restart", 120)

    platform.quiesce()
    assert traffic.server_errors() == []
    assert any(status == 503 for _, status in traffic.statuses)  # it was down, and said so
    assert_every_match_ended_once(platform)
    assert_games_replay(platform)
    assert_still_consuming(platform)


def test_the_ladder_heals_by_itself_after_a_redis_restart(
    platform: Platform,
) -> None:
    before = ladder_running(platform)

    with Traffic(platform, TRAFFIC) as traffic:
        platform.redis.restart(gap=1.0)  # no persistence: every queued message is lost
        platform.wait_for(FINISHED, before + 4, "four more matches after the restart", 120)

    platform.quiesce()
    assert traffic.server_errors() == []
    assert_every_match_ended_once(platform)
    assert_games_replay(platform)
    assert_still_consuming(platform)


def test_the_ladder_heals_by_itself_after_its_worker_is_killed(
    platform: Platform,
) -> None:
    before = ladder_running(platform)

    platform.kill("worker")  # SIGKILL, pool and all, matches mid-game
    platform.start("worker2")
    platform.wait_for(FINISHED, before + 4, "four more matches after the kill", 120)

    platform.quiesce()
    assert_every_match_ended_once(platform)
    assert_games_replay(platform)
    assert_still_consuming(platform, "worker2")


# --- a bot tournament -----------------------------------------------------------------------


def test_a_tournament_round_finishes_after_its_worker_is_killed(
    platform: Platform, bots: tuple[BotServer, ...]
) -> None:
    cup = platform.seed("tournament", *bots)["tournament"]
    platform.start("worker")
    platform.start("beat")
    platform.wait_for(RUNNING, 1, "a table of round 1 playing")

    platform.kill("worker")
    platform.start("worker2")

    finished = (
        f"SELECT count(*) FROM tournaments_tournament WHERE id = {cup} AND status = 'finished'"
    )
    platform.wait_for(finished, 1, "the tournament finished", 180)
    rounds = platform.rows(
        "SELECT number, status FROM tournaments_tournamentround WHERE tournament_id = %s"
        " ORDER BY number",
        cup,
    )
    assert rounds == [(1, "finished"), (2, "finished")]
    assert_every_match_ended_once(platform)
    assert_games_replay(platform)
    assert_still_consuming(platform, "worker2")


# --- people playing -------------------------------------------------------------------------


class Player:
    """A person at a table through the API, who sends each action again (with the same
    Idempotency-Key) until it is answered, as the SDK and the score sheet do."""

    def __init__(self, platform: Platform, token: str) -> None:
        self.platform = platform
        self.client = httpx.Client(
            base_url=platform.url(""), headers={"Authorization": f"Bearer {token}"}, timeout=30
        )
        self.statuses: list[int] = []

    def send(self, method: str, path: str, body: object = None, key: str = "") -> httpx.Response:
        headers = {"Idempotency-Key": key} if key else {}
        while True:
            try:
                response = self.client.request(method, path, json=body, headers=headers)
            except httpx.HTTPError:
                self.statuses.append(0)
                continue
            self.statuses.append(response.status_code)
            if response.status_code != 503:
                return response
            time.sleep(0.5)  # the answer asked to wait a moment


def play_a_game_through(platform: Platform, fault: str) -> None:
    """Alice and bob play a two-seat game through gunicorn; halfway, ``fault`` happens."""
    tokens = platform.seed("people")["tokens"]
    alice, bob = Player(platform, tokens["alice"]), Player(platform, tokens["bob"])
    table = {"preset": "2021", "seats": 2, "options": {"ending": "quick"}}
    created = alice.send("POST", "/api/v1/games/", table)
    assert created.status_code == 201, created.text
    game = created.json()["id"]
    assert bob.send("POST", f"/api/v1/games/{game}/join/", {}).status_code == 200
    started = alice.send("POST", f"/api/v1/games/{game}/start/", {})
    assert started.status_code == 200, started.text
    players = {0: alice, 1: bob}
    for actions in itertools.count():
        if actions == 20:
            (platform.postgres if fault == "postgres" else platform.redis).restart(gap=1.0)
        head = alice.send("GET", f"/api/v1/games/{game}/decision/").json()
        if head["status"] != "active":
            break
        seat = players[head["to_act"]]
        decision = seat.send("GET", f"/api/v1/games/{game}/decision/").json()["decision"]
        action = {"action": decision["legal_actions"][0], "version": decision["version"]}
        answer = seat.send("POST", f"/api/v1/games/{game}/actions/", action, key=uuid.uuid4().hex)
        assert answer.status_code in (200, 201), answer.text
    alice.client.close()
    bob.client.close()
    statuses = alice.statuses + bob.statuses
    assert [s for s in statuses if s not in (200, 201, 503)] == []
    assert_games_replay(platform)


@pytest.mark.parametrize("fault", ["postgres", "redis"])
def test_people_play_on_through_a_restart(platform: Platform, fault: str) -> None:
    platform.start("worker")
    play_a_game_through(platform, fault)
    assert_still_consuming(platform)
