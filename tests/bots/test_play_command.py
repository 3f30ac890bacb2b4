"""``manage.py play``: built-ins and real local webhook bots at a table, in memory."""

from __future__ import annotations

import itertools
import re
import socket
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from io import StringIO
from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from pytest_django import Settings

from bots import webhook
from cya_bot import BotServer

ROOT = Path(__file__).resolve().parents[2]
SECRET = "play-command-secret-0123456789"
ROW = re.compile(r"^  (\d+)\*?\s+(\d+)\s+(\S+)\s+([\d,]+)\s+(\S+)\s+(.*)$")

Decide = Callable[[dict[str, Any]], Any]


def play(*args: str) -> str:
    out = StringIO()
    call_command("play", *args, stdout=out)
    return out.getvalue()


def rows(output: str) -> list[tuple[int, int, str, int, str]]:
    """(place, seat, bot, dollars, strikes) of every result row printed."""
    found = (ROW.match(line) for line in output.splitlines())
    return [(int(m[1]), int(m[2]), m[3], int(m[4].replace(",", "")), m[5]) for m in found if m]


@pytest.fixture
def bot() -> Iterator[Callable[[Decide], str]]:
    """Start an SDK webhook bot on a free port of 127.0.0.1; returns its URL."""
    servers: list[BotServer] = []

    def start(decide: Decide) -> str:
        server = BotServer(decide, secret=SECRET, port=0, name="local").start()
        servers.append(server)
        return server.url

    yield start
    for server in servers:
        server.stop()


def first_pair(decision: dict[str, Any]) -> Any:
    legal = decision["legal_actions"]
    return next((a for a in legal if a["type"] in ("pair", "pair_discard")), legal[0])


def test_builtins_play_the_games_asked_for_and_the_same_seed_prints_the_same() -> None:
    args = ("--bot", "builtin:shark", "--bot", "builtin:greedy", "--bot", "builtin:random")
    output = play(*args, "--seed", "7", "--games", "2")
    assert "Game 1 of 2: 2021 rules, 3 seats, seed 7" in output
    assert "Game 2 of 2: 2021 rules, 3 seats, seed 8" in output
    assert "Summary over 2 games:" in output
    table = rows(output)
    assert len(table) == 6
    assert sorted(place for place, *_ in table[:3]) == [1, 2, 3]
    assert {seat for _, seat, *_ in table[:3]} == {0, 1, 2}
    assert output == play(*args, "--seed", "7", "--games", "2")


def test_seats_rotate_from_game_to_game() -> None:
    output = play("--bot", "builtin:shark", "--bot", "builtin:random", "--games", "2")
    first, second = rows(output)[:2], rows(output)[2:4]
    assert {bot: seat for _, seat, bot, _, _ in first} == {"builtin:shark": 0, "builtin:random": 1}
    assert {bot: seat for _, seat, bot, _, _ in second} == {"builtin:shark": 1, "builtin:random": 0}


def test_presets_and_rule_options_are_played() -> None:
    output = play(
        "--bot", "builtin:greedy", "--bot", "builtin:random", "--bot", "builtin:shark",
        "--preset", "de2023", "--option", "ending=quick", "--advanced",
    )  # fmt: skip
    assert "Game 1 of 1: de2023 rules, 3 seats" in output
    assert len(rows(output)) == 3


