"""Swiss tables: filled top-down by standing, avoiding rematches where possible."""

from __future__ import annotations

from collections.abc import Sequence

from .history import History
from .seats import seat_order

SWISS_REACH = 25  # tables either side a Swiss swap may reach


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
    return [seat_order(t, history) for t in tables]


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
