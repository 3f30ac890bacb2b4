"""Seeded games for the compiled strategies' identity test (test_compiled_strategies.py).

Run as ``python -m tests.bots.strategies_play COUNT`` with ``CYA_ENGINE`` set: the first
line says which engine ran, where ``builtin`` and ``search`` came from and the registry's
names read off the classes (a compiled class keeps them as class attributes); then one line
per game: its seed and the actions the built-ins chose. The tables are the engine identity
test's (every rule path), the seats a mix of greedy, shark, random and the search player
on a small iteration budget, so two builds that choose alike print the same lines.
"""

from __future__ import annotations

import random
import sys

from bots.strategies import builtin, search
from bots.strategies.registry import STRATEGIES, decide, strategy
from bots.strategies.search import SearchStrategy
from games import engine
from games.engine import apply, new_game
from tests.engine.identity_play import VARIANTS

LINE_UP = ("ismcts", "shark", "greedy", "random")


def play(seed: int) -> list[int]:
    """One game's actions, chosen by the built-ins round the table."""
    rules = VARIANTS[seed % len(VARIANTS)]
    names = [LINE_UP[(seed + k) % len(LINE_UP)] for k in range(rules.seats)]
    seats = [SearchStrategy(iterations=6, ms=None) if n == "ismcts" else strategy(n) for n in names]
    rng = random.Random(seed)
    s = new_game(rules, seed)
    actions: list[int] = []
    while not s.over:
        action = decide(seats[s.to_act], s, s.to_act, rng)
        s = apply(s, action)[0]
        actions.append(action)
    return actions


def main() -> None:
    count = int(sys.argv[1])
    out = sys.stdout
    names = ",".join(kind.name for kind in STRATEGIES.values())
    out.write(f"{engine.ENGINE_BUILD} {builtin.__file__} {search.__file__} {names}\n")
    for seed in range(count):
        out.write(f"{seed} {','.join(map(str, play(seed)))}\n")
    out.flush()


if __name__ == "__main__":
    main()
