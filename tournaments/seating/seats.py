"""Seat order at a table: balancing the seat positions each entrant takes."""

from __future__ import annotations

from .history import History
from .sizes import MAX_SIZE


def seat_order(table: list[int], history: History) -> list[int]:
    """Seats to entrants so the most-used seat anyone takes is as little used as possible,
    then the fewest repeats in all (an exact assignment: tables have at most six seats).

    Positions are filled in order, over the sets of entrants already seated: the best
    (largest count, sum of counts) reaching each set is kept, ties to the lower ids.
    """
    if not any(p in history.positions for p in table):  # nobody has sat anywhere yet:
        return sorted(table)  # every order ties, and the lowest ids win, as below
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
