"""``manage.py check --deploy`` is clean under the documented production environment
(deploy/production.env; docs/deploy.md), and says what is wrong when a setting is not.
It runs as an operator would: a new process with that environment and nothing else."""

from __future__ import annotations

import os
import secrets
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PRODUCTION_ENV = ROOT / "deploy" / "production.env"


def production_environment(**changes: str) -> dict[str, str]:
    """deploy/production.env as read into an environment, its secret filled in."""
    env = {"PATH": os.environ["PATH"], "HOME": os.environ.get("HOME", "/tmp")}
    for line in PRODUCTION_ENV.read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            name, _, value = line.partition("=")
            env[name] = value
    env["SECRET_KEY"] = secrets.token_urlsafe(60)
    env.update(changes)
    return env


def check_deploy(env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_check_deploy_is_clean_under_the_documented_production_environment() -> None:
    env = production_environment()
    assert "CHANGE-ME" not in env["SECRET_KEY"]

    result = check_deploy(env)

    assert result.returncode == 0, result.stdout + result.stderr
    assert "System check identified no issues" in result.stdout


def test_check_deploy_names_what_a_plain_http_setup_leaves_open() -> None:
    env = production_environment(SSL_REDIRECT="false", SECURE_COOKIES="false", HSTS_SECONDS="0")

    result = check_deploy(env)

    assert result.returncode != 0
    for warning in ("security.W004", "security.W008", "security.W012", "security.W016"):
        assert warning in result.stderr + result.stdout
