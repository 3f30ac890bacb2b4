"""Scoring rounds played with real cards: what a deck can pay, and how recorded rounds end.

A real table reports each seat's dollars per round and nothing else. From the rule set
alone this module decides whether the cards of its deck can explain those dollars
(RULES.md 1.4, RULES #2, #25) and what the rounds add up to: tallies, round leaders,
round wins and the winners under the ending and tie rules (RULES #22-24, 2.8.8). It
goes through the very ``round_leaders``, ``decide`` and ``ranking`` a digital round does
(scoring.py), with the card values of cards.py, so a recorded game ends exactly where a
digital game with the same round scores would.

The dollars check is safely conservative: it refuses only what no deal could produce.
A round is refused when

- a seat's dollars are no sum of the deck's cards, or less than its cheapest set;
- the seats' dollars together exceed the deck, or are no sum of its cards;
- the seats together need more cards of some value than the deck holds (``fewest``:
  each seat's cards of one value are bounded below by what its other cards can make);
- (``outcome``) the game had already ended under its ending mode.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from itertools import accumulate
from math import gcd
from typing import Any

from .cards import deck_total, is_asset
from .errors import ScoreError
from .rules import RuleSet
from .scoring import decide, ranking, round_leaders
from .table import compile_rules


@dataclass(frozen=True)
class Denomination:
    """The deck's cards of one value, and the step every other card of the deck keeps to."""

    value: int
    count: int
    cards: tuple[int, ...]  # the card ids of this value in the deck
    rest_unit: int  # the gcd of every other value in the deck; 0 if there is none

    def fewest(self, dollars: int) -> int:
        """The fewest cards of this value a stack worth ``dollars`` can hold.

        A stack's other cards add up to a multiple of ``rest_unit``, so it holds at least
        the smallest k for which ``dollars - k * value`` is one; ``count + 1`` if no k is.
        """
        for k in range(self.count + 1):
            rest = dollars - k * self.value
            if rest < 0:
                break
            if rest == 0 or (self.rest_unit and rest % self.rest_unit == 0):
                return k
        return self.count + 1


