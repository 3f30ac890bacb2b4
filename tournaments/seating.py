"""Seating entrants at tables of 2-6 over rounds, so everyone meets as evenly as possible.

Pure: no database. The objective, minimised round by round with a seeded local search:

- **repeats**: a pair that has shared a table m times costs ``2m + 1`` more to seat together
  again (so the total grows as the sum of m² over pairs);
- **consecutive repeats**: ``CONSECUTIVE`` more if the pair also shared a table last round;
- **seat positions**: within a table, seats are assigned so that the seat position anyone
  has taken most often is taken as rarely as possible, then with the fewest repeats in
  all (turn order matters in Cover Your Assets): an exact assignment per table.

The search is seeded and bounded by step counts, never by the clock, so the same seed
always gives the same schedule.

When repeats cannot be avoided (12 entrants at tables of 4, say, repeat from round 2 by
pigeonhole), the search minimises the sum of squared meetings; that can mean a pair
meeting a third time rather than two pairs meeting a second time, and ``quality`` shows
the organiser exactly what the schedule does. When the numbers allow an exact design
(q² entrants at tables of q, q a prime power up to 5, at most q + 1 rounds) the rounds
are an affine plane's parallel classes and every pair meets at most once (exactly once
over q + 1 rounds). Table sizes are partitioned to have as many tables of the preferred
size as possible, then sizes as close to it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import combinations
from random import Random

CONSECUTIVE = 10  # extra cost of a pair repeating in consecutive rounds (Pantheon uses 10)
MIN_SIZE, MAX_SIZE = 2, 6
SWISS_REACH = 25  # tables either side a Swiss swap may reach
WORK = 150_000  # search steps x entrants per schedule: under a second (see _step_limit)


@dataclass
class History:
    """Who has met whom, how often, who met last round, and seat-position counts."""

    meetings: dict[tuple[int, int], int] = field(default_factory=dict)
    last_round: set[tuple[int, int]] = field(default_factory=set)
    positions: dict[int, list[int]] = field(default_factory=dict)

    def met(self, a: int, b: int) -> int:
        """How many times a and b have shared a table."""
        return self.meetings.get((a, b) if a < b else (b, a), 0)

    def record(self, tables: Sequence[Sequence[int]]) -> None:
        """Add a round's tables (each in seat order)."""
        self.last_round = set()
        for table in tables:
            for a, b in combinations(sorted(table), 2):
                self.meetings[(a, b)] = self.meetings.get((a, b), 0) + 1
                self.last_round.add((a, b))
            for position, entrant in enumerate(table):
                counts = self.positions.setdefault(entrant, [0] * MAX_SIZE)
                counts[position] += 1


@dataclass(frozen=True)
class Quality:
    """How good a schedule is, for organisers to see."""

    max_meetings: int  # most times any pair met
    repeated_pairs: int  # pairs that met more than once
    consecutive_repeats: int  # pair meetings in consecutive rounds
    seat_spread: int  # largest (max - min) of one entrant's seat-position counts


@dataclass(frozen=True)
class Schedule:
    """Rounds of tables (entrant ids in seat order) and their quality."""

    rounds: list[list[list[int]]]
    quality: Quality


def table_sizes(n: int, allowed: Sequence[int] = (3, 4, 5, 6), preferred: int = 4) -> list[int]:
    """Sizes of tables seating exactly n entrants: most tables of the preferred size.

    Raises ValueError when n cannot be seated with the allowed sizes.
    """
    sizes = sorted({s for s in allowed if MIN_SIZE <= s <= MAX_SIZE})
    if not sizes:
        raise ValueError("allowed table sizes must include a size from 2 to 6")
    # best[k]: (preferred tables, -sum of distances to preferred, tables) seating k entrants
    best: list[tuple[int, int, list[int]] | None] = [None] * (n + 1)
    best[0] = (0, 0, [])
    for k in range(1, n + 1):
        for s in sizes:
            prior = best[k - s] if k >= s else None
            if prior is None:
                continue
            candidate = (prior[0] + (s == preferred), prior[1] - abs(s - preferred), prior[2] + [s])
            current = best[k]
            if current is None or candidate[:2] > current[:2]:
                best[k] = candidate
    result = best[n]
    if result is None:
        raise ValueError(f"{n} entrants cannot be seated at tables of {sizes}")
    return sorted(result[2], reverse=True)


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
    exact = _exact_design(n, sizes, rounds, history)
    out = []
    for r in range(rounds):
        if exact is not None:
            tables = [list(t) for t in exact[r]]
        else:
            tables = _round(n, sizes, history, rng, _step_limit(n, rounds))
        tables = [_seat_order(t, history) for t in tables]
        history.record(tables)
        out.append(tables)
    return Schedule(out, quality(out))


