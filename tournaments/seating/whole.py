"""The whole-schedule search: every round at once, for the least (max meetings, sum of
m², consecutive repeats), in that order."""

from __future__ import annotations

from itertools import combinations
from random import Random

from .history import History

# Bounds on the work, never the clock (the same seed gives the same schedule). Tuned on
# 8-40 entrants over 3-6 rounds (benchmarks/seating.py): longer searches still find a
# slightly better schedule now and then, at several times the cost.
WORK = 200_000  # search steps x entrants x rounds per phase: large schedules take fewer
MIN_STEPS = 200  # steps per phase, however large the schedule
PATIENCE = 150  # steps without a better schedule before a phase ends
STALL = 50  # steps without a lower cost before restarting from the best schedule...
PERTURB = 3  # ...this many random swaps away, to leave its neighbourhood
TENURE = 5  # a swapped entrant may not go back for 5-9 steps: the search cannot cycle
MOVERS = 12  # the most entrants a step tries to move, so a step costs O(12 n x table size)


class _Plan:
    """Every round's tables under search, with each pair's meetings (history included),
    how many pairs have met how often, and the consecutive repeats, kept current as
    entrants swap tables."""

    def __init__(self, rounds: list[list[list[int]]], n: int, history: History) -> None:
        self.n = n
        self.tables = [[list(t) for t in tables] for tables in rounds]
        self.where = [_where(tables, n) for tables in self.tables]
        self.before = _where_last_round(history, n)
        self.nowhere = [-1 - p for p in range(n)]  # a round where nobody shares a table
        self.met = [[0] * n for _ in range(n)]
        for (a, b), m in history.meetings.items():
            if a < n and b < n:
                self.met[a][b] = self.met[b][a] = m
        for _, a, b in self.pairs():
            self.met[a][b] += 1
            self.met[b][a] += 1
        self.level = [0] * (max(map(max, self.met)) + len(rounds) + 2)
        for a in range(n):
            for b in range(a + 1, n):
                self.level[self.met[a][b]] += 1
        # each repeat from one round to the next once: as seen from the later round
        self.consecutive = sum(
            self.sides(r)[0][a] == self.sides(r)[0][b] for r, a, b in self.pairs()
        )

    def pairs(self) -> list[tuple[int, int, int]]:
        """(round, a, b) for every pair seated together."""
        return [
            (r, a, b)
            for r, tables in enumerate(self.tables)
            for table in tables
            for a, b in combinations(table, 2)
        ]

    def copy(self) -> list[list[list[int]]]:
        """The tables of every round, as they stand."""
        return [[list(t) for t in tables] for tables in self.tables]

    def sides(self, r: int) -> tuple[list[int], list[int]]:
        """Each entrant's table in the round before round r (history's last round, before
        the first) and in the round after; ``nowhere`` where there is no such round."""
        before = self.where[r - 1] if r else self.before or self.nowhere
        return before, self.where[r + 1] if r + 1 < len(self.where) else self.nowhere

    def key(self) -> tuple[int, int, int]:
        """(most meetings of any pair, sum over pairs of meetings squared, consecutive repeats)."""
        top = max(m for m, count in enumerate(self.level) if count)
        return top, sum(m * m * count for m, count in enumerate(self.level)), self.consecutive

    def conflicts(self) -> list[tuple[int, int, int]]:
        """(round, a, b) for the pairs seated together that also meet elsewhere (another
        round or history): only moving them can lower the cost (a consecutive repeat is
        a pair that met the round before or after too, so it is among them)."""
        met = self.met
        return [
            (r, a, b)
            for r, tables in enumerate(self.tables)
            for table in tables
            for a, b in combinations(table, 2)
            if met[a][b] > 1
        ]

    def swap(self, r: int, a: int, b: int) -> None:
        """Swap a and b (at different tables) in round r."""
        tables, where = self.tables[r], self.where[r]
        ta, tb = where[a], where[b]
        before, after = self.sides(r)
        for leaving, joining, table in ((a, b, tables[ta]), (b, a, tables[tb])):
            for x in table:
                if x != leaving:
                    self.meet(leaving, x, -1)
                    self.meet(joining, x, 1)
                    joined = (before[joining] == before[x]) + (after[joining] == after[x])
                    left = (before[leaving] == before[x]) + (after[leaving] == after[x])
                    self.consecutive += joined - left
        tables[ta][tables[ta].index(a)] = b
        tables[tb][tables[tb].index(b)] = a
        where[a], where[b] = tb, ta

    def meet(self, a: int, b: int, change: int) -> None:
        """Change how often a and b have met by ``change``."""
        m = self.met[a][b]
        self.level[m] -= 1
        self.level[m + change] += 1
        self.met[a][b] = self.met[b][a] = m + change


