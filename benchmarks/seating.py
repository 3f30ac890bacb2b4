"""Seating quality: the optimiser against a seeded random search given the same wall time.

    python benchmarks/seating.py [--players 8-40] [--rounds 3-6] [--multiple 1]
                                 [--configs 45/4,345/4,3456/4] [--seed 0]

For every field size, round count and table-size configuration (allowed sizes/preferred
size; fields those sizes cannot seat are skipped), ``tournaments.seating.schedule`` seats
the field with ``--seed`` and is timed; a random search then gets ``--multiple`` times
that wall time. The random search draws whole schedules (each round a uniform shuffle cut
into ``table_sizes``), keeping the best by (most meetings of any pair, sum over pairs of
meetings squared), and always draws at least one. A case is worse when the random
search's best beats the optimiser on either figure. Each worse case is printed; the last
line is read by tools:
``seating_cases=<n> worse_max=<n> worse_sumsq=<n> worse_any=<n> optimiser_s=<total>``"""

from __future__ import annotations

import argparse
import sys
import time
from itertools import combinations
from pathlib import Path
from random import Random

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tournaments import seating


def figures(n: int, rounds: list[list[list[int]]]) -> tuple[int, int]:
    """(most meetings of any pair, sum over pairs of meetings squared)."""
    met = [0] * (n * n)
    for tables in rounds:
        for table in tables:
            for a, b in combinations(sorted(table), 2):
                met[a * n + b] += 1
    return max(met), sum(m * m for m in met)


def random_search(
    n: int, sizes: list[int], rounds: int, seed: int, seconds: float
) -> tuple[int, int]:
    """The best (max meetings, sum of squares) of whole random schedules drawn for ``seconds``."""
    rng = Random(seed)
    best: tuple[int, int] | None = None
    deadline = time.perf_counter() + seconds
    while best is None or time.perf_counter() < deadline:
        met = [0] * (n * n)
        worst = total = 0
        for _ in range(rounds):
            order = list(range(n))
            rng.shuffle(order)
            start = 0
            for size in sizes:
                for a, b in combinations(sorted(order[start : start + size]), 2):
                    m = met[a * n + b] = met[a * n + b] + 1
                    total += 2 * m - 1  # m² - (m - 1)²
                    worst = max(worst, m)
                start += size
        if best is None or (worst, total) < best:
            best = (worst, total)
    return best


def span(text: str) -> range:
    low, _, high = text.partition("-")
    return range(int(low), int(high or low) + 1)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=span, default=span("8-40"))
    parser.add_argument("--rounds", type=span, default=span("3-6"))
    parser.add_argument("--multiple", type=float, default=1.0)
    parser.add_argument("--configs", default="45/4,345/4,3456/4")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    cases = worse_max = worse_sumsq = worse_any = 0
    spent = 0.0
    for config in args.configs.split(","):
        digits, _, preferred_text = config.partition("/")
        allowed, preferred = tuple(int(d) for d in digits), int(preferred_text)
        for n in args.players:
            for rounds in args.rounds:
                try:
                    sizes = seating.table_sizes(n, allowed, preferred)
                except ValueError:  # 11 at tables of 4-5, say: no such case
                    continue
                started = time.perf_counter()
                plan = seating.schedule(
                    n, rounds, allowed=allowed, preferred=preferred, seed=args.seed
                )
                took = time.perf_counter() - started
                spent += took
                ours = figures(n, plan.rounds)
                theirs = random_search(n, sizes, rounds, args.seed, args.multiple * took)
                cases += 1
                worse = (theirs[0] < ours[0], theirs[1] < ours[1])
                worse_max += worse[0]
                worse_sumsq += worse[1]
                worse_any += any(worse)
                if any(worse):
                    print(
                        f"worse: {config} n={n} rounds={rounds} optimiser {ours} "
                        f"random {theirs} ({took * 1000:.0f} ms each)"
                    )
    print(f"{cases} cases; worse than random search on max {worse_max}, on sum of squares")
    print(f"  {worse_sumsq}, on either {worse_any}; optimiser {spent:.1f} s in all")
    print(
        f"seating_cases={cases} worse_max={worse_max} worse_sumsq={worse_sumsq} "
        f"worse_any={worse_any} optimiser_s={spent:.1f}"
    )


if __name__ == "__main__":
    main()
