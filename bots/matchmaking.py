"""Choosing ladder tables (pure: no database).

A table starts from the entered version with the fewest games (so games stay equal per
version), then fills with versions close to its rating, except that each seat is a
random eligible version with probability ``exploration`` (ratings only converge if
tables mix). Only versions at most ``size`` games (one duplicate-deal match) ahead of
the least-played eligible one fill seats: otherwise versions rated near many others
would play far more than outliers. Two versions of one owner never share a table.

Only an entered bot starts a table: the platform's built-ins are yardsticks that fill
seats beside entrants but never play a table of their own, which would keep workers
busy for nobody (the search player spends about a tenth of a second a decision).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from random import Random


@dataclass(frozen=True)
class Candidate:
    """A version that may be seated: its id, owner, rating and games so far, and whether
    someone entered it (False for the platform's built-ins)."""

    id: int
    owner: int
    mu: float
    games: int
    entrant: bool = True


def pick_table(
    candidates: Sequence[Candidate], size: int, rng: Random, exploration: float = 0.2
) -> list[int] | None:
    """Ids of ``size`` versions for one table, or None when there are not enough owners or
    no entrant."""
    entrants = [c for c in candidates if c.entrant]
    if not entrants or len({c.owner for c in candidates}) < size:
        return None
    fewest = min(c.games for c in entrants)
    anchor = rng.choice([c for c in entrants if c.games == fewest])
    table = [anchor]
    while len(table) < size:
        owners = {c.owner for c in table}
        eligible = [c for c in candidates if c.owner not in owners]
        least = min(c.games for c in eligible)
        eligible = [c for c in eligible if c.games <= least + size]
        if rng.random() < exploration:
            choice = rng.choice(eligible)
        else:
            choice = min(eligible, key=lambda c: (abs(c.mu - anchor.mu), c.games, rng.random()))
        table.append(choice)
    rng.shuffle(table)  # seat order; duplicate deals rotate it through every position anyway
    return [c.id for c in table]
