"""Strength of the search player: ``ismcts`` against shark, in duplicate deals (issue 17).

    python benchmarks/strength.py                 # the issue's measure: 1,000 games each
    python benchmarks/strength.py --games 40      # what fits a few minutes

Two tables under the 2021 rules: ``ismcts`` against three ``shark`` seats (four seats; a
fair share is 25%) and heads-up against ``shark``. Each deal is played once per seat
rotation (``bots.strategies.arena.duplicate``), so ``--games`` is rounded down to whole
deals; the intervals are 95% over deals. The search budget is the default, 1,000
iterations a decision, without its 500 ms cap, so the figures do not depend on the
machine's load; ``--iterations`` or ``--ms`` change it (``--iterations 1000 --ms 500``
is the player as it plays, cap included: the journal's iterations per decision say
whether the cap ever cut a search short). Deals are spread over ``--jobs`` processes
(every core by default) and give the same figures whatever the count. The
engine's random-play rate is measured in the same run, to compare machines. ``--record``
adds both tables to ``bots/strength.json``, which the ladder page shows.

A long measure (the default budget: about three hours of two free cores for the four
seats' 1,000 games; ``--ms 500`` alone, the whole cap every decision, longer still) may
be spread over several sittings: ``--journal FILE`` appends each deal to FILE (JSON
lines, benchmarks/_journal.py) as it ends and skips the deals FILE already holds for
the same line-up, rules, seed, budget and search settings (``SearchStrategy.settings``:
a deal played before a default changed does not count); ``--hours H`` starts no deal
after H hours. Run the same command again to go on; the tables are printed over the
journal's deals, and the last line only once both tables hold every deal asked for.

The last line is read by tools:
``search_vs_3shark_win=<share> ci95=<half-width> search_vs_shark_2p_win=<share>
ci95=<half-width> decisions_per_s=<engine rate in the same run>``
"""

from __future__ import annotations

import argparse
import os
import shlex
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks._journal import Journal, player_settings
from benchmarks.engine import engine_rate
from bots.strategies.arena import (
    Maker,
    Row,
    budget,
    deals_played,
    strength,
    strengths,
    table,
)
from bots.strength import STRENGTH_FILE, measurement, record
from games.engine import RuleSet


def journal_key(names: list[str], seed: int, make: Maker) -> dict[str, Any]:
    """What makes two journal lines deals of the same table and player: the line-up, the
    rules, the seed, the search's budget and every other setting it plays with (whose
    defaults may change between sittings)."""
    return {"lineup": names, "preset": "2021", "seed": seed, "iterations": make.iterations,
            "ms": make.ms, "player": player_settings(make)}  # fmt: skip


def measure(
    seats: int,
    games: int,
    seed: int,
    make: Maker,
    jobs: int,
    record_in: Path | None,
    journal_in: Path | None = None,
    until: float | None = None,
) -> Row | None:
    """ismcts against ``seats - 1`` sharks: its row of the strength table (recorded in
    ``record_in`` for the ladder page, if given), or None while ``journal_in`` lacks
    some of its deals (``until`` stopped the sitting first)."""
    names = ["ismcts", *["shark"] * (seats - 1)]
    deals = max(1, games // seats)
    journal = Journal(journal_in, journal_key(names, seed, make))
    todo = [d for d in range(deals) if d not in journal.deals]
    start = time.perf_counter()
    last = [start]
    before = deals - len(todo)
    if before:
        print(f"  {seats} seats: {before}/{deals} deals in {journal_in}", flush=True)

    def progress(done: int) -> None:
        now = time.perf_counter()
        if now - last[0] > 60 or done == len(todo):
            last[0] = now
            print(
                f"  {seats} seats: {before + done}/{deals} deals, {now - start:,.0f} s", flush=True
            )

    rules = RuleSet.preset("2021", seats=seats)
    new = deals_played(
        rules, names, deals, seed, make, progress, jobs,
        only=todo, finished=journal.add, until=until,
    )  # fmt: skip
    played = [journal.deals[d] for d in range(deals) if d in journal.deals]
    if not played:
        print(f"  {seats} seats: no deal played yet", flush=True)
        return None
    rows = strength(names, played)
    print("\n".join(table(rows)))
    if record_in is not None and len(played) == deals:
        command = shlex.join(["python", "benchmarks/strength.py", *sys.argv[1:]])
        spend = (make.iterations, make.ms)
        record(measurement(names, "2021", deals, spend, command, strengths(rows)), record_in)
    searched = sum(d.searched for d in new)
    decisions = sum(d.decisions for d in new)
    spent = time.perf_counter() - start
    print(
        f"  search: {decisions:,} decisions searched, {searched / max(1, decisions):,.0f} "
        f"iterations each, {searched / spent / jobs:,.0f} iterations per second per process",
        flush=True,
    )
    if len(played) < deals:
        print(f"  {seats} seats: {len(played)}/{deals} deals so far", flush=True)
        return None
    return next(r for r in rows if r.name == "ismcts")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=1000, help="games per table (whole deals)")
    parser.add_argument("--ms", type=float, default=None, help="search time per decision")
    parser.add_argument("--iterations", type=int, default=None, help="search iterations")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="processes")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--seconds", type=float, default=3.0, help="engine rate CPU seconds")
    parser.add_argument(
        "--record",
        nargs="?",
        const=STRENGTH_FILE,
        type=Path,
        help=f"add both tables to this file (default {STRENGTH_FILE.name}) for the ladder page",
    )
    parser.add_argument("--journal", type=Path, help="go on from, and add to, this file of deals")
    parser.add_argument("--hours", type=float, help="start no deal after this many hours")
    args = parser.parse_args()
    if args.games < 2:
        parser.error("--games must be at least 2")
    if args.jobs < 1:
        parser.error("--jobs must be at least 1")
    if args.hours is not None and args.journal is None:
        parser.error("--hours needs --journal, to keep the deals of a sitting cut short")
    make = budget(args.iterations, args.ms)
    print(
        f"budget: {make.iterations or '-'} iterations / {make.ms or '-'} ms per decision, "
        f"{args.jobs} processes",
        flush=True,
    )
    until = None if args.hours is None else time.monotonic() + args.hours * 3600
    kept = (args.record, args.journal, until)
    four = measure(4, args.games, args.seed, make, args.jobs, *kept)
    two = measure(2, args.games, args.seed, make, args.jobs, *kept)
    if four is None or two is None:
        print(f"incomplete: the same command goes on from {args.journal}")
        return
    rate = engine_rate(RuleSet.preset("2021", seats=4), args.seconds, with_observe=False)
    print(
        f"search_vs_3shark_win={four.win.mean:.3f} ci95={four.win.half:.3f} "
        f"search_vs_shark_2p_win={two.win.mean:.3f} ci95={two.win.half:.3f} "
        f"decisions_per_s={rate:.0f}"
    )


if __name__ == "__main__":
    main()
