"""Screen two settings of the search player against each other on the same deals, paired.

    python benchmarks/search_screen.py iterations=200 iterations=1000 --deals 300
    python benchmarks/search_screen.py iterations=200 iterations=200,width=8 --journal J

Each setting (A, then B) plays ``ismcts`` against three ``shark`` seats under the 2021
rules, in the same duplicate deals (bots.strategies.arena: each deal once per seat
rotation, seeded by ``--seed`` as strength.py's are), without a time cap, so the figures
do not depend on the machine's load. A setting is ``SearchStrategy``'s keyword arguments,
comma-separated: ``iterations`` (required), ``horizon``, ``exploration``, ``width``,
``margin``, ``rollout``.

A deal's result under A and under B come from the very same cards, so their difference
varies far less than either (the searcher's luck of the deal cancels): the interval on
B - A is over those per-deal differences. Even so a deal's win share moves by about 0.31
between two settings, so telling 7 points apart takes about 300 deals a side (strength.py
on each setting alone would need several times more).

``--journal FILE`` appends each deal to FILE (JSON lines, benchmarks/_journal.py, keyed
by setting, every option it leaves to the defaults, seed and line-up) as it ends and
skips the deals FILE already holds, so a screen can be stopped (``--hours H`` starts no
deal after H hours) and taken up again; run with ``--deals 0`` to print the figures over
the journal's common deals only. Deals run on ``--jobs`` processes (every core by
default).

The last line is read by tools:
``a_win=<share> b_win=<share> diff=<B - A> ci95=<half-width> place_diff=<B - A> deals=<n>``
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks._journal import Journal, player_settings
from bots.strategies.arena import Deal, Maker, deals_played
from bots.strategies.builtin import Strategy
from bots.strategies.duplicate import Interval, interval
from bots.strategies.registry import strategy
from bots.strategies.search import SearchStrategy
from games.engine import RuleSet

LINE_UP = ("ismcts", "shark", "shark", "shark")
NUMBERS = {"iterations": int, "horizon": int, "width": int, "exploration": float, "margin": float}
WORDS = {"rollout": ("random", "greedy", "shark")}


@dataclass(frozen=True)
class Setting(Maker):
    """The search player with these keyword arguments, without a time cap (picklable)."""

    options: tuple[tuple[str, Any], ...] = ()

    def __call__(self, name: str) -> Strategy:
        if name != SearchStrategy.name:
            return strategy(name)
        return SearchStrategy(ms=None, **dict(self.options))


def setting(text: str) -> Setting:
    """``iterations=200,width=8`` as a Setting; a clear error for anything else."""
    options: dict[str, Any] = {}
    for part in text.split(","):
        key, sep, value = part.partition("=")
        if not sep or key in options:
            raise argparse.ArgumentTypeError(f"{part!r}: give each option once, as name=value")
        if key in NUMBERS:
            try:
                options[key] = NUMBERS[key](value)
            except ValueError:
                raise argparse.ArgumentTypeError(f"{key} takes a number, not {value!r}") from None
        elif key in WORDS and value in WORDS[key]:
            options[key] = value
        else:
            known = ", ".join([*NUMBERS, *(f"{k} ({'|'.join(v)})" for k, v in WORDS.items())])
            raise argparse.ArgumentTypeError(f"{part!r}: the options are {known}")
    if options.get("iterations", 0) < 1:
        raise argparse.ArgumentTypeError(f"{text!r}: a setting needs iterations=N (N >= 1)")
    return Setting(iterations=options["iterations"], options=tuple(sorted(options.items())))


def spec(s: Setting) -> str:
    """A setting's canonical text."""
    return ",".join(f"{k}={v}" for k, v in s.options)


def journal_key(s: Setting, seed: int) -> dict[str, Any]:
    """What makes two journal lines deals of the same screen's setting: the setting as
    given, and every option it leaves to SearchStrategy's defaults (which may change)."""
    return {"setting": spec(s), "player": player_settings(s), "seed": seed,
            "lineup": list(LINE_UP)}  # fmt: skip


def win(one: Deal) -> float:
    """The searcher's (entry 0's) win share over a deal's rotations, ties shared."""
    return sum(1 / len(w) for w in one.winners if 0 in w) / len(one.winners)


def place(one: Deal) -> float:
    """The searcher's mean place over a deal's rotations (1 is first)."""
    return sum(p[0] for p in one.places) / len(one.places)


def compare(
    a: dict[int, Deal], b: dict[int, Deal]
) -> tuple[int, Interval, Interval, Interval, Interval]:
    """Over the deals both settings played: A's and B's win shares, and B - A in win
    share and in place, each per deal."""
    common = sorted(set(a) & set(b))
    if not common:
        raise SystemExit("the two settings have no deal in common yet")
    return (
        len(common),
        interval([win(a[d]) for d in common]),
        interval([win(b[d]) for d in common]),
        interval([win(b[d]) - win(a[d]) for d in common]),
        interval([place(b[d]) - place(a[d]) for d in common]),
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("a", type=setting, help="the first setting, e.g. iterations=200")
    parser.add_argument("b", type=setting, help="the second setting")
    parser.add_argument("--deals", type=int, default=300)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--journal", type=Path)
    parser.add_argument("--hours", type=float, help="start no deal after this many hours")
    args = parser.parse_args()
    if spec(args.a) == spec(args.b):
        parser.error("the two settings are the same")
    until = None if args.hours is None else time.monotonic() + args.hours * 3600
    journals = {spec(s): Journal(args.journal, journal_key(s, args.seed)) for s in (args.a, args.b)}
    rules = RuleSet.preset("2021", seats=len(LINE_UP))
    for s in (args.a, args.b):
        key = spec(s)
        held = journals[key].deals
        todo = [d for d in range(args.deals) if d not in held]
        started = time.perf_counter()

        def finished(index: int, one: Deal, key: str = key) -> None:
            journals[key].add(index, one)

        deals_played(
            rules, LINE_UP, args.deals, args.seed, s, jobs=args.jobs, only=todo,
            finished=finished, until=until,
        )  # fmt: skip
        print(f"{key}: {len(todo)} deals played in {time.perf_counter() - started:,.0f} s")
    n, a, b, diff, places = compare(journals[spec(args.a)].deals, journals[spec(args.b)].deals)
    sd = diff.half / 1.96 * n**0.5
    print(f"{n} deals ({n * len(LINE_UP)} games a setting), ismcts against three sharks:")
    print(f"  A {spec(args.a)}: win {a.mean:.3f} ± {a.half:.3f}")
    print(f"  B {spec(args.b)}: win {b.mean:.3f} ± {b.half:.3f}")
    print(f"  B - A: win {diff.mean:+.3f} ± {diff.half:.3f} (per-deal sd {sd:.2f}), "
          f"place {places.mean:+.2f} ± {places.half:.2f}")  # fmt: skip
    print(
        f"a_win={a.mean:.3f} b_win={b.mean:.3f} diff={diff.mean:+.3f} ci95={diff.half:.3f} "
        f"place_diff={places.mean:+.3f} deals={n}"
    )


if __name__ == "__main__":
    main()
