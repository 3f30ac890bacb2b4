"""Schedules: every round of a round robin, seated at once."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from random import Random

from .designs import exact_design
from .history import History, Quality, quality
from .rounds import seat_round, step_limit
from .seats import seat_order
from .sizes import table_sizes


@dataclass(frozen=True)
class Schedule:
    """Rounds of tables (entrant ids in seat order) and their quality."""

    rounds: list[list[list[int]]]
    quality: Quality


def schedule(
    n: int,
    rounds: int,
    *,
    allowed: Sequence[int] = (3, 4, 5, 6),
    preferred: int = 4,
    seed: int = 0,
    history: History | None = None,
) -> Schedule:
    """Seat entrants 0..n-1 for ``rounds`` rounds (continuing ``history`` if given).

    Deterministic: the same arguments always give the same schedule (no clock is read).
    """
    history = history or History()
    sizes = table_sizes(n, allowed, preferred)
    rng = Random(seed)
    exact = exact_design(n, sizes, rounds, history)
    out = []
    for r in range(rounds):
        if exact is not None:
            tables = [list(t) for t in exact[r]]
        else:
            tables = seat_round(n, sizes, history, rng, step_limit(n, rounds))
        tables = [seat_order(t, history) for t in tables]
        history.record(tables)
        out.append(tables)
    return Schedule(out, quality(out))
