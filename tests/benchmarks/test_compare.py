"""benchmarks/compare.py reads the figures the benchmarks print and sets them side by side
(it runs no benchmark here: that takes minutes, and is for people, not the suite)."""

from __future__ import annotations

import subprocess
import sys
from collections import defaultdict

from benchmarks.compare import ROOT, Runs, headline, last_figures, summary


def test_the_figures_are_the_key_values_of_the_last_line_that_has_any() -> None:
    output = "loaded 1000 games\nseating_1000_entrants_s=0.143 standings_100k_games_ms=74.5\n\n"
    assert last_figures(output) == {
        "seating_1000_entrants_s": 0.143,
        "standings_100k_games_ms": 74.5,
    }
    assert last_figures("nothing measured\n") == {}


def test_each_figure_is_averaged_per_side_and_the_headline_is_after_over_before() -> None:
    runs: Runs = defaultdict(lambda: defaultdict(list))
    for side, rates in (("before", [120.0, 124.0]), ("after", [125.0, 127.0])):
        for rate in rates:
            runs[("ladder", "ladder_games_per_s")][side].append(rate)
    runs[("ladder", "ratio")]["after"].append(0.6)  # one side only: left out

    (line,) = summary(runs)
    assert line.split()[:2] == ["ladder", "ladder_games_per_s"]
    assert "before      122.000" in line
    assert "after      126.000" in line
    assert "after/before 1.033" in line
    assert headline("9ad9e11", 2, runs, ["ladder", "engine"]) == (
        "compare_base=9ad9e11 rounds=2 ladder_ladder_games_per_s_ratio=1.033"
    )


def test_a_wrong_call_is_refused_before_any_worktree_or_benchmark() -> None:
    script = str(ROOT / "benchmarks" / "compare.py")
    worktrees = subprocess.run(
        ["git", "worktree", "list"], cwd=ROOT, capture_output=True, text=True
    )
    for args, code, says in (
        (["--base", "HEAD", "--args", "ldr=--matches 3"], 2, "with BENCH one of api, ladder"),
        (["--base", "no-such-commit"], 1, "--base no-such-commit: not a commit"),
    ):
        done = subprocess.run([sys.executable, script, *args], capture_output=True, text=True)
        assert (done.returncode, says in done.stderr) == (code, True), done.stderr
    after = subprocess.run(["git", "worktree", "list"], cwd=ROOT, capture_output=True, text=True)
    assert after.stdout == worktrees.stdout