def test_a_good_webhook_bot_answers_each_of_its_decisions_in_time(
    bot: Callable[[Decide], str],
) -> None:
    received: list[dict[str, Any]] = []
    lock = threading.Lock()

    def decide(decision: dict[str, Any]) -> Any:
        with lock:
            received.append(decision)
        return {"action": first_pair(decision), "debug": f"decision {decision['decision_id']}"}

    url = bot(decide)
    output = play(
        "--bot", url, "--bot", "builtin:greedy", "--bot", "builtin:random",
        "--seed", "3", "--secret", SECRET, "--decision-ms", "2000", "--time-bank-ms", "3000",
        "--verbosity", "2",
    )  # fmt: skip
    assert f"{url}: 'local', protocol 1" in output
    (mine,) = [r for r in rows(output) if r[2] == url]
    assert mine[4] == "0"  # no strikes
    assert f"ms in {len(received)} answers, bank " in output
    assert {d["seat"] for d in received} == {mine[1]}
    assert {(d["decision_ms"], d["protocol_version"], d["type"]) for d in received} == {
        (2000, 1, "decision")
    }
    assert received[0]["time_bank_ms"] == 3000
    assert "debug 'decision 1:" in output  # -v 2 prints each answer with its debug note
    assert "STRIKE" not in output


def test_a_bot_that_always_times_out_gets_three_strikes_the_autopilot_and_last_place(
    bot: Callable[[Decide], str],
) -> None:
    release = threading.Event()

    def decide(decision: dict[str, Any]) -> Any:
        release.wait(5)  # far past every deadline
        return decision["legal_actions"][0]

    url = bot(decide)
    try:
        output = play(
            "--bot", url, "--bot", "builtin:greedy", "--bot", "builtin:random",
            "--bot", "builtin:shark", "--secret", SECRET,
            "--decision-ms", "50", "--time-bank-ms", "100",
        )  # fmt: skip
    finally:
        release.set()
    (mine,) = [r for r in rows(output) if r[2] == url]
    assert mine[0] == 4  # ranked last, whatever its dollars
    assert mine[4] == "3"
    strikes = re.findall(r"strike: seat \d at decision \d+: timeout after \d+ ms \((.*)\)", output)
    # the first timeout uses the bank too; it is empty afterwards
    assert strikes == [
        "no answer within 150 ms",
        "no answer within 50 ms",
        "no answer within 50 ms",
    ]
    assert f"autopilot: seat {mine[1]} from decision" in output
    assert "ranked last" in output
    assert "bank 0 ms left" in output


@pytest.mark.parametrize(
    ("answer", "reason"),
    [
        ({"type": "discard", "card": "joker"}, "malformed"),
        ({"type": "swap", "target": 1}, "illegal"),
    ],
)
def test_malformed_and_illegal_answers_are_struck_with_their_reason(
    bot: Callable[[Decide], str], answer: dict[str, Any], reason: str
) -> None:
    url = bot(lambda d: answer)
    output = play("--bot", url, "--bot", "builtin:random", "--secret", SECRET)
    found = re.findall(r"strike: seat \d at decision \d+: (\w+) ", output)
    assert found == [reason] * 3
    assert "autopilot: seat" in output


