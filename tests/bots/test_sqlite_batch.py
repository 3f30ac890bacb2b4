"""Games on SQLite, the database ``make run`` uses: the log writer's ORM path.

The suite's database is PostgreSQL, where an action, or a whole built-in game, is written
with one statement (games.store.append); other databases take the ORM for the same
rows. This runs, in a child process against a fresh SQLite file (tests/bots/sqlite_match.py),
a whole ladder match, and
checks there what the PostgreSQL tests check here: a gap-free log that replays to the
stored result, rounds and places written, and a stale batch refused unwritten; and a
lease taken, refused while held and taken again once let go (its one raw statement).

A game's own rows, written action by action, by a resignation or in one batch, are not
checked here: tests/games/test_store_paths.py runs games.store's ORM path, the one SQLite
takes, beside its SQL on PostgreSQL and compares the rows.

The match's own rows (claimed, results, places, ratings, seatings) are not checked here:
tests/bots/test_persistence.py runs bots.persistence's ORM path, the one SQLite takes,
beside its SQL on PostgreSQL.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_a_match_is_written_and_read_the_same_on_sqlite(
    tmp_path: Path,
) -> None:
    env = {
        **os.environ,
        "DATABASE_URL": f"sqlite:///{tmp_path / 'db.sqlite3'}",
        "DJANGO_SETTINGS_MODULE": "cya_site.settings",
        "LADDER_TABLES": "0",
    }
    env.pop("REDIS_URL", None)  # the bare machine's defaults: no broker, a local cache
    done = subprocess.run(
        [sys.executable, "-m", "tests.bots.sqlite_match"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.strip().endswith("ok")
