"""Strength of the search player: ``ismcts`` against shark, in duplicate deals (issue 17).

    python benchmarks/strength.py                    # the issue's measure: 1,000 games each
    python benchmarks/strength.py --games 40 --iterations 60   # what fits a few minutes

Two tables under the 2021 rules: ``ismcts`` against three ``shark`` seats (four seats; a
fair share is 25%) and heads-up against ``shark``. Each deal is played once per seat
rotation (``bots.strategies.arena.duplicate``), so ``--games`` is rounded down to whole
deals; the intervals are 95% over deals. The search budget is the default (200 ms a
decision, ``SearchStrategy``) unless ``--ms`` or ``--iterations`` (deterministic) is given.
The engine's random-play rate is measured in the same run, to compare machines.

The last line is read by tools:
``search_vs_3shark_win=<share> ci95=<half-width> search_vs_shark_2p_win=<share>
ci95=<half-width> decisions_per_s=<engine rate in the same run>``
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.engine import engine_rate
from bots.strategies import SearchStrategy, Strategy, strategy
from bots.strategies.arena import Row, duplicate, table
from games.engine import RuleSet


def measure(
    seats: int, games: int, seed: int, iterations: int | None, ms: float | None
) -> tuple[Row, float]:
    """ismcts against ``seats - 1`` sharks: its row, and its iterations per second."""
    search = SearchStrategy(iterations=iterations, ms=ms)

    def make(name: str) -> Strategy:
        return search if name == SearchStrategy.name else strategy(name)

    names = ["ismcts", *["shark"] * (seats - 1)]
    deals = max(1, games // seats)
    start = time.perf_counter()
    last = [start]

    def progress(done: int) -> None:
        now = time.perf_counter()
        if now - last[0] > 60 or done == deals:
            last[0] = now
            print(f"  {seats} seats: {done}/{deals} deals, {now - start:,.0f} s", flush=True)

    rows = duplicate(RuleSet.preset("2021", seats=seats), names, deals, seed, make, progress)
    print("\n".join(table(rows)))
    spent = time.perf_counter() - start
    per_s = search.searched / spent if spent else 0.0
    per_decision = search.searched / max(1, search.decisions)
    print(
        f"  search: {search.decisions:,} decisions searched, {per_decision:,.0f} iterations "
        f"each, about {per_s:,.0f} iterations per wall second of the whole run"
    )
    return next(r for r in rows if r.name == "ismcts"), per_s


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=1000, help="games per table (whole deals)")
    parser.add_argument("--ms", type=float, default=None, help="search time per decision")
    parser.add_argument("--iterations", type=int, default=None, help="search iterations")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--seconds", type=float, default=3.0, help="engine rate CPU seconds")
    args = parser.parse_args()
    if args.games < 2:
        parser.error("--games must be at least 2")
    ms = args.ms if args.ms is not None or args.iterations is not None else 200.0
    print(f"budget: {args.iterations or '-'} iterations / {ms or '-'} ms per decision")
    four, _ = measure(4, args.games, args.seed, args.iterations, ms)
    two, _ = measure(2, args.games, args.seed, args.iterations, ms)
    rate = engine_rate(RuleSet.preset("2021", seats=4), args.seconds, with_observe=False)
    print(
        f"search_vs_3shark_win={four.win.mean:.3f} ci95={four.win.half:.3f} "
        f"search_vs_shark_2p_win={two.win.mean:.3f} ci95={two.win.half:.3f} "
        f"decisions_per_s={rate:.0f}"
    )


if __name__ == "__main__":
    main()
