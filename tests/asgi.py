"""The ASGI application under a real uvicorn process, as production serves waits and
streams, against the test database (tests using it commit: ``transactional_db``)."""

from __future__ import annotations

import os
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager

import httpx
import psycopg
import pytest

from tests.bots.bot_servers import free_port
from tests.conftest import ROOT, _test_database_url

SERVED: dict[str, int] = {}  # a running server's base URL -> its process id


@contextmanager
def uvicorn_serving(settings: dict[str, str]) -> Iterator[str]:
    """A uvicorn process serving the ASGI application against the test database, with
    ``settings`` (environment variables over this process's); its base URL. Once it has
    stopped, its database sessions are gone too."""
    port = free_port()
    name = f"cya-test-asgi-{uuid.uuid4().hex[:8]}"
    env = {
        **os.environ,
        "DATABASE_URL": _test_database_url(),
        "DJANGO_SETTINGS_MODULE": "cya_site.settings",
        "PGAPPNAME": name,  # its database sessions, to see them gone (below)
        **settings,
    }
    command = [
        sys.executable, "-m", "uvicorn", "cya_site.asgi:application",
        "--host", "127.0.0.1", "--port", str(port), "--log-level", "warning",
    ]  # fmt: skip
    server = subprocess.Popen(command, cwd=ROOT, env=env)
    base = f"http://127.0.0.1:{port}"
    SERVED[base] = server.pid
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                httpx.get(f"{base}/api/v1/", timeout=2)
                break
            except httpx.HTTPError:
                if time.monotonic() > deadline or server.poll() is not None:
                    pytest.fail("uvicorn did not start")
                time.sleep(0.2)
        yield base
    finally:
        server.terminate()
        server.wait(timeout=20)
        del SERVED[base]
        _sessions_gone(name)


def _sessions_gone(name: str) -> None:
    """Wait until PostgreSQL has seen the server's sessions end: the test database is
    dropped at the end of the session, which fails while any is still open."""
    with psycopg.connect(_test_database_url(), autocommit=True) as watch:
        deadline = time.monotonic() + 10
        query = "SELECT count(*) FROM pg_stat_activity WHERE application_name = %s"
        while watch.execute(query, [name]).fetchone() != (0,):
            assert time.monotonic() < deadline, "the server's database sessions outlived it"
            time.sleep(0.1)
