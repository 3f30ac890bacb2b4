"""The organiser's desk for a night: every table of the round in play and where it stands,
with counts read fresh on every request (the page polls it; the API answers it).

A read only: nothing here changes anything, and the pages and the API share it.
"""

from __future__ import annotations

from dataclasses import dataclass

from tournaments import tables
from tournaments.models import CheckIn, GameNight
from tournaments.tables import DrawnRound, Table


@dataclass(frozen=True)
class Desk:
    """Tonight at a glance: who came, the round in play and its tables by state."""

    checked_in: int
    rounds: int  # seating draws so far
    current: DrawnRound | None
    playing: tuple[Table, ...]  # not ended, nothing waiting
    waiting: tuple[Table, ...]  # a round entered, not yet confirmed by everyone
    disputed: tuple[Table, ...]  # a round disputed: the organiser settles it
    finished: tuple[Table, ...]  # ended, every round confirmed (or void)

    @property
    def seated(self) -> int:
        """Players at the current round's tables."""
        return sum(len(t.players) for t in self.current.tables) if self.current else 0


def _state(table: Table) -> str:
    """One word for a table: disputed first, as it needs the organiser."""
    if table.disputed:
        return "disputed"
    if table.waiting:
        return "waiting"
    return "finished" if table.ended else "playing"


def night_desk(night: GameNight) -> Desk:
    """The desk of a night: a few queries, however many tables it has."""
    drawn = tables.night_rounds(night)
    current = drawn[-1] if drawn else None
    by_state: dict[str, list[Table]] = {
        "playing": [],
        "waiting": [],
        "disputed": [],
        "finished": [],
    }
    for table in current.tables if current else ():
        by_state[_state(table)].append(table)
    return Desk(
        checked_in=CheckIn.objects.filter(night=night).count(),
        rounds=len(drawn),
        current=current,
        playing=tuple(by_state["playing"]),
        waiting=tuple(by_state["waiting"]),
        disputed=tuple(by_state["disputed"]),
        finished=tuple(by_state["finished"]),
    )
