"""The common events of a rule set, built once and shared by every state that emits them.

Apart from ``events`` (where ``Event`` lives, a ``dict`` subclass mypyc cannot compile), so
that the compiled engine reads these tables as native attributes (docs/engine.md).
"""

from __future__ import annotations

from .cards import ASSETS, KINDS, PENNY_JAR
from .events import Event


class SharedEvents:
    """The common events of one rule set, indexed by seat and card ids."""

    __slots__ = ("draw", "discard", "pair", "pair_discard", "concede", "pass_")

    def __init__(self, seats: int, hand: int, keys: tuple[str, ...], hide: bool) -> None:
        seat_range = range(seats)
        self.draw = tuple(
            tuple(Event(type="draw", seat=s, count=k) for k in range(max(hand, 10) + 1))
            for s in seat_range
        )
        self.discard = tuple(
            tuple(
                Event(type="discard", seat=s, card=keys[c], removed=c > PENNY_JAR)
                for c in range(KINDS)
            )
            for s in seat_range
        )
        # RULES #9, 2.8.11: the second card of a pair from hand is tucked (hidden)
        self.pair = tuple(
            tuple(
                tuple(
                    Event(
                        type="pair",
                        seat=s,
                        kind=keys[x],
                        cards=[keys[x], None if hide else keys[y]],
                    )
                    for y in range(KINDS)
                )
                for x in range(ASSETS)
            )
            for s in seat_range
        )
        self.pair_discard = tuple(
            tuple(
                tuple(_pair_discard(s, top, c, keys, hide) for c in range(KINDS))
                for top in range(KINDS)
            )
            for s in seat_range
        )
        self.concede = tuple(Event(type="concede", seat=s) for s in seat_range)
        self.pass_ = tuple(Event(type="pass", seat=s) for s in seat_range)


def _pair_discard(seat: int, top: int, card: int, keys: tuple[str, ...], hide: bool) -> Event:
    """RULES 2.8.11: a hand card paired with a discarded asset is tucked; a wild from the
    discard is public, and the hand asset it pairs with defines the set and shows."""
    if top < ASSETS:
        kind, cards = top, [keys[top], None if hide else keys[card]]
    else:
        kind, cards = card, [keys[card], keys[top]]
    return Event(
        type="pair_discard",
        seat=seat,
        kind=keys[min(kind, KINDS - 1)],
        taken=keys[top],
        cards=cards,
    )
