"""Seat built-in strategies at a table, play duplicate deals in memory, print their strength.

    python -m bots.strategies.arena --seat ismcts --seat shark --seat shark --seat shark \\
        --deals 250 --seed 7 --iterations 100

Each deal is played once per rotation of the seats (the same cards, every strategy in
every chair), so luck of the deal cancels out. Per strategy it prints the win share (a
shared win counts 1/k to each of k winners) and the average place, each with a 95%
confidence interval over deals (a deal's rotations are one sample: they are not
independent), and an OpenSkill (Plackett-Luce) rating from every game in order. The same
arguments print the same figures (time-bound search aside: give ``--iterations``).
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import shlex
import sys
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass
from pathlib import Path
from random import Random

from openskill.models import PlackettLuce

from bots.strength import STRENGTH_FILE, Strength, measurement, record
from games.engine import RuleSet, State, apply, new_game
from games.engine.scoring import ranking

from .builtin import Strategy
from .duplicate import Interval, deal_seeds, interval, rotation
from .registry import STRATEGIES, decide, strategy
from .search import DEFAULT_ITERATIONS, SearchStrategy


def play(rules: RuleSet, seed: int, seats: Sequence[Strategy], rng: Random) -> State:
    """Play one game to the end with these strategies in seats 0, 1, ..."""
    state = new_game(rules, seed)
    while not state.over:
        seat = state.to_act
        state = apply(state, decide(seats[seat], state, seat, rng))[0]
    return state


def places(state: State) -> list[int]:
    """Each seat's final place (1 = first; tied seats share a place)."""
    out = [0] * state.table.seats
    for row in ranking(state.table, state.tallies, state.wins, state.winners, state.resigned):
        out[row["seat"]] = row["place"]
    return out


@dataclass(frozen=True)
class Row:
    """One strategy's strength over the run."""

    name: str
    seats: int
    games: int
    win: Interval
    place: Interval
    mu: float
    sigma: float


@dataclass(frozen=True)
class Maker:
    """Strategies by name, the search player with this budget (picklable, for ``jobs``)."""

    iterations: int | None = None
    ms: float | None = None

    def __call__(self, name: str) -> Strategy:
        if name == SearchStrategy.name and (self.iterations, self.ms) != (None, None):
            return SearchStrategy(iterations=self.iterations, ms=self.ms)
        return strategy(name)


def budget(iterations: int | None, ms: float | None) -> Maker:
    """The search budget a measurement asked for, or the default without its time cap.

    The default is ``DEFAULT_ITERATIONS`` capped at ``DEFAULT_MS``; a measurement drops
    the cap, which only a slow or overloaded machine reaches, so that its figures do not
    depend on the machine's load.
    """
    if iterations is None and ms is None:
        return Maker(DEFAULT_ITERATIONS, None)
    return Maker(iterations, ms)


@dataclass(frozen=True)
class Deal:
    """One deal played once per seat rotation: each game's places, and the search's work."""

    places: tuple[tuple[int, ...], ...]  # per rotation, the place of each entry
    winners: tuple[tuple[int, ...], ...]  # per rotation, the winning entries
    searched: int  # search iterations spent on this deal
    decisions: int  # decisions the search player searched


_PLAYERS: dict[tuple[RuleSet, tuple[str, ...], Maker], list[Strategy]] = {}


def deal(rules: RuleSet, names: tuple[str, ...], make: Maker, seed: int) -> Deal:
    """Play deal ``seed`` once per rotation of ``names`` round the table.

    Its own RNG, seeded from the deal, drives every choice, so a deal's games do not
    depend on which deals were played before it, or in which process.
    """
    key = (rules, names, make)
    if key not in _PLAYERS:  # strategies are reused for a process's deals
        _PLAYERS[key] = [make(name) for name in names]
    players = _PLAYERS[key]
    searches = [p for p in players if isinstance(p, SearchStrategy)]
    before = sum(s.searched for s in searches), sum(s.decisions for s in searches)
    rng = Random(seed)
    n = len(names)
    placed, won = [], []
    for r in range(n):
        entry_at = rotation(n, r)  # seat k is played by entry_at[k]
        state = play(rules, seed, [players[e] for e in entry_at], rng)
        where = places(state)
        by_entry = [0] * n
        for k, e in enumerate(entry_at):
            by_entry[e] = where[k]
        placed.append(tuple(by_entry))
        won.append(tuple(sorted(entry_at[k] for k in state.winners)))
    return Deal(
        tuple(placed),
        tuple(won),
        sum(s.searched for s in searches) - before[0],
        sum(s.decisions for s in searches) - before[1],
    )


def deals_played(
    rules: RuleSet,
    names: Sequence[str],
    deals: int,
    seed: int,
    make: Maker,
    progress: Callable[[int], None] | None = None,
    jobs: int = 1,
    *,
    only: Sequence[int] | None = None,
    finished: Callable[[int, Deal], None] | None = None,
    until: float | None = None,
) -> list[Deal]:
    """Deals ``deal_seeds(seed, deals)``, in order, on ``jobs`` processes: those at the
    indices ``only`` if given, each handed to ``finished`` with its index as it ends. Once
    ``time.monotonic()`` passes ``until`` no further deal starts, and the deals played are
    returned, in order.

    The same arguments give the same deals whatever ``jobs`` is (time-bound search aside).
    """
    seeds = deal_seeds(seed, deals)
    wanted = range(deals) if only is None else only
    key = tuple(names)
    played: dict[int, Deal] = {}

    def ended(index: int, one: Deal) -> None:
        played[index] = one
        if finished is not None:
            finished(index, one)
        if progress is not None:
            progress(len(played))

    def late() -> bool:
        return until is not None and time.monotonic() > until

    if jobs <= 1:
        for index in wanted:
            if late():
                break
            ended(index, deal(rules, key, make, seeds[index]))
        return [played[index] for index in sorted(played)]
    if late():
        return []
    context = multiprocessing.get_context("spawn")  # fork may hang a threaded parent
    with ProcessPoolExecutor(jobs, mp_context=context) as pool:
        futures = {pool.submit(deal, rules, key, make, seeds[index]): index for index in wanted}
        for future in as_completed(futures):
            if future.cancelled():
                continue
            ended(futures[future], future.result())
            if late():
                for pending in futures:
                    pending.cancel()  # those already running finish
        return [played[index] for index in sorted(played)]


