"""``manage.py rundev``: the development server plus real Celery workers (``make run``): one
for interactive work (with beat), one at idle CPU priority for batch and outbound work, the split
of the documented process set (cya_site.queues, docs/operations.md)."""

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import connections

from cya_site import queues

# The packages uvicorn watches to reload the server (never var/, where the broker writes).
RELOAD_DIRS = ("accounts", "bots", "cya_site", "games", "tournaments", "locale")
# make run's webhook bots and receivers listen on this machine (cya_site.outbound).
WEBHOOK_NETWORKS = "WEBHOOK_ALLOWED_NETWORKS"
LOOPBACK_NETWORKS = ["127.0.0.0/8", "::1/128"]


# Ctrl-C to a quiet prompt: what the workers have not finished in this long is left to
# the recovery sweeps (a lost bot turn is sent again within seconds, a match resumes)
STOP_SECONDS = 1.5


def worker_commands() -> list[list[str]]:
    """The Celery workers as ``make run`` starts them: interactive work (bots' moves at
    people's tables, deadlines) with beat embedded, and batch and outbound work (ladder
    matches, validations, clubs' webhooks) in a worker of its own, at idle CPU priority
    (``queues.batch_priority``), so a busy ladder never delays a move at a people's
    table."""
    prefix = settings.CELERY_QUEUE_PREFIX
    interactive = queues.queues(prefix, (queues.INTERACTIVE,))
    batch = queues.queues(prefix, (queues.BATCH, queues.OUTBOUND))
    return [
        [*_celery_worker("interactive", interactive, concurrency=2), "--beat"],
        [*queues.batch_priority(), *_celery_worker("batch", batch, concurrency=1)],
    ]


def _celery_worker(name: str, names: list[str], *, concurrency: int) -> list[str]:
    return [
        sys.executable, "-m", "celery", "--app", "cya_site", "worker",
        "--queues", ",".join(names), "--hostname", f"{name}@%h",
        "--concurrency", str(concurrency), "--loglevel", "INFO",
    ]  # fmt: skip


def server_command(addrport: str, *, reload: bool) -> list[str]:
    """The web server as ``make run`` starts it: uvicorn serving the ASGI application, as
    production serves waits and streams (on the event loop, no thread held per wait),
    and here everything else too; reloaded when the code changes."""
    host, _, port = addrport.rpartition(":")
    command = [
        sys.executable, "-m", "uvicorn", "cya_site.asgi:application",
        "--host", host.strip("[]") or "127.0.0.1", "--port", port,
        # the site logs each request once itself (cya_site.tracing); uvicorn says only
        # what goes wrong, and the address is printed once, last, when it answers
        "--no-access-log", "--log-level", "warning", "--timeout-graceful-shutdown", "1",
    ]  # fmt: skip
    if reload:
        command.append("--reload")
        for name in RELOAD_DIRS:
            command += ["--reload-dir", str(settings.BASE_DIR / name)]
    return command


def loopback_webhooks_allow() -> None:
    """Let webhooks reach this machine's loopback, in this process and those it starts,
    unless ``WEBHOOK_ALLOWED_NETWORKS`` says otherwise."""
    if os.environ.get(WEBHOOK_NETWORKS, "").strip():
        return
    os.environ[WEBHOOK_NETWORKS] = ",".join(LOOPBACK_NETWORKS)  # the worker, the reloader
    settings.WEBHOOK_ALLOWED_NETWORKS = LOOPBACK_NETWORKS  # this process read it already


def port_check(addrport: str) -> None:
    """Raise CommandError, naming the port and the way out, if the address is taken."""
    host, _, port_text = addrport.rpartition(":")
    host = host.strip("[]") or "127.0.0.1"
    try:
        port = int(port_text)
    except ValueError:
        raise CommandError(f"{addrport!r} is not host:port, e.g. 127.0.0.1:8000.") from None
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as probe:
        # As the development server binds: a port left in TIME_WAIT is free to it.
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((host, port))
        except OSError as error:
            raise CommandError(
                f"Port {port} on {host} is already in use ({error.strerror}). Stop the other "
                f"server, or serve on another port: make run PORT={port + 123}"
            ) from None