class _Search:
    """Tabu search over whole schedules for the least (max meetings, sum of m²,
    consecutive repeats), in that order.

    The cost it descends is ``E * excess + S * (sum of m²) + consecutive repeats``, where
    excess is how far pairs' meetings exceed a target maximum, and the weights make each
    term outweigh any difference in the terms after it. Each step picks a round with a pair in
    conflict and makes the best swap there that moves an entrant in conflict and is not
    tabu (taking an entrant back to a table it left within the last few steps), unless
    the swap beats the best cost seen.
    """

    def __init__(
        self, rounds: list[list[list[int]]], n: int, history: History, rng: Random
    ) -> None:
        self.n, self.history, self.rng = n, history, rng
        self.plan = _Plan(rounds, n, history)
        self.floor = _floor(self.plan, n, history)
        self.best_key, self.best = self.plan.key(), self.plan.copy()
        seated = len(self.plan.pairs())
        # Any two schedules differ by at most one consecutive repeat per seated pair, and
        # in the sum of m² by at most 2m + 1 per seated meeting (m < len(level)): so
        # each weight outweighs every term after it, and the cost orders lexicographically.
        self.square_weight = seated + 1
        self.excess_weight = self.square_weight * (seated * (2 * len(self.plan.level) + 1) + 1)
        self.tabu: dict[tuple[int, int, int], int] = {}
        self.aim(max(self.floor[0], self.best_key[0] - 1))

    def aim(self, target: int) -> None:
        """Aim at schedules whose pairs meet at most ``target`` times."""
        self.target = target
        self.inc = [  # the cost of a pair's meetings going from m to m + 1
            self.excess_weight * (m >= target) + self.square_weight * (2 * m + 1)
            for m in range(len(self.plan.level))
        ]
        level = self.plan.level
        excess = sum((m - target) * c for m, c in enumerate(level) if m > target)
        squares = sum(m * m * c for m, c in enumerate(level))
        self.cost = (
            self.excess_weight * excess + self.square_weight * squares + self.plan.consecutive
        )
        self.best_cost, self.since = self.cost, 0
        self.tabu.clear()

    def restart(self, target: int, swaps: int) -> None:
        """Go back to the best schedule, ``swaps`` random swaps away, aiming at ``target``."""
        self.plan = _Plan(self.best, self.n, self.history)
        for _ in range(swaps):
            r = self.rng.randrange(len(self.plan.tables))
            a, b = self.rng.sample(range(self.n), 2)
            if self.plan.where[r][a] != self.plan.where[r][b]:
                self.plan.swap(r, a, b)
        self.aim(target)

    def step(self, step: int, lowering: bool) -> bool:
        """One move; False when no pair is in conflict (nothing can improve)."""
        conflicts = self.plan.conflicts()
        if not conflicts:
            return False
        r = self.rng.choice(conflicts)[0]
        movers = sorted({p for q, a, b in conflicts if q == r for p in (a, b)})
        if len(movers) > MOVERS:
            movers = self.rng.sample(movers, MOVERS)
        move = self.best_swap(r, movers, step)
        if move is None:
            return True
        d, a, b = move
        where = self.plan.where[r]
        tenure = TENURE + self.rng.randrange(TENURE)
        self.tabu[(r, a, where[a])] = self.tabu[(r, b, where[b])] = step + tenure
        self.plan.swap(r, a, b)
        self.cost += d
        self.since += 1
        if self.cost < self.best_cost:
            self.best_cost, self.since = self.cost, 0
        key = self.plan.key()
        if key < self.best_key:
            self.best_key, self.best = key, self.plan.copy()
            if lowering and key[0] <= self.target > self.floor[0]:
                self.aim(max(self.floor[0], key[0] - 1))
        return True

    def best_swap(self, r: int, movers: list[int], step: int) -> tuple[int, int, int] | None:
        """The best swap in round r of a mover with an entrant at another table that is
        not tabu or beats the best cost: (change in cost, a, b); ties broken at random.

        A swap's change is what b pays to join a's table plus what a pays to join b's,
        less what each saves by leaving its own, less the pair (a, b) that both joins
        counted: so each step costs a pass over the tables per mover, not per swap.
        """
        where, met, (before, after) = self.plan.where[r], self.plan.met, self.plan.sides(r)
        leave, (arrive, go) = self.leave_costs(r), self.join_costs(r, movers)
        slack, tabu, inc = self.best_cost - self.cost, self.tabu, self.inc
        best: int | None = None
        ties: list[tuple[int, int]] = []
        done: set[int] = set()
        for a in movers:
            ta, ma, own, elsewhere = where[a], met[a], arrive[where[a]], go[a]
            done.add(a)
            for b in range(self.n):
                tb = where[b]
                if tb == ta or b in done:  # a swap with an earlier mover was seen then
                    continue
                pair = inc[ma[b]] + (before[a] == before[b]) + (after[a] == after[b])
                d = own[b] + elsewhere[tb] - 2 * pair - leave[a] - leave[b]
                if best is not None and d > best:
                    continue
                if d >= slack and (
                    tabu.get((r, a, tb), 0) > step or tabu.get((r, b, ta), 0) > step
                ):
                    continue
                if best is None or d < best:
                    best, ties = d, [(a, b)]
                else:
                    ties.append((a, b))
        if best is None:
            return None
        a, b = self.rng.choice(ties)
        return best, a, b

    def leave_costs(self, r: int) -> list[int]:
        """What each entrant saves by leaving its table in round r."""
        met, inc, (before, after) = self.plan.met, self.inc, self.plan.sides(r)
        leave = [0] * self.n
        for table in self.plan.tables[r]:
            for p in table:
                mp, bp, ap = met[p], before[p], after[p]
                leave[p] = sum(
                    inc[mp[x] - 1] + (before[x] == bp) + (after[x] == ap) for x in table if x != p
                )
        return leave

    def join_costs(
        self, r: int, movers: list[int]
    ) -> tuple[dict[int, list[int]], dict[int, list[int]]]:
        """What each entrant pays to join each mover's table in round r (by table), and
        what each mover pays to join each table (by mover)."""
        met, inc, (before, after) = self.plan.met, self.inc, self.plan.sides(r)
        tables, where = self.plan.tables[r], self.plan.where[r]

        def pays(p: int, table: list[int]) -> int:
            mp, bp, ap = met[p], before[p], after[p]
            cost = 0
            for x in table:
                cost += inc[mp[x]] + (before[x] == bp) + (after[x] == ap)
            return cost

        arrive = {
            t: [pays(p, tables[t]) for p in range(self.n)] for t in {where[a] for a in movers}
        }
        return arrive, {a: [pays(a, table) for table in tables] for a in movers}


