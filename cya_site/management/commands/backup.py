"""``manage.py backup [--output PATH]``: one file holding the whole database
(cya_site.backups; docs/deploy.md, "Backups"). Prints where it went."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.utils import timezone

from cya_site import backups


class Command(BaseCommand):
    help = "Back the database up to one file (pg_dump, or SQLite's backup API)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--output",
            type=Path,
            help="the backup file (default: $VAR_DIR/backups/cya-<date>-<time>.<dump|sqlite3>)",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            path = options["output"] or backups.default_path(timezone.now())
            written = backups.backup(path)
        except backups.BackupError as error:
            raise CommandError(str(error)) from None
        self.stdout.write(f"Backed up to {written} ({written.stat().st_size:,} bytes)")
