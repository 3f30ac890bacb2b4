"""``manage.py restore PATH [--yes]``: replace the database with a backup's
(cya_site.backups; docs/deploy.md, "Backups"). Stop the process set first."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import connections

from cya_site import backups


class Command(BaseCommand):
    help = "Replace every table of the database with a backup made by `manage.py backup`."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("path", type=Path, help="the backup file")
        parser.add_argument(
            "--yes", action="store_true", help="do not ask: everything in the database is replaced"
        )

    def handle(self, *args: Any, **options: Any) -> None:
        path: Path = options["path"]
        name = connections["default"].settings_dict["NAME"]
        try:
            kind = backups.kind_of(path)
            if not options["yes"] and not self._confirmed(name):
                raise CommandError("Not restored: nothing was changed.")
            backups.restore(path)
        except backups.BackupError as error:
            raise CommandError(str(error)) from None
        self.stdout.write(f"Restored {name} from {path} ({kind} backup)")

    def _confirmed(self, name: str) -> bool:
        answer = input(f"Replace everything in the database {name} with this backup? [y/N] ")
        return answer.strip().lower() in ("y", "yes")
