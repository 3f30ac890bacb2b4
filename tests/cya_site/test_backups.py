"""Backups that restore (cya_site.backups, issue 26): the drill an operator would run.

For each kind of database, in new processes as an operator runs them: migrate and seed the
demo, back up, wipe the database (a new, empty one in its place), restore, and then
``verify_games`` exits 0 and every competition's standings (the season's, each night's, the
cup's) are what they were. A backup of the other kind of database, or any other file, is
refused before anything changes.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest

from tests.conftest import ROOT, _test_database_url

STANDINGS = """
import json
from tournaments import selectors
from tournaments.models import Competition, GameNight
out = {}
for comp in Competition.objects.order_by("pk"):
    out[str(comp.pk)] = selectors.standings(comp)
for night in GameNight.objects.order_by("pk"):
    out[f"night {night.pk}"] = selectors.standings(night.season.competition, night=night)
print("STANDINGS", json.dumps(out, sort_keys=True, default=str))
"""


def manage(env: dict[str, str], *args: str, stdin: str | None = None) -> str:
    result = subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        env=env,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert result.returncode == 0, f"manage.py {' '.join(args)}:\n{result.stdout}{result.stderr}"
    return result.stdout


def refused(env: dict[str, str], *args: str) -> str:
    result = subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert result.returncode != 0, result.stdout
    return result.stderr


def operator_env(tmp_path: Path, database_url: str) -> dict[str, str]:
    """An operator's shell: this database, no Redis (the embedded broker under VAR_DIR)."""
    env = {k: v for k, v in os.environ.items() if k not in ("REDIS_URL", "DATABASE_URL")}
    env.update({"DATABASE_URL": database_url, "VAR_DIR": str(tmp_path / "var"), "DEBUG": "true"})
    return env


@pytest.fixture
def postgres_database() -> Iterator[tuple[str, str]]:
    """A database of its own on the suite's PostgreSQL: (url, name); dropped afterwards."""
    name = f"drill_{uuid.uuid4().hex[:10]}"
    admin = _test_database_url().rsplit("/", 1)[0] + "/postgres"
    with psycopg.connect(admin, autocommit=True) as connection:
        connection.execute(f'CREATE DATABASE "{name}"')
    try:
        yield admin.rsplit("/", 1)[0] + f"/{name}", name
    finally:
        with psycopg.connect(admin, autocommit=True) as connection:
            connection.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def standings(env: dict[str, str]) -> str:
    """Every competition's and every night's standings, as JSON text."""
    output = manage(env, "shell", "-c", STANDINGS)
    return next(line for line in output.splitlines() if line.startswith("STANDINGS "))[10:]


def seeded(env: dict[str, str]) -> str:
    """Migrate, seed the demo, and return its standings."""
    manage(env, "migrate", "--noinput")
    manage(env, "seed_demo")
    return standings(env)


def check_restored(env: dict[str, str], before: str) -> None:
    verified = manage(env, "verify_games")  # exits 0: every game replays to its rows
    assert re.search(r"verified [1-9]\d* games?, 0 mismatches", verified), verified
    assert standings(env) == before
    assert any(json.loads(before).values())  # the demo has standings to compare


def test_a_postgresql_backup_restores_into_a_wiped_database(
    tmp_path: Path, postgres_database: tuple[str, str]
) -> None:
    url, name = postgres_database
    env = operator_env(tmp_path, url)
    before = seeded(env)
    backup = tmp_path / "club.dump"

    assert "Backed up to" in manage(env, "backup", "--output", str(backup))
    admin = url.rsplit("/", 1)[0] + "/postgres"
    with psycopg.connect(admin, autocommit=True) as connection:  # the disaster
        connection.execute(f'DROP DATABASE "{name}" WITH (FORCE)')
        connection.execute(f'CREATE DATABASE "{name}"')
    assert "Restored" in manage(env, "restore", str(backup), "--yes")

    check_restored(env, before)


def test_a_sqlite_backup_restores_into_a_wiped_database(tmp_path: Path) -> None:
    database = tmp_path / "club.sqlite3"
    env = operator_env(tmp_path, f"sqlite:///{database}")
    before = seeded(env)

    output = manage(env, "backup")  # the default place: $VAR_DIR/backups/
    backup = Path(output.split("Backed up to ")[1].split(" (")[0])
    assert backup.parent == tmp_path / "var" / "backups"
    database.unlink()  # the disaster
    manage(env, "restore", str(backup), "--yes")

    check_restored(env, before)


def test_a_restore_refuses_a_backup_of_the_other_database_and_changes_nothing(
    tmp_path: Path,
) -> None:
    sqlite_env = operator_env(tmp_path, f"sqlite:///{tmp_path / 'a.sqlite3'}")
    manage(sqlite_env, "migrate", "--noinput")
    backup = tmp_path / "a.sqlite3.backup"
    manage(sqlite_env, "backup", "--output", str(backup))
    stranger = tmp_path / "notes.txt"
    stranger.write_text("not a backup")

    assert "is not a backup made by manage.py backup" in refused(
        sqlite_env, "restore", str(stranger), "--yes"
    )
    pg_env = operator_env(tmp_path, _test_database_url())
    assert "is a sqlite backup, and this database is postgresql" in refused(
        pg_env, "restore", str(backup), "--yes"
    )


def test_a_restore_asks_first_and_an_answer_other_than_yes_changes_nothing(
    tmp_path: Path,
) -> None:
    database = tmp_path / "b.sqlite3"
    env = operator_env(tmp_path, f"sqlite:///{database}")
    manage(env, "migrate", "--noinput")
    backup = tmp_path / "b.backup"
    manage(env, "backup", "--output", str(backup))
    count = "from accounts.models import User; print('USERS', User.objects.count())"
    manage(
        env, "shell", "-c", "from accounts.models import User; User.objects.create(username='kept')"
    )
    assert "USERS 1" in manage(env, "shell", "-c", count)

    result = subprocess.run(
        [sys.executable, "manage.py", "restore", str(backup)],
        cwd=ROOT,
        env=env,
        input="n\n",
        capture_output=True,
        text=True,
        timeout=120,
    )

    assert result.returncode != 0
    assert "nothing was changed" in result.stderr
    assert "USERS 1" in manage(env, "shell", "-c", count)
