"""Decision-log size: stored bytes per decision, for a game's batch and a batch of one.

Run with ``python benchmarks/decision_log.py [--games N]``. Plays whole 4-seat games of
the 2021 preset in memory with random legal choices; each decision becomes the line a
webhook bot's seat would get in bots.decision_log (the request's size, measured on the
real decision body; the answer; a latency; a short debug note like "3 options, kept the
Silver"), and each seat's lines of a game are stored as the match runner stores them:
one zlib row with the log's preset dictionary. The same lines stored one per row show
what an API client's decision (written as it comes) costs.

The last line is read by tools: ``batch_bytes_per_decision=<n> single_bytes_per_decision=<n>
raw_bytes_per_decision=<n>``.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
from datetime import UTC, datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "cya_site.settings")

import django

django.setup()

from bots import decision_log  # noqa: E402
from games.engine import (  # noqa: E402
    RuleSet,
    action_to_json,
    apply,
    decision_object,
    legal_actions,
    new_game,
)


def game_lines(seed: int) -> dict[int, list[dict[str, object]]]:
    """Each seat's log lines of one random game."""
    rules = RuleSet.preset("2021", seats=4)
    rng = random.Random(seed)
    state = new_game(rules, seed)
    at = datetime(2026, 11, 27, 9, 0, tzinfo=UTC)
    seats: dict[int, list[dict[str, object]]] = {}
    while not state.over:
        seat = state.to_act
        request = decision_object(state, game=seed, deadline=at, time_bank_ms=15_000)
        options = legal_actions(state)
        code = rng.choice(options)
        answer = action_to_json(code, rules.edition)
        note = f"{len(options)} options, chose {answer['type']}"
        size = len(json.dumps(request, default=str))
        entry = decision_log.Entry(seed, seat, 1, state.version, size, answer, rng.randint(20, 200))
        seats.setdefault(seat, []).append({**entry.line(at), "debug": note})
        state, _ = apply(state, code, seat=seat)
    return seats


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=50)
    games = parser.parse_args().games
    decisions = batch = single = raw = 0
    for seed in range(games):
        for lines in game_lines(seed).values():
            decisions += len(lines)
            data, size = decision_log.encode(lines)
            batch, raw = batch + len(data), raw + size
            single += sum(len(decision_log.encode([line])[0]) for line in lines)
    print(f"{games} games, {decisions} decisions ({decisions / games / 4:.0f} per seat a game)")
    print(
        f"batch_bytes_per_decision={batch / decisions:.1f} "
        f"single_bytes_per_decision={single / decisions:.1f} "
        f"raw_bytes_per_decision={raw / decisions:.1f}"
    )


if __name__ == "__main__":
    main()