def _step_limit(n: int, rounds: int) -> int:
    """Search steps a round may take: enough to clear a round's conflicts, while the
    whole schedule stays about a second of work however large the field (a step costs
    about one pass over the entrants, at most 150 of them)."""
    return max(100, min(20 * n + 2000, WORK // (min(n, 150) * max(rounds, 1))))


def _round(n: int, sizes: list[int], history: History, rng: Random, limit: int) -> list[list[int]]:
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
    met = history.meetings
    last = history.last_round

    def pair_cost(a: int, b: int) -> int:
        key = (a, b) if a < b else (b, a)
        m = met.get(key, 0)
        return 2 * m + 1 + (CONSECUTIVE if key in last else 0) if m else 0

    def cost_of(table: list[int]) -> int:
        return sum(pair_cost(a, b) for a, b in combinations(table, 2))

    def delta(a: int, b: int) -> int:
        ta, tb = tables[where[a]], tables[where[b]]
        d = sum(pair_cost(b, x) - pair_cost(a, x) for x in ta if x != a)
        return d + sum(pair_cost(a, y) - pair_cost(b, y) for y in tb if y != b)

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
            if any(pair_cost(p, q) for q in t if q != p)
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


def swiss_tables(order: Sequence[int], sizes: Sequence[int], history: History) -> list[list[int]]:
    """Swiss seating: tables filled top-down by standing, avoiding rematches where possible.

    Each table starts with the best-placed entrant left and adds, from the next few in
    standing order, the one who has met the table least (the better-placed on a tie).
    Filling head-first can still force rematches onto the lower tables that another
    seating avoids (16 entrants after a round at tables of 4, say), so ``_untangle``
    then swaps entrants between tables while that removes rematches.
    """
    remaining = list(order)
    tables = []
    for size in sizes:
        table = [remaining.pop(0)]
        while len(table) < size:
            window = remaining[: max(3 * size, 8)]
            chosen = min(
                window,
                key=lambda c: (sum(history.met(c, t) for t in table), remaining.index(c)),
            )
            table.append(chosen)
            remaining.remove(chosen)
        tables.append(table)
    _untangle(tables, order, history)
    return [_seat_order(t, history) for t in tables]


def _untangle(tables: list[list[int]], order: Sequence[int], history: History) -> None:
    """Swap entrants between tables, best swap first, while a swap lowers the rematches.

    Only entrants who face a rematch move. Of the swaps that remove as many meetings as
    possible, the one between entrants closest in the standings is made, so tables stay
    as close to top-down as the rematches allow. Candidates come from the ``SWISS_REACH``
    tables either side (every table of fields up to about 200).
    """
    rank = {entrant: i for i, entrant in enumerate(order)}

    def met_at(entrant: int, table: list[int], leaving: int) -> int:
        return sum(history.met(entrant, x) for x in table if x != leaving)

    while True:
        best: tuple[tuple[int, int, int, int], int, int, int, int] | None = None
        for ti, table in enumerate(tables):
            for a in table:
                here = met_at(a, table, a)
                if not here:
                    continue
                for tj in range(max(0, ti - SWISS_REACH), min(len(tables), ti + SWISS_REACH + 1)):
                    if tj == ti:
                        continue
                    other = tables[tj]
                    for b in other:
                        gain = here + met_at(b, other, b) - met_at(b, table, a)
                        gain -= met_at(a, other, b)
                        if gain > 0:
                            key = (-gain, abs(rank[a] - rank[b]), rank[a], rank[b])
                            if best is None or key < best[0]:
                                best = (key, ti, tj, a, b)
        if best is None:
            return
        _, ti, tj, a, b = best
        tables[ti][tables[ti].index(a)] = b
        tables[tj][tables[tj].index(b)] = a


def _seat_order(table: list[int], history: History) -> list[int]:
    """Seats to entrants so the most-used seat anyone takes is as little used as possible,
    then the fewest repeats in all (an exact assignment: tables have at most six seats).

    Positions are filled in order, over the sets of entrants already seated: the best
    (largest count, sum of counts) reaching each set is kept, ties to the lower ids.
    """
    blank = [0] * MAX_SIZE
    counts = [history.positions.get(p, blank) for p in table]
    best: dict[int, tuple[int, int, tuple[int, ...]]] = {0: (0, 0, ())}
    for position in range(len(table)):
        reached: dict[int, tuple[int, int, tuple[int, ...]]] = {}
        for used, (worst, total, seated) in best.items():
            for i, entrant in enumerate(table):
                if used >> i & 1:
                    continue
                c = counts[i][position]
                candidate = (max(worst, c), total + c, seated + (entrant,))
                key = used | 1 << i
                if key not in reached or candidate < reached[key]:
                    reached[key] = candidate
        best = reached
    return list(best[(1 << len(table)) - 1][2])


def quality(rounds: Sequence[Sequence[Sequence[int]]]) -> Quality:
    """Meeting and seat-position statistics of a schedule."""
    h = History()
    consecutive = 0
    for tables in rounds:
        previous = h.last_round
        for table in tables:
            for a, b in combinations(sorted(table), 2):
                consecutive += (a, b) in previous
        h.record(tables)
    meetings = list(h.meetings.values()) or [0]
    spread = max(
        (max(c) - min(c[: _size_of(p, rounds)]) for p, c in h.positions.items()), default=0
    )
    return Quality(
        max_meetings=max(meetings),
        repeated_pairs=sum(1 for m in meetings if m > 1),
        consecutive_repeats=consecutive,
        seat_spread=spread,
    )


def _size_of(entrant: int, rounds: Sequence[Sequence[Sequence[int]]]) -> int:
    """The largest table an entrant sat at (positions beyond it cannot be balanced)."""
    return max((len(t) for tables in rounds for t in tables if entrant in t), default=1)


# --- exact designs: affine planes AG(2, q) ------------------------------------------------

_GF4_MUL = ((0, 0, 0, 0), (0, 1, 2, 3), (0, 2, 3, 1), (0, 3, 1, 2))  # GF(4) = {0, 1, a, a+1}


def _field(q: int) -> tuple[list[list[int]], list[list[int]]] | None:
    """Addition and multiplication tables of GF(q) for q in 2, 3, 4, 5."""
    if q in (2, 3, 5):
        return (
            [[(a + b) % q for b in range(q)] for a in range(q)],
            [[(a * b) % q for b in range(q)] for a in range(q)],
        )
    if q == 4:
        return [[a ^ b for b in range(4)] for a in range(4)], [list(r) for r in _GF4_MUL]
    return None


def affine_rounds(q: int) -> list[list[list[int]]] | None:
    """The q + 1 parallel classes of AG(2, q): q² points, lines of q; every pair once."""
    tables = _field(q)
    if tables is None:
        return None
    add, mul = tables
    classes = []
    for slope in range(q):  # lines y = slope * x + c
        classes.append([[x * q + add[mul[slope][x]][c] for x in range(q)] for c in range(q)])
    classes.append([[x * q + y for y in range(q)] for x in range(q)])  # lines x = c
    return classes


def _exact_design(
    n: int, sizes: list[int], rounds: int, history: History
) -> list[list[list[int]]] | None:
    if history.meetings or len(set(sizes)) != 1:
        return None
    q = sizes[0]
    if q * q != n or rounds > q + 1:
        return None
    return affine_rounds(q)
