import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest
from django.core.management import CommandError
from pytest_django import Settings

from accounts.management.commands.rundev import (
    loopback_webhooks_allow,
    port_check,
    server_command,
    worker_commands,
)
from tests.bots.bot_servers import free_port
from tests.conftest import ROOT
from tests.faults.servers import wait_until


def _option(command: list[str], name: str) -> str:
    return command[command.index(name) + 1]


def test_rundev_starts_an_interactive_worker_with_beat_and_a_batch_worker_at_idle_priority() -> (
    None
):
    interactive, batch = worker_commands()

    assert interactive[1:5] == ["-m", "celery", "--app", "cya_site"]
    assert _option(interactive, "--queues") == "interactive"
    assert "--beat" in interactive
    assert batch[:3] in (["chrt", "--idle", "0"], ["nice", "-n", "19"])
    assert _option(batch, "--queues") == "batch,outbound"
    assert "--beat" not in batch
    assert _option(interactive, "--hostname") != _option(batch, "--hostname")


def test_rundev_serves_the_asgi_application_so_waits_run_on_the_event_loop() -> None:
    command = server_command("127.0.0.1:8123", reload=True)

    assert command[1:4] == ["-m", "uvicorn", "cya_site.asgi:application"]
    assert (_option(command, "--host"), _option(command, "--port")) == ("127.0.0.1", "8123")
    watched = [command[i + 1] for i, word in enumerate(command) if word == "--reload-dir"]
    assert watched
    assert not any(path.endswith(("var", ".venv")) for path in watched)
    assert "--reload" not in server_command("127.0.0.1:8123", reload=False)


def test_rundev_refuses_a_port_in_use_naming_it_and_the_way_out() -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]

        with pytest.raises(CommandError, match=rf"Port {port} on 127.0.0.1 is already in use"):
            port_check(f"127.0.0.1:{port}")


def test_rundev_accepts_a_free_port() -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]

    port_check(f"127.0.0.1:{port}")


def test_rundev_lets_webhooks_reach_loopback_here_and_in_its_worker(
    monkeypatch: pytest.MonkeyPatch, settings: Settings
) -> None:
    monkeypatch.delenv("WEBHOOK_ALLOWED_NETWORKS")
    settings.WEBHOOK_ALLOWED_NETWORKS = []  # what this process read from the environment

    loopback_webhooks_allow()

    assert settings.WEBHOOK_ALLOWED_NETWORKS == ["127.0.0.0/8", "::1/128"]
    assert os.environ["WEBHOOK_ALLOWED_NETWORKS"] == "127.0.0.0/8,::1/128"  # the worker's


def test_rundev_keeps_the_webhook_networks_the_environment_sets(
    monkeypatch: pytest.MonkeyPatch, settings: Settings
) -> None:
    monkeypatch.setenv("WEBHOOK_ALLOWED_NETWORKS", "10.9.0.0/16")
    settings.WEBHOOK_ALLOWED_NETWORKS = ["10.9.0.0/16"]

    loopback_webhooks_allow()

    assert settings.WEBHOOK_ALLOWED_NETWORKS == ["10.9.0.0/16"]
    assert os.environ["WEBHOOK_ALLOWED_NETWORKS"] == "10.9.0.0/16"


def test_make_runs_first_screen_is_clean_and_it_stops_within_three_seconds(
    tmp_path: Path,
) -> None:
    """As `make run` on a bare machine (SQLite, the filesystem broker): no broker warning,
    the address to open printed last, each request logged once, Ctrl-C stops it all in
    three seconds (issue 26)."""
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL")}
    env |= {"VAR_DIR": str(tmp_path / "var"), "DJANGO_SETTINGS_MODULE": "cya_site.settings"}
    python = [sys.executable, "manage.py"]
    migrate = subprocess.run([*python, "migrate", "--noinput"], cwd=ROOT, env=env,
                             capture_output=True, check=False, timeout=300)  # fmt: skip
    assert migrate.returncode == 0, migrate.stderr
    port = free_port()
    out = tmp_path / "screen.txt"
    with out.open("wb") as screen:
        rundev = subprocess.Popen(
            [*python, "rundev", f"127.0.0.1:{port}", "--noreload"], cwd=ROOT, env=env,
            stdout=screen, stderr=subprocess.STDOUT, start_new_session=True,
        )  # fmt: skip
    try:
        address = f"The platform is running: open http://127.0.0.1:{port}/"
        wait_until(lambda: address in out.read_text(), 120, "rundev")
        assert out.read_text().rstrip().splitlines()[-1] == address
        assert httpx.get(f"http://127.0.0.1:{port}/ladder/", timeout=30).status_code == 200
        time.sleep(0.5)  # the access log line is written as the response goes
        logged = [line for line in out.read_text().splitlines() if "ladder/" in line]
        assert len(logged) == 1, logged

        os.killpg(rundev.pid, signal.SIGINT)  # Ctrl-C in the terminal: its whole group
        started = time.monotonic()
        rundev.wait(timeout=10)
        assert time.monotonic() - started <= 3.0
    finally:
        if rundev.poll() is None:
            os.killpg(rundev.pid, signal.SIGKILL)
            rundev.wait()
    screen_text = out.read_text()
    assert "No hostname was supplied" not in screen_text
    assert "SecurityWarning" not in screen_text
    assert "[tasks]" not in screen_text
    assert (tmp_path / "var" / "log" / "worker-interactive.log").stat().st_size > 0
    leftovers = subprocess.run(["pgrep", "-f", f"VAR_DIR={tmp_path}"], capture_output=True,
                               text=True, check=False).stdout.split()  # fmt: skip
    assert leftovers == []