def strength(names: Sequence[str], played: Sequence[Deal]) -> list[Row]:
    """Each strategy's win share and place over deals, and its OpenSkill rating in order."""
    n = len(names)
    model = PlackettLuce()
    ratings = [model.rating(name=f"{name}#{i}") for i, name in enumerate(names)]
    kinds = sorted(set(names))
    win_by_deal: dict[str, list[float]] = {k: [] for k in kinds}
    place_by_deal: dict[str, list[float]] = {k: [] for k in kinds}
    for one in played:
        wins = dict.fromkeys(kinds, 0.0)
        placed = dict.fromkeys(kinds, 0.0)
        for where, winners in zip(one.places, one.winners, strict=True):
            for e in range(n):
                placed[names[e]] += where[e]
            for e in winners:
                wins[names[e]] += 1 / len(winners)  # a shared win counts 1/k to each
            rated = model.rate([[r] for r in ratings], ranks=[float(p) for p in where])
            ratings = [team[0] for team in rated]
        for kind in kinds:
            seat_games = n * names.count(kind)  # this deal's games times its seats
            win_by_deal[kind].append(wins[kind] / seat_games)
            place_by_deal[kind].append(placed[kind] / seat_games)
    rows = []
    for kind in kinds:
        mine = [ratings[i] for i, name in enumerate(names) if name == kind]
        rows.append(
            Row(
                name=kind,
                seats=names.count(kind),
                games=len(played) * n,
                win=interval(win_by_deal[kind]),
                place=interval(place_by_deal[kind]),
                mu=sum(r.mu for r in mine) / len(mine),
                sigma=sum(r.sigma for r in mine) / len(mine),
            )
        )
    return rows


def duplicate(
    rules: RuleSet,
    names: Sequence[str],
    deals: int,
    seed: int,
    make: Maker | None = None,
    progress: Callable[[int], None] | None = None,
    jobs: int = 1,
) -> list[Row]:
    """Play ``deals`` deals, each once per seat rotation; the strength of each strategy."""
    played = deals_played(rules, names, deals, seed, make or Maker(), progress, jobs)
    return strength(names, played)


def strengths(rows: Sequence[Row]) -> list[Strength]:
    """The rows as ``bots.strength`` records them."""
    return [
        Strength(
            name=r.name,
            seats=r.seats,
            games=r.games,
            win=r.win.mean,
            win_ci95=r.win.half,
            place=r.place.mean,
            place_ci95=r.place.half,
            mu=r.mu,
            sigma=r.sigma,
        )
        for r in rows
    ]


def table(rows: Sequence[Row]) -> list[str]:
    """The strength table as text lines."""
    out = [f"  {'strategy':<8} seats  {'win share':>16}  {'average place':>16}  openskill"]
    for r in rows:
        out.append(
            f"  {r.name:<8} x{r.seats:<4} {r.win.mean:>8.1%} ±{r.win.half:>5.1%}"
            f"  {r.place.mean:>9.2f} ±{r.place.half:>5.2f}"
            f"  mu {r.mu:5.1f} sigma {r.sigma:4.1f} ordinal {r.mu - 3 * r.sigma:5.1f}"
        )
    return out


def main(argv: Sequence[str] | None = None) -> int:
    """Command-line entry point."""
    parser = argparse.ArgumentParser(description="Play built-in strategies against each other.")
    parser.add_argument("--seat", action="append", choices=sorted(STRATEGIES), required=True)
    parser.add_argument("--preset", default="2021")
    parser.add_argument("--deals", type=int, default=250, help="each played once per rotation")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--iterations", type=int, default=None, help="search budget per move")
    parser.add_argument("--ms", type=float, default=None, help="search time per move")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="processes")
    parser.add_argument(
        "--record",
        nargs="?",
        const=STRENGTH_FILE,
        type=Path,
        help=f"add the table to this file (default {STRENGTH_FILE.name}) for the ladder page",
    )
    args = parser.parse_args(argv)
    if len(args.seat) < 2:
        parser.error("seat at least two strategies")
    if args.deals < 1:
        parser.error("--deals must be at least 1")
    if args.jobs < 1:
        parser.error("--jobs must be at least 1")
    make = budget(args.iterations, args.ms)
    rules = RuleSet.preset(args.preset, seats=len(args.seat))
    rows = duplicate(rules, args.seat, args.deals, args.seed, make, jobs=args.jobs)
    searched = SearchStrategy.name in args.seat
    spent = f", search {make.iterations or '-'} iterations / {make.ms or '-'} ms"
    print(
        f"{args.deals} deals x {len(args.seat)} rotations, {len(args.seat)} seats "
        f"({args.preset}), seed {args.seed}{spent if searched else ''}"
    )
    print("\n".join(table(rows)))
    if args.record is not None:
        spend = (make.iterations, make.ms) if searched else (None, None)
        given = sys.argv[1:] if argv is None else list(argv)
        command = shlex.join(["python", "-m", "bots.strategies.arena", *given])
        table_ = measurement(args.seat, args.preset, args.deals, spend, command, strengths(rows))
        record(table_, args.record)
        print(f"recorded in {args.record}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
