"""A player's statistics, worked out from what their games recorded (pure: no database).

Digital games keep an event log (games.engine's public events), so they give the most:
steals (challenges) tried and won, defences won, the biggest stack, the best round and
the favourite asset. Recorded games keep their places, dollars and rounds won (the
results of their score sheets). Every figure names what it counts in docs/players.md.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Finish:
    """One finished game of the player's: the place, table size, dollars, rounds won."""

    place: int
    table_size: int
    dollars: int
    rounds_won: int


@dataclass
class Stats:
    games: int = 0
    average_place: float | None = None
    wins: int = 0
    rounds_won: int = 0
    steals_tried: int = 0
    steals_won: int = 0
    defences: int = 0
    defences_won: int = 0
    biggest_stack: int = 0  # sets in the stack at a round's end
    best_round: int = 0  # dollars of the player's stack at one round's end
    favourite_asset: str | None = None  # the kind most often in the stack at round ends
    assets: dict[str, int] = field(default_factory=dict)
    logged_games: int = 0  # digital games whose event log was read

    def as_json(self) -> dict[str, Any]:
        return {
            "games": self.games,
            "average_place": self.average_place,
            "wins": self.wins,
            "rounds_won": self.rounds_won,
            "steals_tried": self.steals_tried,
            "steals_won": self.steals_won,
            "defences": self.defences,
            "defences_won": self.defences_won,
            "biggest_stack": self.biggest_stack,
            "best_round": self.best_round,
            "favourite_asset": self.favourite_asset,
            "logged_games": self.logged_games,
        }


def stats_of(finishes: Sequence[Finish], logs: Iterable[tuple[int, Iterable[Any]]]) -> Stats:
    """Statistics from the player's finished games, and the event logs of their digital
    ones: ``(seat, public events)`` per game, the events as stored (a list per action)."""
    out = Stats(games=len(finishes))
    if finishes:
        out.average_place = round(sum(f.place for f in finishes) / len(finishes), 2)
    out.wins = sum(1 for f in finishes if f.place == 1)
    out.rounds_won = sum(f.rounds_won for f in finishes)
    kinds: Counter[str] = Counter()
    for seat, events in logs:
        out.logged_games += 1
        for batch in events:
            for event in batch or ():
                _count(out, kinds, seat, event)
    out.assets = dict(kinds)
    if kinds:
        top = max(kinds.values())
        out.favourite_asset = min(k for k, n in kinds.items() if n == top)  # ties: by name
    return out


def _count(out: Stats, kinds: Counter[str], seat: int, event: dict[str, Any]) -> None:
    kind = event.get("type")
    if kind == "challenge" and event.get("seat") == seat:
        out.steals_tried += 1
    elif kind == "challenge_end":
        winner = event.get("winner")
        if event.get("challenger") == seat and winner == seat:
            out.steals_won += 1
        elif event.get("holder") == seat and event.get("challenger") != seat:
            out.defences += 1
            out.defences_won += winner == seat
    elif kind == "round_end":
        scores, stacks = event.get("scores") or [], event.get("stacks") or []
        if seat < len(scores):
            out.best_round = max(out.best_round, int(scores[seat]))
        if seat < len(stacks):
            out.biggest_stack = max(out.biggest_stack, len(stacks[seat]))
            kinds.update(str(s.get("kind")) for s in stacks[seat])


@dataclass(frozen=True)
class Meeting:
    """One game two players both played: each one's place."""

    game: int
    mine: int
    theirs: int


def head_to_head(meetings: Sequence[Meeting]) -> dict[str, int]:
    """Games together, and who finished above whom (a shared place is a tie)."""
    return {
        "games": len(meetings),
        "wins": sum(1 for m in meetings if m.mine < m.theirs),
        "losses": sum(1 for m in meetings if m.mine > m.theirs),
        "ties": sum(1 for m in meetings if m.mine == m.theirs),
    }
