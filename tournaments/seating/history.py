"""Who has met whom over a schedule's rounds, and the quality figures organisers see."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import combinations

from .sizes import MAX_SIZE


@dataclass
class History:
    """Who has met whom, how often, who met last round, and seat-position counts."""

    meetings: dict[tuple[int, int], int] = field(default_factory=dict)
    last_round: set[tuple[int, int]] = field(default_factory=set)
    positions: dict[int, list[int]] = field(default_factory=dict)

    def met(self, a: int, b: int) -> int:
        """How many times a and b have shared a table."""
        return self.meetings.get((a, b) if a < b else (b, a), 0)

    def add_table(self, seated: Sequence[tuple[int, int]], *, last_round: bool) -> None:
        """Add one past table, as (seat position, entrant) pairs of the entrants still in
        the field (a league night's: some who sat there are not here tonight, and the
        others keep their positions); ``last_round`` if it was in the round just played."""
        entrants = sorted(entrant for _, entrant in seated)
        for a, b in combinations(entrants, 2):
            self.meetings[(a, b)] = self.meetings.get((a, b), 0) + 1
            if last_round:
                self.last_round.add((a, b))
        for position, entrant in seated:
            if position < MAX_SIZE:  # a casual table of 7 or 8 has seats no draw balances
                self.positions.setdefault(entrant, [0] * MAX_SIZE)[position] += 1

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
    largest = _largest_tables(rounds)
    spread = max((max(c) - min(c[: largest[p]]) for p, c in h.positions.items()), default=0)
    return Quality(
        max_meetings=max(meetings),
        repeated_pairs=sum(1 for m in meetings if m > 1),
        consecutive_repeats=consecutive,
        seat_spread=spread,
    )


def _largest_tables(rounds: Sequence[Sequence[Sequence[int]]]) -> dict[int, int]:
    """The largest table each entrant sat at (positions beyond it cannot be balanced), in
    one pass over the schedule: asking entrant by entrant made 10,000 entrants quadratic."""
    largest: dict[int, int] = {}
    for tables in rounds:
        for table in tables:
            for entrant in table:
                if largest.get(entrant, 0) < len(table):
                    largest[entrant] = len(table)
    return largest
