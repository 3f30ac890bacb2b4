"""Hands as interned values: one ``Hand`` object per multiset of cards.

A Hand knows what legal-action generation asks of it (its pairs, discards, wilds, and the
whole no-challenge part of a turn for every discard top), and where it goes when a card
arrives or leaves (``step``, filled on first use). Applying an
action then moves between Hand objects instead of rebuilding collections, and listing
legal actions reads precomputed tuples: the ladder's hot path does almost no work per
hand. Hands are immutable; equal hands are equal by their ``code``.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Final, TypeVar, cast

from .actions import DISCARD, PAIR, PAIR_DISCARD
from .cards import ASSETS, NO_CARD, PENNY_JAR, SILVER

_PAIR: Final = PAIR << 20
_DISCARD: Final = (DISCARD << 20) | (NO_CARD << 12)
_PD: Final = (PAIR_DISCARD << 20) | (NO_CARD << 12)
T = TypeVar("T")


class Hand:
    """A multiset of cards, with everything the engine asks of it precomputed."""

    # the hot fields first: slot order is memory order, so they share a cache line
    __slots__ = (
        "size",
        "opening",
        "step",
        "counts",
        "wilds",
        "against",
        "code",
        "cards",
        "distinct",
        "assets",
        "pairs",
        "discards",
    )

    code: int  # four bits per card kind: how many of each card the hand holds
    size: int
    cards: tuple[int, ...]  # every card, ascending
    counts: tuple[int, ...]  # copies held, by card id
    distinct: tuple[int, ...]  # each card once, ascending
    assets: tuple[int, ...]  # distinct assets
    wilds: tuple[int, ...]  # distinct wilds (Silver, Gold, Penny Jar)
    pairs: tuple[int, ...]  # the PAIR actions this hand can make (RULES #7)
    discards: tuple[int, ...]  # the DISCARD actions, one per distinct card
    # pairs + discard pairs + discards by discard top (15: an empty pile) under the
    # default discard_pair_wild="both" (RULES #6): most of a turn in one lookup
    opening: tuple[tuple[int, ...], ...]
    # by asset kind, which cards can challenge a set of that kind, as an AGAINST_CARDS code
    against: tuple[int, ...]
    # the hand after one card joins it (index = card) or leaves it (index = 16 + card),
    # filled on first use: moving between hands is a list lookup
    step: list[Hand | None]

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Hand) and other.code == self.code

    def __hash__(self) -> int:
        return hash(self.code)

    def __repr__(self) -> str:
        return f"Hand{self.cards}"


# The cards that can challenge a set, by Hand.against code (the set's kind << 4, | 8 if the
# hand holds that asset, | one bit per wild held from Silver on): a matching asset, then
# each wild (RULES #13, #14)
AGAINST_CARDS: Final = tuple(
    ((code >> 4,) if code & 8 else ()) + tuple([SILVER + i for i in range(3) if code >> i & 1])
    for code in range(ASSETS << 4)
)
_HANDS: Final[dict[int, Hand]] = {}
# One int object per action value, shared by every hand's tuples: some 15,000 hands would
# otherwise each hold copies of their own, scattered through memory (typed object so that
# the compiled build keeps the objects instead of boxing copies of their values)
_ACTION_INTS: Final[dict[int, object]] = {}


def shared(actions: Iterable[int]) -> tuple[int, ...]:
    """The actions as a tuple of the shared int objects."""
    out: list[object] = []
    for a in actions:
        out.append(_ACTION_INTS.setdefault(a, a))
    return cast(tuple[int, ...], tuple(out))


def _hand(code: int) -> Hand:
    """The interned Hand for a code."""
    h = _HANDS.get(code)
    if h is None:
        h = _HANDS[code] = _build(code)
    return h


def _build(code: int) -> Hand:
    h = Hand()
    counts = tuple([code >> (c << 2) & 15 for c in range(16)])
    distinct = tuple([c for c in range(16) if counts[c]])
    assets = tuple([c for c in distinct if c < ASSETS])
    wilds = tuple([c for c in distinct if SILVER <= c <= PENNY_JAR])
    pairs: list[int] = []
    for a in assets:  # RULES #7: an asset with its twin or with a wild, never two wilds
        if counts[a] >= 2:
            pairs.append(_PAIR | a << 16 | a << 12)
        pairs.extend([_PAIR | a << 16 | w << 12 for w in wilds])
    discards = tuple([_DISCARD | c << 16 for c in distinct])
    # opening[top]: pairs, then the discard pairs on ``top`` (discard_pairs with both
    # wild flags on, RULES #6), then discards. Tops giving the same discard pairs share
    # one tuple: every asset the hand lacks, every wild, every other card or none.
    wild_pds = [_PD | w << 16 for w in wilds]
    lacked = shared((*pairs, *wild_pds, *discards))
    on_wild = shared((*pairs, *[_PD | a << 16 for a in assets], *discards))
    plain = shared((*pairs, *discards))
    h.opening = tuple(
        [
            shared((*pairs, _PD | top << 16, *wild_pds, *discards)) if counts[top] else lacked
            for top in range(ASSETS)
        ]
        + [on_wild] * (PENNY_JAR + 1 - ASSETS)
        + [plain] * (16 - PENNY_JAR - 1)
    )
    h.code, h.size, h.counts, h.distinct = code, sum(counts), counts, distinct
    h.cards = tuple([c for c in distinct for _ in range(counts[c])])
    h.assets, h.wilds, h.pairs, h.discards = assets, wilds, shared(pairs), shared(discards)
    wild_bits = sum([1 << (w - SILVER) for w in wilds])
    h.against = tuple([k << 4 | (8 if counts[k] else 0) | wild_bits for k in range(ASSETS)])
    h.step = [None] * 32
    return h


def discard_pairs(
    top: int,
    counts: tuple[int, ...],
    assets: tuple[int, ...],
    wilds: tuple[int, ...],
    wild_hand: bool,
    wild_top: bool,
) -> list[int]:
    """RULES #6: an asset on the discard takes its twin or a wild; a wild takes an asset."""
    if top < ASSETS:
        own = [_PD | top << 16] if counts[top] else []
        return own + [_PD | w << 16 for w in wilds] if wild_hand else own
    if top <= PENNY_JAR and wild_top:
        return [_PD | a << 16 for a in assets]
    return []


