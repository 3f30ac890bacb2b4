"""``python -m games.engine.simulate``: random-legal games, outcome statistics, same seed
same output."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from games.engine import RuleSet
from games.engine.simulate import main, simulate

ROOT = Path(__file__).resolve().parents[2]


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    """The simulator's printed output for these arguments."""
    assert main(list(argv)) == 0
    return capsys.readouterr().out


def test_the_same_arguments_print_the_same_output(capsys: pytest.CaptureFixture[str]) -> None:
    """All chance comes from --seed (issue #2: same seed, same output)."""
    argv = ("--preset", "2021", "--seats", "4", "--games", "20", "--seed", "7")
    assert run(capsys, *argv) == run(capsys, *argv)


def test_the_command_prints_the_same_output_in_another_process(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The module runs as a command, and string hashing in a new process changes nothing."""
    argv = ["--preset", "de2023", "--seats", "3", "--games", "10", "--seed", "3", "--advanced"]
    env = {**os.environ, "PYTHONHASHSEED": "12345"}
    done = subprocess.run(
        [sys.executable, "-m", "games.engine.simulate", *argv],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    assert done.stdout == run(capsys, *argv)


def test_another_seed_plays_other_games(capsys: pytest.CaptureFixture[str]) -> None:
    """The seed is really used: another one gives other statistics."""
    first = run(capsys, "--games", "10", "--seed", "1")
    second = run(capsys, "--games", "10", "--seed", "2")
    assert first.splitlines()[1:] != second.splitlines()[1:]


def test_the_report_covers_rounds_scores_challenges_and_wins_by_seat(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Issue #2: round scores, rounds per game, challenges per round, winners by seat."""
    out = run(capsys, "--preset", "2011", "--seats", "5", "--games", "12", "--seed", "9")
    assert out.startswith("rules: 2011, 5 seats, ending classic; 12 games from seed 9\n")
    for label in ("rounds per game", "round score per seat", "challenges per round"):
        assert f"\n{label}" in out
    wins = [line for line in out.splitlines() if line.startswith("  seat ")]
    assert [w.split(":")[0] for w in wins] == [f"  seat {i}" for i in range(5)]
    assert sum(int(w.split(":")[1].split()[0]) for w in wins) >= 12


def test_options_reach_the_rule_set(capsys: pytest.CaptureFixture[str]) -> None:
    """--option name=value sets top-level and advanced options."""
    out = run(
        capsys,
        "--games",
        "5",
        "--option",
        "ending=quick",
        "--option",
        "advanced.penny_jar=true",
        "--option",
        "bottom_protection=first_formed",
    )
    assert "ending quick" in out
    assert "rounds per game: mean 1.0 sd 0.0 min 1 max 1" in out


@pytest.mark.parametrize(
    ("argv", "problem"),
    [
        (["--games", "0"], "--games must be at least 1"),
        (["--seats", "9"], "seats"),
        (["--seats", "1"], "seats"),
        (["--seats", "two"], "invalid int value"),
        (["--preset", "1999"], "invalid choice"),
        (["--option", "ending"], "name=value"),
        (["--option", "no_such_option=1"], "unknown option no_such_option"),
        (["--option", "advanced.no_such_rule=true"], "unknown option advanced.no_such_rule"),
        (["--option", "ending=sudden_death"], "ending must be one of"),
        (["--option", "hand_size=true"], "hand_size must be an integer"),
        (["--preset", "2011", "--advanced"], "2011 edition has no Penny Jar"),
        (["--seed", "x"], "invalid int value"),
        (["--no-such-flag"], "unrecognized arguments"),
    ],
)
def test_bad_options_are_refused_with_a_message(
    capsys: pytest.CaptureFixture[str], argv: list[str], problem: str
) -> None:
    """Bad arguments exit with status 2 and say what is wrong, playing nothing."""
    with pytest.raises(SystemExit) as info:
        main(argv)
    assert info.value.code == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert problem in captured.err


def test_simulated_round_totals_never_exceed_the_deck() -> None:
    """RULES 1.4: a round scores at most the whole deck (the discard scores nothing)."""
    for rules in (RuleSet.preset("2011", seats=6), RuleSet.preset("2021", seats=2)):
        stats = simulate(rules, 5, seed=4)
        total = sum(rules.edition_data.values[c] for c in rules.deck())
        assert stats.games == 5
        assert len(stats.round_totals) == sum(stats.rounds)
        assert all(0 < t <= total for t in stats.round_totals)
