"""Standings: ordering entrants by a configurable, documented tie-break order (pure).

Every entrant's totals arrive already aggregated (the database sums them: games, points,
placement, dollar share, rounds won, best share); ``order`` names the criteria in turn.
Criteria that need game-by-game data (head-to-head, strength of schedule) are computed
only for the entrants still tied when they come up, through ``detail``, which keeps
standings over a hundred thousand games cheap. The last criterion is always a
deterministic lot seeded per competition, so no two entrants ever share a final rank.

Metrics (see docs/tournaments.md):
- ``points``: total placement points; a game's points are ``(n - place) / (n - 1)`` at a
  table of n (1 for first, 0 for last), or the organiser's scale.
- ``placement``: average of those normalised placements (comparable across table sizes).
- ``dsi``: average dollar share index, a game's dollars over the table's average.
- ``rounds_won``: rounds finished with the table's top score.
- ``head_to_head``: points in the games between the tied entrants only.
- ``sos``: strength of schedule, the opponents' average placement.
- ``best_dsi``: the best single-game dollar share.
- ``wins``: games won.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass

CRITERIA = ("points", "placement", "dsi", "rounds_won", "wins", "head_to_head", "sos", "best_dsi")
DEFAULT_ORDER = ("points", "placement", "dsi", "rounds_won", "head_to_head", "sos", "best_dsi")


@dataclass(frozen=True)
class Totals:
    """An entrant's aggregated results."""

    entrant: int
    games: int
    points: float
    placement_sum: float
    dsi_sum: float
    rounds_won: int
    wins: int
    best_dsi: float
    dollars: int

    @property
    def placement(self) -> float:
        """Average normalised placement (0 last .. 1 first)."""
        return self.placement_sum / self.games if self.games else 0.0

    @property
    def dsi(self) -> float:
        """Average dollar share index (1.0 is an average share)."""
        return self.dsi_sum / self.games if self.games else 0.0


class Detail:
    """Game-by-game data for tie-breaks; implemented over the database by selectors."""

    def head_to_head(self, entrants: Sequence[int]) -> dict[int, float]:
        """Each entrant's points in games between these entrants only."""
        raise NotImplementedError  # pragma: no cover - the selector implements it

    def strength_of_schedule(self, entrants: Sequence[int]) -> dict[int, float]:
        """Each entrant's opponents' average placement, over all its games."""
        raise NotImplementedError  # pragma: no cover - the selector implements it

    def head_to_head_groups(self, groups: Sequence[Sequence[int]]) -> dict[int, float]:
        """``head_to_head`` of every tied group at once (each within its own group);
        the selector answers all in one query, so a page's queries do not grow with
        the number of ties."""
        return {e: v for group in groups for e, v in self.head_to_head(group).items()}

    def strength_of_schedule_groups(self, groups: Sequence[Sequence[int]]) -> dict[int, float]:
        """``strength_of_schedule`` of every tied group at once."""
        return {e: v for group in groups for e, v in self.strength_of_schedule(group).items()}


def lot(seed: str, entrant: int) -> str:
    """A deterministic draw: the same seed and entrant always give the same lot."""
    return hashlib.sha256(f"{seed}:{entrant}".encode()).hexdigest()


def normalised(place: int, table_size: int) -> float:
    """A place at a table as a number from 1 (first) to 0 (last)."""
    return (table_size - place) / (table_size - 1) if table_size > 1 else 1.0


def rank(
    totals: Sequence[Totals], order: Sequence[str], detail: Detail, seed: str
) -> list[tuple[int, Totals, list[str]]]:
    """(rank, totals, criteria that separated it) for every entrant, best first."""
    unknown = [c for c in order if c not in CRITERIA]
    if unknown:
        raise ValueError(f"unknown tie-break {unknown[0]!r}; choose from {', '.join(CRITERIA)}")
    groups: list[list[Totals]] = [list(totals)]
    decided_by: dict[int, list[str]] = {t.entrant: [] for t in totals}
    for criterion in order:
        tied = [group for group in groups if len(group) > 1]
        values = _values(criterion, detail, tied)
        next_groups: list[list[Totals]] = []
        for group in groups:
            if len(group) == 1:
                next_groups.append(group)
                continue
            split = _split(group, values)
            if len(split) > 1:
                for t in group:
                    decided_by[t.entrant].append(criterion)
            next_groups.extend(split)
        groups = next_groups
    out: list[tuple[int, Totals, list[str]]] = []
    for group in groups:
        for t in sorted(group, key=lambda t: lot(seed, t.entrant)):
            if len(group) > 1:
                decided_by[t.entrant].append("lot")
            out.append((len(out) + 1, t, decided_by[t.entrant]))
    return out


def _split(group: list[Totals], values: dict[int, float]) -> list[list[Totals]]:
    """The group in descending order of ``values``, as runs of equal value."""
    ordered = sorted(group, key=lambda t: -values[t.entrant])
    runs: list[list[Totals]] = []
    for t in ordered:
        if runs and abs(values[runs[-1][0].entrant] - values[t.entrant]) < 1e-9:
            runs[-1].append(t)
        else:
            runs.append([t])
    return runs


_SIMPLE: dict[str, Callable[[Totals], float]] = {
    "points": lambda t: t.points,
    "placement": lambda t: t.placement,
    "dsi": lambda t: t.dsi,
    "rounds_won": lambda t: t.rounds_won,
    "wins": lambda t: t.wins,
    "best_dsi": lambda t: t.best_dsi,
}


def _values(criterion: str, detail: Detail, tied: list[list[Totals]]) -> dict[int, float]:
    """The criterion's value for every entrant of the tied groups (detail: one call)."""
    if criterion in _SIMPLE:
        f = _SIMPLE[criterion]
        return {t.entrant: f(t) for group in tied for t in group}
    if not tied:
        return {}
    entrants = [[t.entrant for t in group] for group in tied]
    if criterion == "head_to_head":
        return detail.head_to_head_groups(entrants)
    return detail.strength_of_schedule_groups(entrants)
