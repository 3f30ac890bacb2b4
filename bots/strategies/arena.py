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
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from math import sqrt
from random import Random

from openskill.models import PlackettLuce

from games.engine import RuleSet, State, apply, new_game
from games.engine.scoring import ranking

from .builtin import Strategy
from .registry import STRATEGIES, strategy
from .search import SearchStrategy
from .view import SeatView

Z95 = 1.96


def play(rules: RuleSet, seed: int, seats: Sequence[Strategy], rng: Random) -> State:
    """Play one game to the end with these strategies in seats 0, 1, ..."""
    state = new_game(rules, seed)
    while not state.over:
        seat = state.to_act
        state = apply(state, seats[seat].choose(SeatView(state, seat), rng))[0]
    return state


def places(state: State) -> list[int]:
    """Each seat's final place (1 = first; tied seats share a place)."""
    out = [0] * state.table.seats
    for row in ranking(state.table, state.tallies, state.wins, state.winners, state.resigned):
        out[row["seat"]] = row["place"]
    return out


@dataclass(frozen=True)
class Interval:
    """A mean and the half-width of its 95% confidence interval."""

    mean: float
    half: float


def interval(samples: Sequence[float]) -> Interval:
    """The mean of independent samples with a normal 95% interval."""
    n = len(samples)
    mean = sum(samples) / n
    if n < 2:
        return Interval(mean, float("inf"))
    var = sum((x - mean) ** 2 for x in samples) / (n - 1)
    return Interval(mean, Z95 * sqrt(var / n))


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


def duplicate(
    rules: RuleSet,
    names: Sequence[str],
    deals: int,
    seed: int,
    make: Callable[[str], Strategy] = strategy,
    progress: Callable[[int], None] | None = None,
) -> list[Row]:
    """Play ``deals`` deals, each once per seat rotation; the strength of each strategy."""
    n = len(names)
    players = [make(name) for name in names]  # entry i plays as names[i]
    rng = Random(seed)
    model = PlackettLuce()
    ratings = [model.rating(name=f"{name}#{i}") for i, name in enumerate(names)]
    kinds = sorted(set(names))
    win_by_deal: dict[str, list[float]] = {k: [] for k in kinds}
    place_by_deal: dict[str, list[float]] = {k: [] for k in kinds}
    for d in range(deals):
        deal_seed = seed * 100_003 + d
        wins = dict.fromkeys(kinds, 0.0)
        placed = dict.fromkeys(kinds, 0.0)
        for r in range(n):
            entry_at = [(k + r) % n for k in range(n)]  # seat k is played by entry_at[k]
            state = play(rules, deal_seed, [players[e] for e in entry_at], rng)
            where = places(state)
            share = 1 / len(state.winners)
            for k, e in enumerate(entry_at):
                placed[names[e]] += where[k]
                if k in state.winners:
                    wins[names[e]] += share
            teams = [[ratings[e]] for e in entry_at]
            rated = model.rate(teams, ranks=[float(p) for p in where])
            for k, e in enumerate(entry_at):
                ratings[e] = rated[k][0]
        for kind in kinds:
            seat_games = n * names.count(kind)  # this deal's games times its seats
            win_by_deal[kind].append(wins[kind] / seat_games)
            place_by_deal[kind].append(placed[kind] / seat_games)
        if progress is not None:
            progress(d + 1)
    rows = []
    for kind in kinds:
        mine = [ratings[i] for i, name in enumerate(names) if name == kind]
        rows.append(
            Row(
                name=kind,
                seats=names.count(kind),
                games=deals * n,
                win=interval(win_by_deal[kind]),
                place=interval(place_by_deal[kind]),
                mu=sum(r.mu for r in mine) / len(mine),
                sigma=sum(r.sigma for r in mine) / len(mine),
            )
        )
    return rows


def maker(iterations: int | None, ms: float | None) -> Callable[[str], Strategy]:
    """Strategies by name, the search player with this budget."""

    def make(name: str) -> Strategy:
        if name == SearchStrategy.name:
            return SearchStrategy(iterations=iterations, ms=ms)
        return strategy(name)

    return make


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
    args = parser.parse_args(argv)
    if len(args.seat) < 2:
        parser.error("seat at least two strategies")
    if args.deals < 1:
        parser.error("--deals must be at least 1")
    ms = args.ms if args.ms is not None or args.iterations is not None else 200.0
    rules = RuleSet.preset(args.preset, seats=len(args.seat))
    rows = duplicate(rules, args.seat, args.deals, args.seed, maker(args.iterations, ms))
    searched = SearchStrategy.name in args.seat
    budget = f", search {args.iterations or '-'} iterations / {ms or '-'} ms" if searched else ""
    print(
        f"{args.deals} deals x {len(args.seat)} rotations, {len(args.seat)} seats "
        f"({args.preset}), seed {args.seed}{budget}"
    )
    print("\n".join(table(rows)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
