"""Table sizes: how many tables of which sizes seat a field."""

from __future__ import annotations

from collections.abc import Sequence

MIN_SIZE, MAX_SIZE = 2, 6


def table_sizes(n: int, allowed: Sequence[int] = (3, 4, 5, 6), preferred: int = 4) -> list[int]:
    """Sizes of tables seating exactly n entrants: most tables of the preferred size.

    Raises ValueError when n cannot be seated with the allowed sizes, and for no
    entrants at all (a round without tables is no round).
    """
    sizes = sorted({s for s in allowed if MIN_SIZE <= s <= MAX_SIZE})
    if not sizes:
        raise ValueError("allowed table sizes must include a size from 2 to 6")
    if n < 1:
        raise ValueError(f"{n} entrants cannot be seated")
    # best[k]: (preferred tables, -sum of distances to preferred) seating k entrants, and
    # last[k] the size of the table that reached it (kept as a link, not a copied list:
    # copying made 10,000 entrants quadratic)
    best: list[tuple[int, int] | None] = [None] * (n + 1)
    last = [0] * (n + 1)
    best[0] = (0, 0)
    for k in range(1, n + 1):
        for s in sizes:
            prior = best[k - s] if k >= s else None
            if prior is None:
                continue
            candidate = (prior[0] + (s == preferred), prior[1] - abs(s - preferred))
            current = best[k]
            if current is None or candidate > current:
                best[k], last[k] = candidate, s
    if best[n] is None:
        raise ValueError(f"{n} entrants cannot be seated at tables of {sizes}")
    result = []
    while n:
        result.append(last[n])
        n -= last[n]
    return sorted(result, reverse=True)