def improve(
    rounds: list[list[list[int]]], n: int, history: History, rng: Random
) -> list[list[list[int]]]:
    """A schedule improved as a whole: its max meetings lowered first (aiming one below
    the best found, while above the floor), then, from the best, its sum of m². Each
    phase ends after ``PATIENCE`` steps without a better schedule, at the step limit, or
    at the floor; a search that has not lowered its cost for ``STALL`` steps restarts
    from the best schedule a few random swaps away. Fewer than two entrants have no
    pairs to spread: their schedule is returned as it is."""
    if n < 2 or not rounds:
        return rounds
    search = _Search(rounds, n, history, rng)
    limit = _search_steps(n, len(rounds))
    for lowering in (True, False):
        if not lowering:
            search.restart(search.best_key[0], 0)
        found, best_key = 0, search.best_key
        for step in range(limit):
            if search.best_key <= search.floor or step - found > PATIENCE:
                break
            if search.since > STALL:
                search.restart(search.target, PERTURB)
            if not search.step(step, lowering):
                break
            if search.best_key < best_key:
                found, best_key = step, search.best_key
    return search.best


def _search_steps(n: int, rounds: int) -> int:
    """Steps a phase of the whole-schedule search may take: each costs a pass over the
    field per mover and over every round's pairs, so fewer for larger schedules."""
    return max(MIN_STEPS, WORK // max(n * rounds, 1))


def _floor(plan: _Plan, n: int, history: History) -> tuple[int, int, int]:
    """A lower bound on the key of any schedule: meetings spread as evenly as possible
    over the pairs, or over each entrant's rivals at its smallest table; no pair that has
    met meeting again; no consecutive repeat."""
    known = [m for (a, b), m in history.meetings.items() if a < n and b < n]
    seated = len(plan.pairs())
    pairs = n * (n - 1) // 2
    q, r = divmod(sum(known) + seated, pairs)
    rivals = len(plan.tables) * (min(len(t) for ts in plan.tables for t in ts) - 1)
    top = max(q + (r > 0), -(-rivals // (n - 1)), *known)
    even = (pairs - r) * q * q + r * (q + 1) * (q + 1)
    return top, max(even, sum(m * m for m in known) + seated), 0


def _where(tables: list[list[int]], n: int) -> list[int]:
    """Each entrant's table."""
    where = [0] * n
    for t, table in enumerate(tables):
        for p in table:
            where[p] = t
    return where


def _where_last_round(history: History, n: int) -> list[int] | None:
    """History's last round as a table label per entrant: the pairs it records are a
    round's tables, so a table is a group they connect (-1 - p for the absent)."""
    if not history.last_round:
        return None
    label = list(range(n))

    def root(p: int) -> int:
        while label[p] != p:
            label[p] = label[label[p]]
            p = label[p]
        return p

    present: set[int] = set()
    for a, b in sorted(history.last_round):
        if a < n and b < n:
            label[root(a)] = root(b)
            present.update((a, b))
    return [root(p) if p in present else -1 - p for p in range(n)]
