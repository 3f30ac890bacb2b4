"""``manage.py rundev``: the development server plus a real Celery worker (``make run``)."""

import os
import subprocess
import sys
from typing import Any

from django.conf import settings
from django.core.management import call_command, get_commands
from django.core.management.base import BaseCommand, CommandParser

# Django's autoreloader runs the server in a child process with this variable set; the
# worker belongs to the outer process only, or each reload would start another one.
_RELOADER_CHILD = "RUN_MAIN"


def worker_command() -> list[str]:
    """The Celery worker, with beat embedded, as ``make run`` starts it."""
    return [
        sys.executable,
        "-m",
        "celery",
        "--app",
        "cya_site",
        "worker",
        "--beat",
        "--concurrency",
        "1",
        "--loglevel",
        "INFO",
    ]


class Command(BaseCommand):
    help = (
        "Load demo data when a seed_demo command exists, start a Celery worker (with "
        "beat) on the configured broker, and serve on 127.0.0.1:8000 until stopped."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("addrport", nargs="?", default="127.0.0.1:8000")
        parser.add_argument("--noreload", action="store_true", help="Do not auto-reload.")

    def handle(self, *args: Any, addrport: str, noreload: bool, **options: Any) -> None:
        if os.environ.get(_RELOADER_CHILD) == "true":
            call_command("runserver", addrport, use_reloader=True)
            return
        # seed_demo arrives with the games work; until then there is no demo data to load.
        if "seed_demo" in get_commands():
            call_command("seed_demo")
        self.stdout.write(f"Starting a Celery worker on {settings.CELERY_BROKER_URL}")
        worker = subprocess.Popen(worker_command(), cwd=settings.BASE_DIR)
        try:
            call_command("runserver", addrport, use_reloader=not noreload)
        finally:
            worker.terminate()
            try:
                worker.wait(timeout=15)
            except subprocess.TimeoutExpired:
                worker.kill()
                worker.wait()
