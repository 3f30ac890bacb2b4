"""``cya-bot play``: your bot against the built-ins on duplicate deals, offline.

The command runs as a real process with only the SDK importable (its package and the
engine and built-ins it ships), as a bot author runs it; one test builds the SDK's wheel
and runs the installed ``cya-bot`` script.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import time
from datetime import datetime
from pathlib import Path
from random import Random
from typing import Any

import pytest
from django.utils import timezone

from bots import verdicts, webhook
from bots.strategies.duplicate import deal_seeds, interval, rotation
from cya_bot import local
from cya_bot.decisions import ILLEGAL, MALFORMED, decision_for
from games.engine import RuleSet, apply, legal_actions, new_game
from tests.bots.test_protocol_schemas import _errors
from tests.sdk.conftest import ROOT, SDK, SECRET, cya_bot, sdk_env

BOT = "examples/webhook_bot.py"  # the example bot's decide, from sdk/


def play_json(*args: str, **env: str) -> dict[str, Any]:
    done = cya_bot("play", *args, "--json", **env)
    assert done.returncode == 0, done.stderr
    result: dict[str, Any] = json.loads(done.stdout)
    return result


def test_the_same_seed_plays_the_same_games_and_gives_the_same_figures() -> None:
    args = (BOT, "--against", "greedy", "--against", "random", "--deals", "4", "--seed", "11")
    first, again = play_json(*args), play_json(*args)
    assert first == again
    other = play_json(*args[:-1], "12")
    assert [g["dollars"] for g in other["games"]] != [g["dollars"] for g in first["games"]]

    # 4 deals, each dealt from the arena's seeds and played once per rotation of 3 seats
    games = first["games"]
    assert [(g["deal"], g["rotation"]) for g in games] == [
        (d, r) for d in range(1, 5) for r in range(1, 4)
    ]
    assert [g["seed"] for g in games] == [s for s in deal_seeds(11, 4) for _ in range(3)]
    for g in games:  # entry e sits where rotation r puts it; the winners placed first
        entry_at = rotation(3, g["rotation"] - 1)
        assert [entry_at[seat] for seat in g["seats"]] == [0, 1, 2]
        assert all(g["places"][e] == 1 for e in g["winners"])
        assert g["decisions"] > 0
    # the win share is the mean over deals of each deal's share, with its 95% interval
    mine = [
        sum(1 / len(g["winners"]) for g in games if g["deal"] == d and 0 in g["winners"]) / 3
        for d in range(1, 5)
    ]
    expected = interval(mine)
    [you, *_] = first["standings"]
    assert you["name"] == BOT
    assert (you["win"]["mean"], you["win"]["half"]) == (expected.mean, expected.half)
    assert sum(s["win"]["mean"] for s in first["standings"]) == pytest.approx(1.0)
    assert first["faults"] == []
    assert first["decisions"] == sum(g["decisions"] for g in games)


def test_the_table_printed_shows_the_win_share_with_its_interval() -> None:
    args = (BOT, "--against", "shark", "--deals", "3", "--seed", "5")
    figures = play_json(*args)
    done = cya_bot("play", *args)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert sum(line.startswith("game ") for line in lines) == len(figures["games"]) == 6
    assert "3 deals x 2 rotations = 6 games, 2021 rules, 2 seats, seed 5" in lines
    for standing in figures["standings"]:
        win = standing["win"]
        row = next(line for line in lines if line.strip().startswith(standing["name"]))
        assert f"{win['mean']:.1%} ±{win['half']:>5.1%}" in row, row


def test_a_webhook_url_plays_the_same_games_as_its_decide_function(webhook_bot: str) -> None:
    args = ("--against", "greedy", "--deals", "2", "--seed", "3")
    by_url = play_json(webhook_bot, *args, "--secret", SECRET)
    by_function = play_json(BOT, *args)
    assert by_url["games"] == by_function["games"]
    assert by_url["standings"][1:] == by_function["standings"][1:]


def test_bad_arguments_exit_2_and_say_what_is_wrong() -> None:
    for args, message in (
        (("--against", "grandmaster"), "unknown built-in 'grandmaster'"),
        (("--deals", "0"), "--deals must be at least 1"),
        (("--preset", "1999"), "--preset must be one of"),
        (("--option", "hand_size=-3"), "rules: hand_size"),
    ):
        done = cya_bot("play", BOT, *args)
        assert (done.returncode, done.stdout) == (2, ""), args
        assert message in done.stderr, (args, done.stderr)
    missing = cya_bot("play", "no_such_bot.py")
    assert missing.returncode == 1
    assert "cya-bot: no such file: no_such_bot.py" in missing.stderr
    url = cya_bot("play", "http://127.0.0.1:9/")
    assert url.returncode == 1
    assert "give its secret" in url.stderr


def test_an_illegal_or_broken_answer_is_a_fault_and_the_engines_default_is_played() -> None:
    rules = RuleSet.preset("2021", seats=3)
    calls = 0

    def unruly(decision: dict[str, Any]) -> dict[str, Any]:
        nonlocal calls
        calls += 1
        if calls % 3 == 0:
            raise RuntimeError("my bug")
        if calls % 3 == 1:
            return {"type": "discard", "card": "no_such_card"}
        return {"type": "concede"}  # well-formed, but no decision of a turn takes it

    run = local.play(unruly, ["greedy", "random"], rules=rules, deals=1, seed=2)
    assert len(run.games) == 3
    assert len(run.faults) == run.clock.answers == calls > 0
    kinds = {f.fault for f in run.faults}
    assert kinds == {"error", MALFORMED, ILLEGAL}
    assert any(f.detail == "RuntimeError: my bug" for f in run.faults)


def test_the_runner_loads_neither_django_nor_the_platforms_web_code() -> None:
    code = (
        "import json, sys; from cya_bot.cli import main; "
        "main(['play', 'examples/webhook_bot.py', '--deals', '1', '--quiet']); "
        "print(json.dumps(sorted(sys.modules)))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        cwd=SDK,
        env=sdk_env(),
        capture_output=True,
        text=True,
        check=True,
    )
    loaded = set(json.loads(done.stdout.splitlines()[-1]))
    assert {"games.engine", "bots.strategies", "cya_bot.local"} <= loaded
    platform = {m for m in loaded if m.split(".")[0] in ("django", "rest_framework", "cya_site")}
    assert platform == set()
    assert {m for m in loaded if m.startswith(("games.", "bots."))} <= {
        m for m in loaded if m.startswith(("games.engine", "bots.strategies"))
    }


def test_the_wheel_ships_the_platforms_engine_and_its_cya_bot_script_plays(
    tmp_path: Path,
) -> None:
    source = tmp_path / "sdk"
    skip = shutil.ignore_patterns("__pycache__", "build", "*.egg-info")
    shutil.copytree(SDK, source, ignore=skip)  # symlinks followed: what a checkout builds
    pip = [sys.executable, "-m", "pip", "--disable-pip-version-check", "--quiet"]
    subprocess.run(
        [*pip, "wheel", "--no-deps", "--no-build-isolation", "-w", str(tmp_path), str(source)],
        check=True,
        cwd=tmp_path,
    )
    [wheel] = tmp_path.glob("cya_bot-*.whl")
    site = tmp_path / "site"
    subprocess.run([*pip, "install", "--no-deps", "--target", str(site), str(wheel)], check=True)
    for module in (ROOT / "games" / "engine").glob("*.py"):
        assert (site / "games" / "engine" / module.name).read_bytes() == module.read_bytes()
    assert not (site / "games" / "models.py").exists()
    assert not (site / "bots" / "strategies" / "arena.py").exists()

    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(site)}
    done = subprocess.run(
        [str(site / "bin" / "cya-bot"), "play", BOT, "--deals", "2", "--json"],
        cwd=SDK,
        env=env,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == play_json(BOT, "--deals", "2")


def test_the_runner_sends_the_very_body_the_platform_sends_a_webhook_bot() -> None:
    rules = RuleSet.preset("2021", seats=4)
    state = new_game(rules, seed=3)
    rng = Random(3)
    while not state.over and state.version < 300:  # a random game can run for thousands
        sdk = decision_for(state, 42, decision_ms=1000, time_bank_ms=15_000)
        payload, _ = verdicts.webhook_decision(
            42, state, decision_ms=1000, time_bank_ms=15_000, now=timezone.now()
        )
        platform = json.loads(
            webhook._dumps({"protocol_version": 1, "type": "decision", **payload})
        )
        if state.version % 20 == 0:  # the schema check takes 0.2 s: a sample of them
            assert _errors("decision", sdk) == []
        assert datetime.fromisoformat(sdk.pop("deadline")).tzinfo is not None
        del platform["deadline"]
        assert sdk == platform
        state = apply(state, rng.choice(legal_actions(state)))[0]


def test_answers_slower_than_the_per_decision_limit_are_counted_not_cut_off() -> None:
    rules = RuleSet.preset("2021", seats=2)
    limits = []

    def slow(decision: dict[str, Any]) -> dict[str, Any]:
        limits.append(decision["decision_ms"])
        time.sleep(0.003)
        legal: list[dict[str, Any]] = decision["legal_actions"]
        return legal[0]

    run = local.play(slow, ["random"], rules=rules, deals=1, seed=4, decision_ms=2)
    assert run.clock.answers == len(limits) == run.clock.over_limit > 0
    assert set(limits) == {2}
    assert run.clock.longest_ms >= 3
    assert run.faults == []
