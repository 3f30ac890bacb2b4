"""``manage.py serve``: production on one machine in one command, played through.

It runs as a self-hoster runs it, on a PostgreSQL and a Redis of the test's own
(tests.faults.servers): migrate, collect the static files, then honcho starts the
Procfile's process set (gunicorn, uvicorn, a worker per queue class, beat). A person
registers and plays a whole game against three built-in bots through it: her moves on
gunicorn, her waits on uvicorn, the bots' moves by the interactive worker. Stopping it
stops every process.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.bots.bot_servers import free_port
from tests.conftest import ROOT
from tests.faults.servers import running_postgres, running_redis, wait_until

PASSWORD = "a-long-and-unlikely-passphrase"
PROCESSES = ("web", "waits", "interactive", "batch", "outbound", "beat")


class Served:
    """``manage.py serve`` running, and a client for each of its two servers."""

    def __init__(self, process: subprocess.Popen[bytes], log: Path, web: str, waits: str):
        self.process, self.log = process, log
        self.web = httpx.Client(base_url=web, timeout=30)
        self.waits = httpx.Client(base_url=waits, timeout=60)

    def close(self) -> None:
        self.web.close()
        self.waits.close()

    def output(self) -> str:
        return self.log.read_text(errors="replace")

    def answers(self) -> bool:
        try:
            return (
                self.web.get("/healthz").status_code == 200
                and self.waits.get("/healthz").status_code == 200
            )
        except httpx.HTTPError:
            return False


@pytest.fixture
def served(tmp_path: Path) -> Iterator[Served]:
    """The process set on its own servers, until the test ends (then SIGTERM, as a
    supervisor stops it)."""
    with running_postgres() as postgres, running_redis() as redis_server:
        postgres.create_database("cya")
        web_port, waits_port = free_port(), free_port()
        env = {
            **os.environ,
            "DEBUG": "false",
            "SECRET_KEY": "serve-test-" + uuid.uuid4().hex * 2,
            "ALLOWED_HOSTS": "127.0.0.1",
            "DATABASE_URL": postgres.url("cya"),
            "REDIS_URL": redis_server.url,
            "VAR_DIR": str(tmp_path / "var"),
            "WEB_PORT": str(web_port),
            "ASGI_PORT": str(waits_port),
            "WEB_WORKERS": "1",
            **{f"{name}_CONCURRENCY": "1" for name in ("INTERACTIVE", "BATCH", "OUTBOUND")},
            "BOT_MOVE_DELAY_MS": "0",
            "LOG_LEVEL": "INFO",
        }
        log = tmp_path / "serve.log"
        with log.open("wb") as out:
            process = subprocess.Popen(
                [sys.executable, "manage.py", "serve"],
                cwd=ROOT,
                env=env,
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        running = Served(
            process, log, f"http://127.0.0.1:{web_port}", f"http://127.0.0.1:{waits_port}"
        )
        try:
            try:
                wait_until(running.answers, 120, "manage.py serve answering")
            except AssertionError as late:
                raise AssertionError(f"{late}\n{running.output()[-3000:]}") from None
            yield running
        finally:
            running.close()
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGTERM)
                try:
                    process.wait(timeout=30)
                except subprocess.TimeoutExpired:
                    os.killpg(process.pid, signal.SIGKILL)
                    process.wait()


def _signed_in(served: Served) -> dict[str, str]:
    registered = served.web.post(
        "/api/v1/auth/register/", json={"username": "alice", "password": PASSWORD}
    )
    assert registered.status_code == 201, registered.text
    login = served.web.post("/api/v1/auth/login/", json={"username": "alice", "password": PASSWORD})
    assert login.status_code == 201, login.text
    return {"Authorization": f"Bearer {login.json()['token']['key']}"}


def _play(served: Served, auth: dict[str, str], game: int) -> dict[str, Any]:
    """Alice's first legal action at each of her decisions, waiting for the bots on the
    ASGI server, until the game ends; the game as the API shows it then."""
    version, deadline = 0, time.monotonic() + 240
    while time.monotonic() < deadline:
        waited = served.waits.get(
            f"/api/v1/games/{game}/wait/", params={"after": version, "timeout": 10}, headers=auth
        )
        assert waited.status_code == 200, waited.text
        state = served.web.get(f"/api/v1/games/{game}/decision/", headers=auth).json()
        if state["status"] != "active":
            return dict(served.web.get(f"/api/v1/games/{game}/", headers=auth).json())
        decision = state.get("decision")
        if not decision:
            version = int(state["version"])
            continue
        action = {"action": decision["legal_actions"][0], "version": decision["version"]}
        acted = served.web.post(
            f"/api/v1/games/{game}/actions/",
            json=action,
            headers={**auth, "Idempotency-Key": uuid.uuid4().hex},
        )
        assert acted.status_code in (200, 201), acted.text
        version = int(decision["version"]) + 1
    raise AssertionError("the game did not end in four minutes:\n" + served.output()[-3000:])


def test_serve_starts_the_process_set_and_a_person_plays_a_whole_game_through_it(
    served: Served,
) -> None:
    auth = _signed_in(served)
    bots = [{"seat": n, "strategy": "greedy"} for n in (1, 2, 3)]
    table = {"preset": "2021", "seats": 4, "options": {"ending": "quick"}, "bots": bots}
    created = served.web.post("/api/v1/games/", json=table, headers=auth)
    assert created.status_code == 201, created.text

    ended = _play(served, auth, int(created.json()["id"]))

    assert ended["status"] == "finished", ended
    output = served.output()
    for name in PROCESSES:  # honcho prefixes each line with its process's name
        assert re.search(rf"^\S+ {name}\.1 +\| ", output, re.MULTILINE), (name, output[-3000:])


def test_stopping_serve_stops_every_process(served: Served) -> None:
    os.killpg(served.process.pid, signal.SIGTERM)

    served.process.wait(timeout=30)
    survivors = subprocess.run(
        ["pgrep", "-s", str(served.process.pid)], capture_output=True, text=True, check=False
    ).stdout.split()
    assert survivors == []
    assert not served.answers()


def test_serve_refuses_development_settings() -> None:
    done = subprocess.run(
        [sys.executable, "manage.py", "serve"],
        cwd=ROOT,
        env={**os.environ, "DEBUG": "true"},
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )

    assert done.returncode == 1
    assert "set DEBUG=false" in done.stderr
