"""Seat built-in strategies at a table and play games in memory (no database).

    python -m bots.strategies.arena --seat shark --seat random --seat random --seat random \\
        --games 1000 --seed 7

Seats rotate from game to game, so each strategy plays every position equally often.
The same arguments print the same figures.
"""

from __future__ import annotations

import argparse
from collections import Counter
from collections.abc import Sequence
from random import Random

from games.engine import RuleSet, State, apply, new_game

from .builtin import STRATEGIES, Strategy, strategy
from .view import SeatView


def play(rules: RuleSet, seed: int, seats: Sequence[Strategy], rng: Random) -> State:
    """Play one game to the end with these strategies in seats 0, 1, ..."""
    state = new_game(rules, seed)
    while not state.over:
        seat = state.to_act
        state = apply(state, seats[seat].choose(SeatView(state, seat), rng))[0]
    return state


def tournament(
    rules: RuleSet, names: Sequence[str], games: int, seed: int
) -> tuple[Counter[str], Counter[str]]:
    """Wins and games by strategy name over rotated seatings (a shared win counts for each)."""
    players = [strategy(n) for n in names]
    rng = Random(seed)
    wins: Counter[str] = Counter()
    played: Counter[str] = Counter()
    n = len(names)
    for g in range(games):
        order = [(g + k) % n for k in range(n)]  # seat k is played by names[order[k]]
        state = play(rules, seed * 100_003 + g, [players[i] for i in order], rng)
        for k in range(n):
            played[names[order[k]]] += 1
            if k in state.winners:
                wins[names[order[k]]] += 1
    return wins, played


def main(argv: Sequence[str] | None = None) -> int:
    """Command-line entry point."""
    parser = argparse.ArgumentParser(description="Play built-in strategies against each other.")
    parser.add_argument("--seat", action="append", choices=sorted(STRATEGIES), required=True)
    parser.add_argument("--preset", default="2021")
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args(argv)
    rules = RuleSet.preset(args.preset, seats=len(args.seat))
    wins, played = tournament(rules, args.seat, args.games, args.seed)
    print(f"{args.games} games, {len(args.seat)} seats ({args.preset}), seed {args.seed}")
    for name in sorted(played):
        seats = args.seat.count(name)
        rate = wins[name] / played[name]
        print(f"  {name:<8} x{seats}: won {wins[name]} of {played[name]} seat-games ({rate:.1%})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
