"""The round-by-round search: one round at a time, given the rounds before it."""

from __future__ import annotations

from itertools import combinations
from random import Random

from .history import History

CONSECUTIVE = 10  # extra cost of a pair repeating in consecutive rounds (Pantheon uses 10)
WORK = 150_000  # search steps x entrants per schedule: under a second (see step_limit)


def step_limit(n: int, rounds: int) -> int:
    """Search steps a round may take: enough to clear a round's conflicts, while the
    whole schedule stays about a second of work however large the field (a step costs
    about one pass over the entrants, at most 150 of them)."""
    return max(100, min(20 * n + 2000, WORK // (min(max(n, 1), 150) * max(rounds, 1))))


def seat_round(
    n: int, sizes: list[int], history: History, rng: Random, limit: int
) -> list[list[int]]:
    """One round: a random seating, then best-swap descent on the entrants in conflict.

    Each step takes an entrant who shares a table with someone it met before and swaps it
    with the entrant elsewhere that lowers the round's cost most; with no improving swap
    it makes a random one (short tabu memory keeps it from undoing it). The best seating
    seen is kept; the search stops at zero conflicts, after ``limit`` steps, or after
    ``2n + 200`` steps without a new best (by then it has settled: the schedule is as
    good as the unlimited search within a percent or two, in a fraction of the time).
    """
    order = list(range(n))
    rng.shuffle(order)
    tables: list[list[int]] = []
    start = 0
    for s in sizes:
        tables.append(order[start : start + s])
        start += s
    where = [0] * n
    for t, table in enumerate(tables):
        for p in table:
            where[p] = t
    costs_with = _pair_costs(n, history)

    def cost_of(table: list[int]) -> int:
        return sum(costs_with[a].get(b, 0) for a, b in combinations(table, 2))

    def delta(a: int, b: int) -> int:
        ta, tb = tables[where[a]], tables[where[b]]
        with_a, with_b = costs_with[a], costs_with[b]
        d = sum(with_b.get(x, 0) - with_a.get(x, 0) for x in ta if x != a)
        return d + sum(with_a.get(y, 0) - with_b.get(y, 0) for y in tb if y != b)

    def swap(a: int, b: int) -> None:
        ta, tb = where[a], where[b]
        tables[ta][tables[ta].index(a)] = b
        tables[tb][tables[tb].index(b)] = a
        where[a], where[b] = tb, ta

    costs = [cost_of(t) for t in tables]
    total = sum(costs)
    best_total, best = total, [list(t) for t in tables]
    tabu: list[tuple[int, int]] = []
    steps = stalled = 0
    while total and steps < limit and stalled < 2 * n + 200:
        steps += 1
        stalled += 1
        bad = [
            p
            for t, cost in zip(tables, costs, strict=True)
            if cost
            for p in t
            if any(costs_with[p].get(q, 0) for q in t if q != p)
        ]
        a = rng.choice(bad)
        others = range(n) if n <= 150 else rng.sample(range(n), 150)
        moves = [(delta(a, b), b) for b in others if where[b] != where[a] and (a, b) not in tabu]
        if not moves:
            continue
        d, b = min(moves, key=lambda m: (m[0], rng.random()))
        if d >= 0 and rng.random() < 0.3:  # stuck: a random swap to move elsewhere
            d, b = rng.choice(moves)
        swap(a, b)
        total += d
        costs[where[a]], costs[where[b]] = cost_of(tables[where[a]]), cost_of(tables[where[b]])
        tabu.append((b, a))
        del tabu[:-7]
        if total < best_total:
            best_total, best = total, [list(t) for t in tables]
            stalled = 0
    return best


def _pair_costs(n: int, history: History) -> list[dict[int, int]]:
    """What seating each entrant with each it has met costs: ``2m + 1`` after m meetings,
    ``CONSECUTIVE`` more if they met last round (by entrant, for lookups without tuples)."""
    costs: list[dict[int, int]] = [{} for _ in range(n)]
    for (a, b), m in history.meetings.items():
        if m and a < n and b < n:
            cost = 2 * m + 1 + (CONSECUTIVE if (a, b) in history.last_round else 0)
            costs[a][b] = costs[b][a] = cost
    return costs
