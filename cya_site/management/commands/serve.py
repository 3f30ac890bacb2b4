"""``manage.py serve``: the production process set on one machine, in one command.

What a release does once (migrate, collect the static files), then honcho starts the
Procfile's processes: gunicorn for pages and the API, uvicorn for waits and streams,
a Celery worker per latency class (interactive, batch at idle CPU priority, outbound) and
beat, all with this environment (docs/deploy.md). Stopping it (Ctrl-C, SIGTERM) stops
them all; one of them exiting stops the rest, so a supervisor sees it and restarts.
"""

import os
import sys
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError, CommandParser


def honcho_command(procfile: Path) -> list[str]:
    """honcho, from this Python, starting ``procfile``'s processes in the project folder."""
    return [
        sys.executable, "-m", "honcho", "start",
        "--procfile", str(procfile), "--app-root", str(settings.BASE_DIR),
        "--env", os.devnull,  # the environment is the caller's: no .env file read over it
    ]  # fmt: skip


def process_environment() -> dict[str, str]:
    """This environment, with this Python's scripts (gunicorn, uvicorn, celery) first on
    the PATH, whichever way the command was started."""
    scripts = str(Path(sys.executable).parent)
    return {**os.environ, "PATH": os.pathsep.join([scripts, os.environ.get("PATH", "")])}


class Command(BaseCommand):
    help = (
        "Production on one machine: migrate, collect the static files, then start the "
        "Procfile's processes (web, waits, workers per queue class, beat) with honcho."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--procfile",
            default=str(settings.BASE_DIR / "Procfile"),
            help="the process set to start (default: the project's Procfile)",
        )
        parser.add_argument(
            "--skip-release",
            action="store_true",
            help="start the processes without migrating or collecting static files first",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        """Refuse development settings, release, then become honcho (exec)."""
        if settings.DEBUG:
            raise CommandError(
                "serve starts production: set DEBUG=false and the rest of "
                "deploy/production.env; for development, `make run`."
            )
        procfile = Path(options["procfile"])
        if not procfile.is_file():
            raise CommandError(f"No Procfile at {procfile}.")
        if not options["skip_release"]:
            call_command("migrate", interactive=False)
            call_command("collectstatic", interactive=False, verbosity=0)
        self.stdout.write(f"Starting the process set of {procfile} with honcho.")
        self.stdout.flush()
        os.execvpe(sys.executable, honcho_command(procfile), process_environment())