class Command(BaseCommand):
    help = (
        "Check the port is free, load the demo data, start the Celery workers (interactive "
        "work with beat; batch and outbound work, at idle CPU priority) on the configured "
        "broker, and "
        "serve on 127.0.0.1:8000 (uvicorn, the ASGI application) until stopped. Webhooks "
        "may reach loopback unless "
        "WEBHOOK_ALLOWED_NETWORKS is set."
    )

    def run_from_argv(self, argv: list[str]) -> None:
        """From the terminal (``make run``): once everything it started has stopped, leave
        at once. Tearing down this interpreter (Django, Celery, the demo's objects) took
        seconds more, after Ctrl-C, for nothing: its connections are closed here."""
        try:
            super().run_from_argv(argv)
        finally:
            connections.close_all()
            sys.stdout.flush()
            sys.stderr.flush()
            os._exit(0)

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("addrport", nargs="?", default="127.0.0.1:8000")
        parser.add_argument("--noreload", action="store_true", help="Do not auto-reload.")

    def handle(self, *args: Any, addrport: str, noreload: bool, **options: Any) -> None:
        loopback_webhooks_allow()
        # Before anything starts: the server would report a taken port only after the
        # workers were up, in the middle of their log.
        port_check(addrport)
        host, _, port = addrport.rpartition(":")
        call_command("seed_demo", url=f"http://{host or '127.0.0.1'}:{port}/")
        logs = settings.VAR_DIR / "log"
        logs.mkdir(parents=True, exist_ok=True)
        workers = [_started(command, logs / f"worker-{name}.log") for name, command in
                   zip(("interactive", "batch"), worker_commands(), strict=True)]  # fmt: skip
        server = subprocess.Popen(server_command(addrport, reload=not noreload))
        try:
            if _answers(addrport, server):
                self.stdout.write(
                    f"\nWorkers log to {logs}/. Ctrl-C stops everything.\n"
                    f"The platform is running: open http://{addrport}/\n"
                )
                self.stdout.flush()
            server.wait()
        except KeyboardInterrupt:
            pass  # Ctrl-C: the server has it too; everything is stopped below
        finally:
            _stop([server, *workers])


def _started(command: list[str], log: Path) -> subprocess.Popen[bytes]:
    """A worker in a session of its own (the terminal's Ctrl-C is for rundev, which stops
    it), its banner and task lines in ``log`` rather than over the server's address."""
    with log.open("ab") as out:
        return subprocess.Popen(
            command, cwd=settings.BASE_DIR, stdout=out, stderr=subprocess.STDOUT,
            start_new_session=True,
        )  # fmt: skip


def _answers(addrport: str, server: subprocess.Popen[bytes]) -> bool:
    """Wait until the server accepts connections (True), or has exited (False)."""
    host, _, port = addrport.rpartition(":")
    while server.poll() is None:
        try:
            socket.create_connection((host.strip("[]") or "127.0.0.1", int(port)), 0.5).close()
        except OSError:
            time.sleep(0.1)
        else:
            return True
    return False


def _stop(processes: list[subprocess.Popen[bytes]]) -> None:
    """Stop the server and the workers within about STOP_SECONDS: asked first (SIGTERM
    to each one's whole process group), then killed."""
    for process in processes:
        if process.poll() is None:
            _signal(process, signal.SIGTERM)
    deadline = time.monotonic() + STOP_SECONDS
    for process in processes:
        try:
            process.wait(timeout=max(0.0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            _signal(process, signal.SIGKILL)
            process.wait()


def _signal(process: subprocess.Popen[bytes], number: int) -> None:
    """Signal ``process`` and its children (a worker's pool, the reloader's server)."""
    try:
        if os.getpgid(process.pid) == process.pid:  # a session of its own: its group
            os.killpg(process.pid, number)
        else:
            process.send_signal(number)
    except ProcessLookupError:
        pass  # gone already
