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
from .whole import improve

WHOLE_SEARCH = 150  # the most entrants searched as a whole schedule (its n x n meetings)


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
    exact = exact_design(n, sizes, rounds, history)
    plan = exact[:rounds] if exact is not None else _search(n, sizes, rounds, history, seed)
    out = []
    for tables in plan:
        seated = [seat_order(list(t), history) for t in tables]
        history.record(seated)
        out.append(seated)
    return Schedule(out, quality(out))


def _search(
    n: int, sizes: list[int], rounds: int, history: History, seed: int
) -> list[list[list[int]]]:
    """Round by round, then (up to ``WHOLE_SEARCH`` entrants, more than one table) as a
    whole schedule, which keeps the round-by-round schedule unless it finds a better one."""
    rng = Random(seed)
    scratch = History(dict(history.meetings), set(history.last_round))
    plan = []
    for _ in range(rounds):
        tables = seat_round(n, sizes, scratch, rng, step_limit(n, rounds))
        scratch.record(tables)
        plan.append(tables)
    if n > WHOLE_SEARCH or len(sizes) < 2 or not rounds:
        return plan
    return improve(plan, n, history, rng)
