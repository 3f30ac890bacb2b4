"""One run of a match at a time across a PostgreSQL restart (issue 25 item 4; bots.leases).

The platform runs as deployed (gunicorn, two worker processes, beat) on a PostgreSQL and
a Redis of this module's own; a bot tournament's matches (webhook bots answering after
50 ms, each match a few seconds of decisions) are playing when PostgreSQL restarts. Every
run of a match logs its start and its end (``match N: run T start``); no two runs of one
match may overlap, and no match may have spent an attempt on the restart.
"""

from __future__ import annotations

import itertools
import re
from collections import defaultdict
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

from tests.bots.bot_servers import BotServer, good_bot, running
from tests.faults.conftest import Servers
from tests.faults.platform import Platform, platform_on

pytestmark = pytest.mark.faults

RUNNING = "SELECT count(*) FROM bots_match WHERE status = 'running'"
# a log line, as Celery's worker formats it ("[at: INFO/ForkPoolWorker-1] ...") or as JSON
RUN_LINE = re.compile(
    r"(?P<at>\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3}).*?match (?P<match>\d+): run"
    r" (?P<token>\d+) (?P<edge>start|end)\b"
)


@pytest.fixture
def platform(platform_servers: Servers, tmp_path: Path) -> Iterator[Platform]:
    postgres, redis_server, var_dir = platform_servers
    with platform_on(postgres, redis_server, var_dir, tmp_path) as running_platform:
        # a match plays whole in one task, so the restart lands in the middle of a run;
        # the lease outlives the restart's gap
        running_platform.overrides.update(MATCH_SLICE_SECONDS="600", LEASE_SECONDS="10")
        yield running_platform


@pytest.fixture
def bots() -> Iterator[tuple[BotServer, ...]]:
    with running(*(good_bot(f"hook{i}", delay=0.05) for i in range(6))) as servers:
        yield servers


def runs(platform: Platform) -> dict[int, list[tuple[datetime, datetime]]]:
    """Every run of every match, (start, end), from both workers' logs."""
    found: dict[int, list[tuple[datetime, datetime]]] = defaultdict(list)
    for worker in ("worker", "worker2"):
        started: dict[tuple[int, int], datetime] = {}
        for line in platform.log(worker).splitlines():
            if (seen := RUN_LINE.search(line)) is None:
                continue
            # the log's local time, made aware
            at = datetime.strptime(seen["at"], "%Y-%m-%d %H:%M:%S,%f").astimezone()
            key = (int(seen["match"]), int(seen["token"]))
            if seen["edge"] == "start":
                started[key] = at
            else:
                found[key[0]].append((started.pop(key), at))
        assert started == {}, f"runs that never ended in {worker}: {started}"
    return found


def test_no_two_runs_of_a_match_overlap_across_a_postgres_restart(
    platform: Platform, bots: tuple[BotServer, ...]
) -> None:
    cup = platform.seed("tournament", *bots)["tournament"]
    for name in ("web", "worker", "worker2", "beat"):
        platform.start(name)
    platform.wait_for(RUNNING, 1, "a match playing")

    before = dict(platform.rows("SELECT id, attempts FROM bots_match WHERE status = 'running'"))
    restarted = datetime.now(UTC)
    platform.postgres.restart(gap=1.0)
    finished = (
        f"SELECT count(*) FROM tournaments_tournament WHERE id = {cup} AND status = 'finished'"
    )
    platform.wait_for(finished, 1, "the tournament finished", 240)
    platform.quiesce()

    by_match = runs(platform)
    cut = [m for m, spans in by_match.items() if any(a < restarted < b for a, b in spans)]
    count = sum(map(len, by_match.values()))
    print(f"{len(by_match)} matches, {count} runs, {len(cut)} running through the restart")
    assert cut, "the restart landed in no run"
    for match, intervals in by_match.items():
        intervals.sort()
        overlaps = [(a, b) for a, b in itertools.pairwise(intervals) if b[0] < a[1]]
        assert overlaps == [], f"match {match}: runs overlap: {overlaps}"
    attempts = platform.rows("SELECT id, status, attempts FROM bots_match ORDER BY id")
    assert {status for _, status, _ in attempts} == {"finished"}
    # the restart spent no attempt: a match running through it has what it had, and
    # none has more than the one its first claim counted (a first delivery the outage
    # cut off before it claimed counted none)
    assert {pk: n for pk, _, n in attempts if pk in before} == before
    assert [row for row in attempts if row[2] > 1] == []