@dataclass(frozen=True)
class Deck:
    """What a rule set's deck can pay: its total, every total its cards can make, and its
    cards grouped by value."""

    unit: int  # every value is a multiple of it
    total: int
    reachable: int  # bit k set: k * unit dollars is a sum of some of the deck's cards
    cheapest_set: int
    denominations: tuple[Denomination, ...]

    def can_make(self, dollars: int) -> bool:
        """Whether some of the deck's cards add up to exactly ``dollars``."""
        if dollars < 0 or dollars % self.unit:
            return False
        return bool(self.reachable >> (dollars // self.unit) & 1)


@lru_cache(maxsize=64)
def deck_for(rules: RuleSet) -> Deck:
    """The deck of a rule set (cached: rule sets are frozen values)."""
    cards = rules.deck()
    edition = rules.edition_data
    values = edition.values
    by_value: dict[int, list[int]] = {}
    for card in cards:
        if values[card]:  # RULES #32: Swap and Move are worth nothing
            by_value.setdefault(values[card], []).append(card)
    unit = 0
    for value in by_value:
        unit = gcd(unit, value)
    denominations = tuple(
        Denomination(value, len(ids), tuple(sorted(set(ids))), _gcd_of(by_value, value))
        for value, ids in sorted(by_value.items())
    )
    return Deck(
        unit,
        deck_total(cards, edition),
        _reachable(denominations, unit),
        _cheapest(rules),
        denominations,
    )


def _gcd_of(by_value: dict[int, list[int]], leaving_out: int) -> int:
    unit = 0
    for value in by_value:
        if value != leaving_out:
            unit = gcd(unit, value)
    return unit


def _reachable(denominations: tuple[Denomination, ...], unit: int) -> int:
    """Every sum of the deck's cards, as a bitset (bounded knapsack by binary splitting)."""
    reachable = 1
    for d in denominations:
        step, count, k = d.value // unit, d.count, 1
        while count > 0:
            take = min(k, count)
            reachable |= reachable << (step * take)
            count -= take
            k *= 2
    return reachable


def _cheapest(rules: RuleSet) -> int:
    """The smallest set: two of the cheapest asset, or it with the cheapest wild (RULES #7, #8)."""
    values = rules.edition_data.values
    present = set(rules.deck())
    assets = sorted(values[c] for c in present if is_asset(c))
    wilds = sorted(values[c] for c in present if not is_asset(c) and values[c] > 0)
    return min([2 * assets[0]] + ([assets[0] + wilds[0]] if wilds else []))


def check_round(rules: RuleSet, dollars: Sequence[int]) -> None:
    """Raise ScoreError if the cards of this rule set's deck cannot explain a round."""
    if len(dollars) != rules.seats:
        raise ScoreError(
            f"Give dollars for all {rules.seats} seats.", "wrong_seat_count", {"seats": rules.seats}
        )
    deck = deck_for(rules)
    for seat, amount in enumerate(dollars):
        _check_seat(deck, seat, amount)
    total = sum(dollars)
    if total > deck.total:
        raise ScoreError(
            f"The seats hold ${total:,} together, but the whole deck is worth ${deck.total:,}.",
            "round_total_too_high",
            {"total": total, "deck_total": deck.total},
        )
    if not deck.can_make(total):
        raise ScoreError(
            f"No part of this deck adds up to ${total:,}.", "impossible_total", {"total": total}
        )
    for denomination in deck.denominations:
        _check_enough(rules, denomination, dollars)


def _check_seat(deck: Deck, seat: int, amount: int) -> None:
    if amount < 0:
        raise ScoreError("Dollars cannot be negative.", "negative_dollars", {"seat": seat})
    if amount > deck.total:
        # the real reason first: no stack holds more than the whole deck (RULES.md 1.2,
        # "A whole deck is worth $1.36M-$1.39M"); typing 1500 for $1,500,000 lands here
        raise ScoreError(
            f"No seat can hold ${amount:,}: the whole deck is worth ${deck.total:,}.",
            "dollars_above_deck",
            {"seat": seat, "dollars": amount, "deck_total": deck.total},
        )
    if amount and (amount < deck.cheapest_set or not deck.can_make(amount)):
        raise ScoreError(
            f"No stack of this deck is worth ${amount:,}: values come in steps of "
            f"${deck.unit:,} and the smallest set is worth ${deck.cheapest_set:,}.",
            "impossible_dollars",
            {"seat": seat, "dollars": amount, "unit": deck.unit, "cheapest_set": deck.cheapest_set},
        )


def _check_enough(rules: RuleSet, denomination: Denomination, dollars: Sequence[int]) -> None:
    """The seats' stacks are disjoint parts of one deck (RULES #25): together they hold at
    most ``count`` cards of this value, so their fewest may not add up to more."""
    needs = [denomination.fewest(amount) for amount in dollars]
    needed = sum(needs)
    if needed <= denomination.count:
        return
    # the seat whose stack, after those before it, the deck can no longer pay is named
    seat = next(s for s, held in enumerate(accumulate(needs)) if held > denomination.count)
    cards = rules.edition_data.cards
    names = ", ".join(cards[c].name for c in denomination.cards)
    raise ScoreError(
        f"Together the seats need at least {needed} cards worth ${denomination.value:,} "
        f"({names}), but the deck holds only {denomination.count}.",
        "not_enough_cards",
        {
            "seat": seat,
            "seats": [s for s, need in enumerate(needs) if need],
            "value": denomination.value,
            "cards": [cards[c].key for c in denomination.cards],
            "needed": needed,
            "deck_count": denomination.count,
        },
    )


@dataclass(frozen=True)
class RoundResult:
    """One recorded round as the engine scores it: dollars, tallies after it, its leaders."""

    number: int
    scores: tuple[int, ...]
    tallies: tuple[int, ...]
    leaders: tuple[int, ...]  # RULES 2.8.8: every seat with the round's top score


@dataclass(frozen=True)
class Outcome:
    """Tallies and round wins after some rounds, the rounds scored, and the winners and
    final ranking (scoring.ranking's rows) if the game has ended."""

    tallies: tuple[int, ...]
    wins: tuple[int, ...]
    winners: tuple[int, ...] | None
    rounds: tuple[RoundResult, ...] = ()
    ranking: tuple[dict[str, Any], ...] = ()


def outcome(rules: RuleSet, rounds: Sequence[Sequence[int]]) -> Outcome:
    """Play the recorded rounds through the engine's ending rules (RULES #22-24).

    Raises ScoreError (``game_already_ended``) if a round comes after the game had ended.
    """
    table = compile_rules(rules)
    tallies = wins = (0,) * rules.seats
    winners: tuple[int, ...] | None = None
    scored: list[RoundResult] = []
    for number, dollars in enumerate(rounds, start=1):
        if winners is not None:
            raise ScoreError(
                f"The game ended after round {number - 1}; round {number} cannot be added.",
                "game_already_ended",
                {"ended_after": number - 1},
            )
        scores = tuple(dollars)
        leaders = round_leaders(scores)
        tallies = tuple(a + b for a, b in zip(tallies, scores, strict=True))
        wins = tuple(w + (i in leaders) for i, w in enumerate(wins))
        scored.append(RoundResult(number, scores, tallies, leaders))
        winners = decide(table, number, tallies, wins, 0)
    final = () if winners is None else tuple(ranking(table, tallies, wins, winners, 0))
    return Outcome(tallies, wins, winners, tuple(scored), final)
