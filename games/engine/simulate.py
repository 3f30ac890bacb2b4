"""Play random-legal games and print outcome statistics.

    python -m games.engine.simulate --preset 2021 --seats 4 --games 1000 --seed 7

Every choice comes from ``--seed``: the same arguments print the same output. Options of
the rule set can be set with ``--option name=value`` (``advanced.penny_jar=true``,
``ending=quick``, ...), or all advanced rules at once with ``--advanced``.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from .errors import InvalidRules
from .legal import legal_actions
from .play import apply, new_game
from .rules import PRESETS, RuleSet

ALL_ADVANCED = {
    "hand_six": True,
    "two_actions": True,
    "improve_set": True,
    "action_cards": True,
    "second_set_challenge": True,
    "penny_jar": True,
}


@dataclass
class Stats:
    """Counts gathered over the simulated games."""

    games: int = 0
    decisions: int = 0
    rounds: list[int] = field(default_factory=list)
    round_scores: list[int] = field(default_factory=list)  # every seat's score, every round
    round_totals: list[int] = field(default_factory=list)  # all seats together, per round
    challenges: list[int] = field(default_factory=list)  # per round
    challenger_wins: int = 0
    challenges_resolved: int = 0
    winners: Counter[int] = field(default_factory=Counter)
    shared_wins: int = 0
    winning_tallies: list[int] = field(default_factory=list)


def simulate(rules: RuleSet, games: int, seed: int) -> Stats:
    """Play ``games`` random-legal games; game i is dealt from a seed derived from ``seed``."""
    rng = random.Random(seed)
    stats = Stats()
    for i in range(games):
        state = new_game(rules, (seed * 1_000_003 + i) % 2**63)
        challenges = 0
        while not state.over:
            acts = legal_actions(state)
            state, events = apply(state, acts[int(rng.random() * len(acts))])
            stats.decisions += 1
            for event in events:
                kind = event["type"]
                if kind in ("challenge", "draft_challenge"):
                    challenges += 1
                elif kind == "challenge_end" or (kind == "draft_end" and event["challenged"]):
                    stats.challenges_resolved += 1
                    stats.challenger_wins += event["winner"] == event["challenger"]
                elif kind == "round_end":
                    stats.round_scores.extend(event["scores"])
                    stats.round_totals.append(sum(event["scores"]))
                    stats.challenges.append(challenges)
                    challenges = 0
        stats.games += 1
        stats.rounds.append(state.round)
        stats.winners.update(state.winners)
        stats.shared_wins += len(state.winners) > 1
        stats.winning_tallies.extend(state.tallies[w] for w in state.winners)
    return stats


def report(rules: RuleSet, stats: Stats, seed: int) -> list[str]:
    """The statistics as printable lines."""
    seats = rules.seats
    lines = [
        f"rules: {rules.edition}, {seats} seats, ending {rules.ending}; "
        f"{stats.games} games from seed {seed}",
        f"decisions per game: {stats.decisions / stats.games:.1f}",
        _summary("rounds per game", stats.rounds),
        f"  distribution: {dict(sorted(Counter(stats.rounds).items()))}",
        _summary("round score per seat ($)", stats.round_scores),
        _summary("round total, all seats ($)", stats.round_totals),
        _summary("challenges per round", stats.challenges),
    ]
    if stats.challenges_resolved:
        rate = stats.challenger_wins / stats.challenges_resolved
        lines.append(f"  challenger won {rate:.1%} of {stats.challenges_resolved} challenges")
    lines.append(_summary("winning tally ($)", stats.winning_tallies))
    lines.append("wins by seat:")
    total = sum(stats.winners.values())
    for seat in range(seats):
        n = stats.winners[seat]
        lines.append(f"  seat {seat}: {n:>6} ({n / total:.1%})")
    if stats.shared_wins:
        lines.append(f"shared wins: {stats.shared_wins}")
    return lines


def _summary(label: str, values: Sequence[int]) -> str:
    if not values:
        return f"{label}: none"
    mean = statistics.fmean(values)
    sd = statistics.pstdev(values)
    return f"{label}: mean {mean:,.1f} sd {sd:,.1f} min {min(values):,} max {max(values):,}"


def parse_rules(args: argparse.Namespace) -> RuleSet:
    """The RuleSet named by the command line."""
    options: dict[str, Any] = {"seats": args.seats}
    advanced: dict[str, Any] = dict(ALL_ADVANCED) if args.advanced else {}
    for item in args.option:
        name, sep, raw = item.partition("=")
        if not sep:
            raise InvalidRules(f"--option takes name=value, not {item!r}", field=item)
        try:
            value = json.loads(raw)
        except json.JSONDecodeError:
            value = raw  # a bare word such as quick or first_formed
        if name.startswith("advanced."):
            advanced[name.removeprefix("advanced.")] = value
        else:
            options[name] = value
    if advanced:
        options["advanced"] = advanced
    base = RuleSet.preset(args.preset).to_json()
    base.update({k: v for k, v in options.items() if k != "advanced"})
    base["advanced"].update(options.get("advanced", {}))
    return RuleSet.from_json(base)


def main(argv: Sequence[str] | None = None) -> int:
    """Command-line entry point."""
    parser = argparse.ArgumentParser(description="Play random-legal games, print statistics.")
    parser.add_argument("--preset", default="2021", choices=sorted(PRESETS))
    parser.add_argument("--seats", type=int, default=4)
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--advanced", action="store_true", help="turn every advanced rule on")
    parser.add_argument("--option", action="append", default=[], metavar="NAME=VALUE")
    args = parser.parse_args(argv)
    if args.games < 1:
        parser.error("--games must be at least 1")
    try:
        rules = parse_rules(args)
    except InvalidRules as exc:
        parser.error(f"{exc.field}: {exc}")
    stats = simulate(rules, args.games, args.seed)
    print("\n".join(report(rules, stats, args.seed)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
