"""Checking real-table scores against the deck ("deck physics"), and deciding the ending.

Pure: no database. Cards, counts and values come from the engine's catalogue for the
game's rule set (edition, advanced cards, the two-seat deck); ending and tie rules come
from the engine's own ``decide``, so a recorded game ends exactly as a digital one would.
A round is refused when:

- a seat's dollars are not a total that cards of this deck can make (the sum of some of
  its cards, and at least the cheapest possible set, or nothing at all);
- the seats' dollars together exceed the deck, or are not a total its cards can make;
- the game has already ended under its ending mode.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from games.engine import RuleSet
from games.engine.cards import ASSETS
from games.engine.rules import compile_rules
from games.engine.scoring import decide, round_leaders


class ScoreError(ValueError):
    """A recorded round the cards cannot explain; ``code`` is stable, ``details`` specific."""

    def __init__(self, code: str, message: str, **details: object) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.details = details


@dataclass(frozen=True)
class Deck:
    """What a rule set's deck can pay: its total, and every total its cards can make."""

    unit: int  # every value is a multiple of it
    total: int
    reachable: int  # bit k set: k * unit dollars is a sum of some of the deck's cards
    cheapest_set: int

    def can_make(self, dollars: int) -> bool:
        """Whether some of the deck's cards add up to exactly ``dollars``."""
        if dollars < 0 or dollars % self.unit:
            return False
        return bool(self.reachable >> (dollars // self.unit) & 1)


@lru_cache(maxsize=64)
def deck_for(rules: RuleSet) -> Deck:
    """The deck of a rule set (cached: rule sets are frozen values)."""
    cards = rules.deck()
    values = rules.edition_data.values
    unit = 0
    for v in {values[c] for c in cards}:
        unit = _gcd(unit, v)
    counts: dict[int, int] = {}
    for c in cards:
        counts[values[c]] = counts.get(values[c], 0) + 1
    reachable = 1
    for value, count in counts.items():
        step = value // unit
        k = 1
        while count > 0:  # bounded knapsack by binary splitting, on a big-int bitset
            take = min(k, count)
            reachable |= reachable << (step * take)
            count -= take
            k *= 2
    assets = sorted(values[c] for c in set(cards) if c < ASSETS)
    wilds = sorted(values[c] for c in set(cards) if c >= ASSETS and values[c] > 0)
    cheapest = min([2 * assets[0]] + ([assets[0] + wilds[0]] if wilds else []))
    return Deck(unit, sum(values[c] for c in cards), reachable, cheapest)


def _gcd(a: int, b: int) -> int:
    while b:
        a, b = b, a % b
    return a


def check_round(rules: RuleSet, dollars: Sequence[int]) -> None:
    """Raise ScoreError if the cards of this rule set's deck cannot explain a round."""
    if len(dollars) != rules.seats:
        raise ScoreError(
            "wrong_seat_count", f"Give dollars for all {rules.seats} seats.", seats=rules.seats
        )
    deck = deck_for(rules)
    for seat, amount in enumerate(dollars):
        if amount < 0:
            raise ScoreError("negative_dollars", "Dollars cannot be negative.", seat=seat)
        if amount and (amount < deck.cheapest_set or not deck.can_make(amount)):
            raise ScoreError(
                "impossible_dollars",
                f"No stack of this deck is worth ${amount:,}: values come in steps of "
                f"${deck.unit:,} and the smallest set is worth ${deck.cheapest_set:,}.",
                seat=seat,
                dollars=amount,
                unit=deck.unit,
                cheapest_set=deck.cheapest_set,
            )
    total = sum(dollars)
    if total > deck.total:
        raise ScoreError(
            "round_total_too_high",
            f"The seats hold ${total:,} together, but the whole deck is worth ${deck.total:,}.",
            total=total,
            deck_total=deck.total,
        )
    if not deck.can_make(total):
        raise ScoreError(
            "impossible_total", f"No part of this deck adds up to ${total:,}.", total=total
        )


@dataclass(frozen=True)
class Outcome:
    """Tallies and round wins after some rounds, and the winners if the game has ended."""

    tallies: tuple[int, ...]
    wins: tuple[int, ...]
    winners: tuple[int, ...] | None


def outcome(rules: RuleSet, rounds: Sequence[Sequence[int]]) -> Outcome:
    """Play the recorded rounds through the engine's ending rules (RULES #22-24).

    Raises ScoreError if a round comes after the game had already ended.
    """
    table = compile_rules(rules)
    n = rules.seats
    tallies = (0,) * n
    wins = (0,) * n
    winners: tuple[int, ...] | None = None
    for number, scores in enumerate(rounds, start=1):
        if winners is not None:
            raise ScoreError(
                "game_already_ended",
                f"The game ended after round {number - 1}; round {number} cannot be added.",
                ended_after=number - 1,
            )
        leaders = round_leaders(tuple(scores))
        tallies = tuple(a + b for a, b in zip(tallies, scores, strict=True))
        wins = tuple(w + (i in leaders) for i, w in enumerate(wins))
        winners = decide(table, number, tallies, wins, 0)
    return Outcome(tallies, wins, winners)
