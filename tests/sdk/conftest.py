"""Fixtures for the SDK's tests: its example bots run as real processes on 127.0.0.1."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from bots import webhook

ROOT = Path(__file__).resolve().parents[2]
SDK = ROOT / "sdk"
SECRET = "sdk-test-secret-0123456789"


@pytest.fixture(autouse=True)
def _close_platform_connections() -> Iterator[None]:
    """The platform's webhook client keeps connections alive: close them after each test."""
    yield
    webhook.close()


def sdk_env(**extra: str) -> dict[str, str]:
    """An environment in which only the SDK (not the platform's folders) is importable:
    its own package, and the engine and built-ins it ships (sdk/linked, as in its wheel)."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "DJANGO_SETTINGS_MODULE")}
    path = os.pathsep.join((str(SDK), str(SDK / "linked")))
    return {**env, "PYTHONPATH": path, "PYTHONUNBUFFERED": "1", **extra}


def cya_bot(*args: str, **env: str) -> subprocess.CompletedProcess[str]:
    """Run the ``cya-bot`` command (``python -m cya_bot``) from the SDK's folder."""
    return subprocess.run(
        [sys.executable, "-m", "cya_bot", *args],
        cwd=SDK,
        env=sdk_env(**env),
        capture_output=True,
        text=True,
        timeout=300,
    )


@pytest.fixture
def example() -> Iterator[Callable[..., subprocess.Popen[str]]]:
    """Start ``sdk/examples/<name>.py`` with environment variables; stopped afterwards."""
    started: list[subprocess.Popen[str]] = []

    def start(name: str, **env: str) -> subprocess.Popen[str]:
        process = subprocess.Popen(
            [sys.executable, str(SDK / "examples" / f"{name}.py")],
            cwd=ROOT / "sdk" / "examples",
            env=sdk_env(**env),
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        started.append(process)
        return process

    yield start
    for process in started:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        if process.stdout is not None:
            process.stdout.close()


@pytest.fixture
def webhook_bot(example: Callable[..., subprocess.Popen[str]]) -> str:
    """The example webhook bot serving on a free port of 127.0.0.1: its URL."""
    process = example("webhook_bot", CYA_SECRET=SECRET, PORT="0")
    assert process.stdout is not None
    line = process.stdout.readline()
    assert line.startswith("cya-bot: listening on http://127.0.0.1:"), line
    return line.split()[-1]