def test_a_wrong_secret_is_refused_by_the_bot_and_struck_as_http_errors(
    bot: Callable[[Decide], str],
) -> None:
    url = bot(first_pair)
    output = play("--bot", url, "--bot", "builtin:random", "--secret", "another-secret-0123456")
    assert re.findall(r"strike: seat \d at decision \d+: (\w+) ", output) == ["http_error"] * 3
    assert "(HTTP 401)" in output


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--bot", "builtin:greedy"], "play needs 2 to 6 bots"),
        (["--bot", "builtin:greedy", "--bot", "builtin:genius"], "unknown built-in"),
        (["--bot", "builtin:greedy", "--bot", "ftp://127.0.0.1/"], "neither an http(s) URL"),
        (["--bot", "builtin:greedy", "--bot", "greedy"], "neither an http(s) URL"),
        (["--bot", "builtin:greedy"] * 7, "rules: seats"),
        (["--bot", "builtin:greedy", "--bot", "builtin:random", "--games", "0"], "--games"),
        (["--bot", "builtin:greedy", "--bot", "builtin:random", "--decision-ms", "0"], "positive"),
        (["--bot", "builtin:greedy", "--bot", "builtin:random", "--preset", "1999"], "--preset"),
        (
            ["--bot", "builtin:greedy", "--bot", "builtin:random", "--option", "ending=sudden"],
            "rules: ending",
        ),
        (
            ["--bot", "builtin:greedy", "--bot", "http://127.0.0.1:9/"],
            "--secret or CYA_SECRET",
        ),
    ],
)
def test_bad_arguments_stop_with_a_clear_message(
    args: list[str], message: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("CYA_SECRET", raising=False)
    with pytest.raises(CommandError, match=re.escape(message)):
        play(*args)


def test_a_bot_that_does_not_answer_the_handshake_stops_the_command(
    bot: Callable[[Decide], str],
) -> None:
    url = bot(first_pair)
    with socket.socket() as probe:  # a port that was free a moment ago: nothing listens
        probe.bind(("127.0.0.1", 0))
        closed = f"http://127.0.0.1:{probe.getsockname()[1]}/"
    message = rf"handshake failed \(connection_error\): {re.escape(closed)}: "
    with pytest.raises(CommandError, match=message):
        play("--bot", closed, "--bot", url, "--secret", SECRET)


def test_the_operators_own_urls_may_lead_to_this_machine_whatever_the_setting_allows(
    bot: Callable[[Decide], str], settings: Settings
) -> None:
    settings.WEBHOOK_ALLOWED_NETWORKS = []  # as in production: loopback refused to users
    url = bot(first_pair)

    output = play("--bot", url, "--bot", "builtin:random", "--secret", SECRET)

    assert f"{url}: 'local', protocol 1" in output
    (mine,) = [r for r in rows(output) if r[2] == url]
    assert mine[4] == "0"  # no strikes: every decision reached the bot
    with pytest.raises(webhook.HandshakeError, match="address not allowed"):
        webhook.handshake(url, SECRET)  # the allowance ended with the command


def test_the_command_line_exits_non_zero_with_the_message() -> None:
    done = subprocess.run(
        [sys.executable, "manage.py", "play", "--bot", "builtin:greedy"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode != 0
    assert "play needs 2 to 6 bots" in done.stderr


# --- the time bank (bots.timecontrol, issue 32) ------------------------------------------


def test_a_quick_bot_keeps_its_whole_bank_through_a_local_game(
    bot: Callable[[Decide], str],
) -> None:
    """``manage.py play``: answers well within the limit never touch the bank."""
    banks: list[int] = []

    def decide(decision: dict[str, Any]) -> Any:
        banks.append(decision["time_bank_ms"])
        return first_pair(decision)

    url = bot(decide)
    output = play(
        "--bot", url, "--bot", "builtin:greedy", "--seed", "5", "--secret", SECRET,
        "--decision-ms", "2000", "--time-bank-ms", "3000", "--verbosity", "2",
    )  # fmt: skip
    assert len(banks) > 10
    assert set(banks) == {3000}
    assert "bank 3,000 ms left" in output


def test_a_slow_answer_in_a_local_game_pays_its_overtime_not_its_whole_time(
    bot: Callable[[Decide], str],
) -> None:
    """The first three answers take 300 ms against a 250 ms limit: each takes about 50 ms
    from the bank (the platform's own overhead on a busy machine adds a little), never
    the 300 ms the whole answer took; the quick answers after them take nothing."""
    banks: list[int] = []
    lock = threading.Lock()
    pause = threading.Event()

    def decide(decision: dict[str, Any]) -> Any:
        with lock:
            banks.append(decision["time_bank_ms"])
            slow = len(banks) <= 3
        if slow:
            pause.wait(0.3)
        return first_pair(decision)

    url = bot(decide)
    play(
        "--bot", url, "--bot", "builtin:greedy", "--seed", "5", "--secret", SECRET,
        "--decision-ms", "250", "--time-bank-ms", "3000",
    )  # fmt: skip
    paid = [earlier - later for earlier, later in itertools.pairwise(banks[:4])]
    assert all(45 <= cost < 250 for cost in paid), paid
    assert len(set(banks[3:])) == 1
