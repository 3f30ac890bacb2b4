"""Scoring a round, deciding whether the game has ended, and the final ranking.

RULES #22-25: stacks score the face value of every card; running tallies decide the
classic game; the quick, highest-after-N and first-to-N-wins endings and the tie
policy decide the others (RULES 2.8.8 for extra rounds).
"""

from __future__ import annotations

from typing import Any

from .state import AssetSet
from .table import Table


def stack_value(stack: tuple[AssetSet, ...], values: tuple[int, ...]) -> int:
    """RULES #25: the face value of every card in a stack."""
    total = 0
    for st in stack:  # loops, not sum() of a list: compiled, these are native adds
        for c in st.cards:
            total += values[c]
    return total


def round_leaders(scores: tuple[int, ...]) -> tuple[int, ...]:
    """Every seat with the round's highest score (RULES 2.8.8: ties all credited)."""
    best = max(scores)
    return tuple(i for i, v in enumerate(scores) if v == best)


def decide(
    t: Table, rounds: int, tallies: tuple[int, ...], wins: tuple[int, ...], resigned: int
) -> tuple[int, ...] | None:
    """The winners if the game ends after this round, else None (RULES #22-24)."""
    live = [i for i in range(t.seats) if not resigned >> i & 1]
    if t.ending == "classic":
        reached = [i for i in live if _reaches(tallies[i], t)]
        if not reached:
            return None
        contenders = live
    elif t.ending == "first_to_n_round_wins":
        contenders = [i for i in live if wins[i] >= t.ending_n]
        if not contenders:
            return None
    else:
        needed = 1 if t.ending == "quick" else t.ending_n
        if rounds < needed:
            return None
        contenders = live
    leaders = _best(contenders, tallies, wins, by_wins=t.ending == "first_to_n_round_wins")
    if len(leaders) == 1 or t.shared_win:
        return tuple(leaders)
    return None  # RULES #23: a tie at the top plays another round


def _reaches(tally: int, t: Table) -> bool:
    """RULES #22: ">= target" by default, "> target" when target_inclusive is off."""
    return tally >= t.target if t.inclusive else tally > t.target


def _best(
    seats: list[int], tallies: tuple[int, ...], wins: tuple[int, ...], *, by_wins: bool
) -> list[int]:
    def key(i: int) -> tuple[int, int]:
        return (wins[i], tallies[i]) if by_wins else (0, tallies[i])

    top = max(key(i) for i in seats)
    return [i for i in seats if key(i) == top]


def ranking(
    t: Table,
    tallies: tuple[int, ...],
    wins: tuple[int, ...],
    winners: tuple[int, ...],
    resigned: int,
) -> list[dict[str, Any]]:
    """Final places: winners first, then by the ending's order; resigned seats last."""
    by_wins = t.ending == "first_to_n_round_wins"

    def key(i: int) -> tuple[int, int, int, int]:
        return (
            0 if resigned >> i & 1 else 1,
            1 if i in winners else 0,
            wins[i] if by_wins else 0,
            tallies[i],
        )

    order = sorted(range(t.seats), key=lambda i: (key(i), -i), reverse=True)
    out: list[dict[str, Any]] = []
    for pos, seat in enumerate(order):
        place = out[-1]["place"] if out and key(order[pos - 1]) == key(seat) else pos + 1
        out.append(
            {
                "seat": seat,
                "place": place,
                "tally": tallies[seat],
                "round_wins": wins[seat],
                "winner": seat in winners,
                "resigned": bool(resigned >> seat & 1),
            }
        )
    return out
