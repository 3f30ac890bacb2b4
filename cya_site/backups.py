"""Backups of the database, and restoring one: each database with its own tools.

PostgreSQL: ``pg_dump`` in its custom format (compressed, restorable table by table), and
``pg_restore`` into the configured database in one transaction, replacing what is there.
SQLite: its online backup API, page by page while the site may still write (a consistent
copy, as of the moment the copy finished), and the same API to copy a backup back.

A backup is one file; which database made it is in its first bytes, so ``restore`` refuses
a file of the other kind (or anything else) before it changes a row. Restore with the
process set stopped (docs/deploy.md): a running process keeps states it read before.
"""

from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
from collections.abc import Mapping
from contextlib import closing
from datetime import datetime
from pathlib import Path
from typing import Any

from django.conf import settings
from django.db import connections

PG_MAGIC = b"PGDMP"  # the first bytes of pg_dump's custom format
SQLITE_MAGIC = b"SQLite format 3\x00"
TIMEOUT_SECONDS = 3600


class BackupError(Exception):
    """A backup or restore could not be made; the message says why and what to do."""


def vendor() -> str:
    """``postgresql`` or ``sqlite``: the configured database's kind."""
    name = connections["default"].vendor
    if name not in ("postgresql", "sqlite"):
        raise BackupError(f"backups know PostgreSQL and SQLite, not {name}")
    return name


def default_path(now: datetime) -> Path:
    """Where a backup goes when no path is given: ``$VAR_DIR/backups/``, stamped by time."""
    suffix = "dump" if vendor() == "postgresql" else "sqlite3"
    return Path(settings.VAR_DIR) / "backups" / f"cya-{now:%Y%m%d-%H%M%S}.{suffix}"


def backup(path: Path) -> Path:
    """Write a backup of the database to ``path`` (its folder is made); returns it."""
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(path.name + ".partial")  # never a half-written backup at path
    try:
        if vendor() == "postgresql":
            _pg("pg_dump", "--format=custom", "--no-owner", "--no-privileges", f"--file={partial}")
        else:
            with closing(_sqlite_connect()) as source, closing(sqlite3.connect(partial)) as target:
                source.backup(target)
        partial.replace(path)
    finally:
        partial.unlink(missing_ok=True)
    return path


def kind_of(path: Path) -> str:
    """``postgresql`` or ``sqlite``: which database wrote the backup at ``path``."""
    try:
        with path.open("rb") as file:
            head = file.read(len(SQLITE_MAGIC))
    except OSError as error:
        raise BackupError(f"cannot read {path}: {error.strerror}") from None
    if head.startswith(PG_MAGIC):
        return "postgresql"
    if head == SQLITE_MAGIC:
        return "sqlite"
    raise BackupError(f"{path} is not a backup made by manage.py backup")


def restore(path: Path) -> None:
    """Replace the database's every table with the backup's (refused if the backup is of
    the other kind of database, before anything changes)."""
    kind, configured = kind_of(path), vendor()
    if kind != configured:
        raise BackupError(f"{path} is a {kind} backup, and this database is {configured}")
    connections.close_all()  # nothing of ours holds a lock on what is replaced
    if kind == "postgresql":
        _pg(
            "pg_restore",
            "--clean",
            "--if-exists",
            "--no-owner",
            "--no-privileges",
            "--single-transaction",
            "--exit-on-error",
            str(path),
        )
    else:
        with closing(sqlite3.connect(path)) as source, closing(_sqlite_connect()) as database:
            source.backup(database)


def _sqlite_connect() -> sqlite3.Connection:
    return sqlite3.connect(str(connections["default"].settings_dict["NAME"]))


def _pg(program: str, *args: str) -> None:
    """Run a PostgreSQL client program against the configured database."""
    found = shutil.which(program)
    if found is None:
        raise BackupError(f"{program} is not installed (Debian: apt-get install postgresql-client)")
    database = connections["default"].settings_dict
    env = {**os.environ, **_pg_environment(database)}
    result = subprocess.run(
        [found, *args, f"--dbname={database['NAME']}"],
        env=env,
        capture_output=True,
        text=True,
        timeout=TIMEOUT_SECONDS,
        check=False,
    )
    if result.returncode != 0:
        raise BackupError(f"{program} failed: {result.stderr.strip() or result.returncode}")


def _pg_environment(database: Mapping[str, Any]) -> dict[str, str]:
    """libpq's variables for the configured database (the password never on a command line)."""
    env = {"PGHOST": database.get("HOST") or "", "PGPORT": str(database.get("PORT") or "")}
    env["PGUSER"] = database.get("USER") or ""
    if database.get("PASSWORD"):
        env["PGPASSWORD"] = str(database["PASSWORD"])
    return {name: value for name, value in env.items() if value}
