"""Interned hands: what each one precomputes is what the rules say it can do.

``Hand.opening[top]`` is most of a turn in one lookup (RULES #6, #7): the hand's pairs,
then its discard pairs on a discard pile showing ``top`` (15: empty), then its discards.
It is built from a few shared tuples, so here it is checked against ``discard_pairs``,
the rule written out, for every hand of up to four cards.
"""

from __future__ import annotations

from itertools import combinations_with_replacement

from games.engine.cards import ASSETS, PENNY_JAR, SILVER
from games.engine.hands import Hand, discard_pairs, hand_of

ALL_CARDS = range(16)


def hands_up_to(size: int) -> list[Hand]:
    return [
        hand_of(cards)
        for n in range(size + 1)
        for cards in combinations_with_replacement(ALL_CARDS, n)
    ]


def test_every_opening_is_the_pairs_then_the_discard_pairs_on_that_top_then_the_discards() -> None:
    hands = hands_up_to(4)
    assert len(hands) == 4845  # every multiset of up to four of the sixteen card ids
    for hand in hands:
        for top in range(16):
            rule = discard_pairs(top, hand.counts, hand.assets, hand.wilds, True, True)
            assert hand.opening[top] == (*hand.pairs, *rule, *hand.discards), (hand, top)


def test_a_hand_knows_its_cards_assets_and_wilds() -> None:
    for hand in hands_up_to(3):
        assert hand.cards == tuple(sorted(hand.cards))
        assert hand.size == len(hand.cards) == sum(hand.counts)
        assert hand.assets == tuple(c for c in hand.distinct if c < ASSETS)
        assert hand.wilds == tuple(c for c in hand.distinct if SILVER <= c <= PENNY_JAR)
        assert hand_of(hand.cards) is hand  # interned: one object per multiset
