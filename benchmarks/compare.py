"""Before and after: the benchmarks run on an earlier commit and on this tree, alternated.

    python benchmarks/compare.py --base REV [--rounds 3] [--bench api ladder ...]
                                 [--args ladder="--matches 300"]

A change that must lose no speed is measured against the commit before it, in one run,
because this machine's speed drifts from minute to minute. ``--base`` is checked out
into a temporary git worktree, and this tree's benchmark scripts are copied into it, so
both sides are measured by the same scripts and only the code under test differs. Each
round runs every benchmark on both trees back to back, the first tree swapping from
round to round, with this tree's virtualenv (``PYTHONPATH`` names the tree). Each
benchmark recreates its own database and migrates it with its own tree's migrations.

It prints every run's last line as it comes, then per figure the mean on each side and
the ratio after/before (for a time, lower is better; for a rate, higher). The last line
is read by tools: ``compare_base=<rev> rounds=<n> <bench>_<figure>_ratio=<after/before> ...``
for each benchmark's headline figure (HEADLINE).
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BENCHES = ("api", "ladder", "engine", "tournaments")
HEADLINE = {
    "api": "actions_per_s",
    "ladder": "ladder_games_per_s",
    "engine": "engine_decisions_per_s",
    "tournaments": "standings_100k_games_ms",
}
FIGURE = re.compile(r"(\w+)=(-?[\d.]+)")

Runs = dict[tuple[str, str], dict[str, list[float]]]  # (bench, figure) -> side -> values


def last_figures(output: str) -> dict[str, float]:
    """The ``key=value`` figures of a benchmark's last line (empty if it printed none)."""
    lines = [line for line in output.strip().splitlines() if "=" in line]
    return {key: float(value) for key, value in FIGURE.findall(lines[-1])} if lines else {}


def _means(sides: dict[str, list[float]]) -> tuple[float, float, float] | None:
    """Mean before, mean after, and after/before; None unless both sides have runs."""
    before, after = sides.get("before"), sides.get("after")
    if not before or not after:
        return None
    mean_before, mean_after = statistics.fmean(before), statistics.fmean(after)
    return mean_before, mean_after, mean_after / mean_before if mean_before else float("nan")


def summary(runs: Runs) -> list[str]:
    """A line per figure: its mean before and after, and the ratio after/before."""
    out = []
    for (bench, figure), sides in runs.items():
        means = _means(sides)
        if means is not None:
            out.append(
                f"{bench:12} {figure:32} before {means[0]:12.3f}  after {means[1]:12.3f}"
                f"  after/before {means[2]:.3f}  (n={len(sides['before'])})"
            )
    return out


def headline(base: str, rounds: int, runs: Runs, benches: list[str]) -> str:
    """The last line: each benchmark's headline figure (HEADLINE) as after/before."""
    parts = [f"compare_base={base}", f"rounds={rounds}"]
    for bench in benches:
        means = _means(runs.get((bench, HEADLINE[bench]), {}))
        if means is not None:
            parts.append(f"{bench}_{HEADLINE[bench]}_ratio={means[2]:.3f}")
    return " ".join(parts)


def run(tree: Path, bench: str, extra: list[str]) -> str:
    command = [sys.executable, f"benchmarks/{bench}.py", *extra]
    env = {**os.environ, "PYTHONPATH": str(tree)}
    done = subprocess.run(command, cwd=tree, env=env, capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"{bench} failed in {tree} (exit {done.returncode}):\n{done.stderr[-2000:]}")
    return done.stdout


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--base", required=True, help="the commit to compare against")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--bench", nargs="+", default=list(BENCHES), choices=BENCHES)
    parser.add_argument(
        "--args", action="append", default=[], metavar='BENCH="ARGS"',
        help='extra arguments for one benchmark, e.g. ladder="--matches 300"',
    )  # fmt: skip
    args = parser.parse_args()
    extra: dict[str, list[str]] = defaultdict(list)
    for item in args.args:
        bench, _, words = item.partition("=")
        if bench not in BENCHES:
            parser.error(
                f'--args {item!r}: say BENCH="ARGS" with BENCH one of {", ".join(BENCHES)}'
            )
        extra[bench] = words.split()
    base = subprocess.run(
        ["git", "rev-parse", "--short", args.base], cwd=ROOT, capture_output=True, text=True
    )
    if base.returncode != 0:
        sys.exit(f"--base {args.base}: not a commit of this repository")
    rev = base.stdout.strip()

    with tempfile.TemporaryDirectory(prefix="cya-compare-") as scratch:
        before = Path(scratch) / "before"
        subprocess.run(
            ["git", "worktree", "add", "--detach", "--quiet", str(before), rev],
            cwd=ROOT, check=True,
        )  # fmt: skip
        try:
            for script in (ROOT / "benchmarks").glob("*.py"):  # the same scripts both sides
                shutil.copy(script, before / "benchmarks" / script.name)
            trees = {"before": before, "after": ROOT}
            runs: Runs = defaultdict(lambda: defaultdict(list))
            for number in range(1, args.rounds + 1):
                order = ("before", "after") if number % 2 else ("after", "before")
                for bench in args.bench:
                    for side in order:
                        output = run(trees[side], bench, extra[bench])
                        figures = last_figures(output)
                        last = (output.strip().splitlines() or [""])[-1]
                        print(f"round {number} {bench} {side}: {last}", flush=True)
                        for figure, value in figures.items():
                            runs[(bench, figure)][side].append(value)
        finally:
            subprocess.run(
                ["git", "worktree", "remove", "--force", str(before)], cwd=ROOT, check=False
            )
    print()
    for line in summary(runs):
        print(line)
    print(headline(rev, args.rounds, runs, args.bench))


if __name__ == "__main__":
    main()