EMPTY = _hand(0)


def hand_of(cards: Iterable[int]) -> Hand:
    """The hand holding these cards."""
    code = 0
    for c in cards:
        code += 1 << (c << 2)
    return _hand(code)


def take(hand: Hand, card: int) -> Hand:
    """The hand without one copy of ``card``, which it must hold."""
    h = hand.step[16 + card]
    if h is None:
        assert hand.counts[card], "take() of a card the hand does not hold"
        h = hand.step[16 + card] = _hand(hand.code - (1 << (card << 2)))
    return h


def give(hand: Hand, card: int) -> Hand:
    """The hand with one more copy of ``card``."""
    h = hand.step[card]
    if h is None:
        h = hand.step[card] = _hand(hand.code + (1 << (card << 2)))
    return h


def take_all(hand: Hand, cards: Iterable[int]) -> Hand:
    """The hand without one copy of each of ``cards``."""
    for c in cards:
        hand = take(hand, c)
    return hand


def holds(hand: Hand, cards: Iterable[int]) -> bool:
    """Whether the hand holds all of ``cards`` (as a multiset)."""
    need = hand_of(cards).counts
    return all(hand.counts[c] >= need[c] for c in range(16))


def replace_at(items: tuple[T, ...], index: int, value: T) -> tuple[T, ...]:
    """A copy of a tuple with one element replaced."""
    out = list(items)  # faster than slicing and concatenating (and, compiled, than [*items])
    out[index] = value
    return tuple(out)
