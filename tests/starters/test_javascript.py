"""The JavaScript starter (starters/javascript): its own tests under Node's test runner,
and the starter itself, a real node process, validated by the platform like any bot.

Node 20 is on every machine of the project; the starter needs no npm package.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
from collections.abc import Iterator

import pytest

from accounts.models import User
from bots import services, tasks, webhook
from bots.models import Bot, BotVersion, Match, SeatControl
from games.engine.cards import EDITIONS
from games.engine.simulate import parse_rules
from tests.conftest import ROOT
from tests.sdk.conftest import cya_bot

STARTER = ROOT / "starters" / "javascript"
SECRET = "js-starter-secret-0123456789"


@pytest.fixture(autouse=True)
def _close_platform_connections() -> Iterator[None]:
    """The platform's webhook client keeps connections alive: close them after each test."""
    yield
    webhook.close()


@pytest.fixture
def starter() -> Iterator[str]:
    """``node bot.js`` serving on a free port of 127.0.0.1: its URL."""
    process = subprocess.Popen(
        ["node", "bot.js"],
        cwd=STARTER,
        env={"PATH": os.environ["PATH"], "CYA_SECRET": SECRET, "PORT": "0"},
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    assert process.stdout is not None
    line = process.stdout.readline()
    try:
        assert line.startswith("cya-bot: listening on http://127.0.0.1:"), line
        yield line.split()[-1]
    finally:
        process.terminate()
        process.wait(timeout=10)
        process.stdout.close()


def test_the_starters_own_tests_pass_under_nodes_test_runner() -> None:
    done = subprocess.run(
        ["node", "--test"], cwd=STARTER, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stdout + done.stderr
    passed = re.search(r"^# pass (\d+)$", done.stdout, re.MULTILINE)
    assert passed is not None, done.stdout
    assert int(passed.group(1)) >= 10, done.stdout
    assert re.search(r"^# fail 0$", done.stdout, re.MULTILINE), done.stdout


def test_the_platform_validates_the_starter_as_a_webhook_bot(alice: User, starter: str) -> None:
    bot = services.bot_create(owner=alice, name="js-starter", kind=Bot.Kind.WEBHOOK)
    version = services.version_create(bot=bot, by=alice, url=starter, secret=SECRET, tag="v1")

    assert tasks.validate_version(version.pk) == BotVersion.Status.READY

    version.refresh_from_db()
    match = Match.objects.get(kind=Match.Kind.VALIDATION, entries__version=version)
    assert version.validation_log == [
        "handshake: 'js-starter', protocol 1",
        f"validation game {match.match_games.get().game_id} (match {match.pk})",
        "passed",
    ]
    control = SeatControl.objects.get(seat__game__match_game__match=match, version=version)
    assert not control.strike_log.exists()  # every answer signed-checked, legal, on time
    assert control.seat.game.events.filter(origin="webhook").count() > 10


def test_the_starter_refuses_a_request_signed_with_another_secret(starter: str) -> None:
    body = {"decision_id": "1:0", "legal_actions": [{"type": "concede"}]}
    answer = webhook.ask(starter, "not-the-bots-secret-at-all", body, timeout=5)
    assert (answer.fault, answer.detail) == (webhook.HTTP, "HTTP 401")


def test_the_starter_plays_local_games_with_every_advanced_rule_without_a_fault(
    starter: str,
) -> None:
    done = cya_bot(
        "play", starter, "--secret", SECRET, "--against", "greedy", "--against", "random",
        "--advanced", "--deals", "2", "--json",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    run = json.loads(done.stdout)
    assert run["faults"] == []
    assert run["decisions"] > 50
    rules = argparse.Namespace(preset="2021", seats=3, advanced=True, option=[])
    assert run["rules"] == parse_rules(rules).to_json()


def test_the_starters_card_table_is_the_engines() -> None:
    script = "const m = await import('./cards.js'); console.log(JSON.stringify(m.CARDS));"
    done = subprocess.run(
        ["node", "--input-type=module", "-e", script],
        cwd=STARTER,
        capture_output=True,
        text=True,
        check=True,
    )
    tables = json.loads(done.stdout)
    assert tables == {
        key: [[c.key, c.value, c.kind] for c in edition.cards] for key, edition in EDITIONS.items()
    }
