"""The common events of a rule set, built once and shared by every state that emits them.

Apart from ``events`` (where ``Event`` lives, a ``dict`` subclass mypyc cannot compile), so
that the compiled engine reads these tables as native attributes (docs/engine.md).
The events of challenges are made on first use, then found by a packed int key.
"""

from __future__ import annotations

from .actions import cards_of
from .cards import ASSETS, KINDS, PENNY_JAR
from .depths import DEPTH_NAMES, DRAFTED
from .events import Event


class SharedEvents:
    """The common events of one rule set, indexed by seat and card ids."""

    __slots__ = (
        "draw",
        "discard",
        "pair",
        "pair_discard",
        "concede",
        "pass_",
        "end_turn",
        "keys",
        "_made",
    )

    def __init__(self, seats: int, hand: int, keys: tuple[str, ...], hide: bool) -> None:
        seat_range = range(seats)
        self.keys = keys
        # challenge, play and end-of-challenge events made so far, by their packed key
        self._made: dict[int, Event] = {}
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
        self.end_turn = tuple(Event(type="end_turn", seat=s) for s in seat_range)

    def challenge(self, seat: int, action: int, kind: int) -> Event:
        """The event of ``seat`` challenging with ``action`` a set of ``kind``."""
        key = 1 << 40 | seat << 32 | kind << 24 | action  # an action fits in 24 bits
        e = self._made.get(key)
        if e is None:
            keys = self.keys
            e = self._made[key] = Event(
                type="challenge",
                seat=seat,
                target=action >> 8 & 15,
                depth=DEPTH_NAMES[action & 255],
                kind=keys[kind],
                cards=[keys[c] for c in cards_of(action)],
            )
        return e

    def play(self, seat: int, action: int, opens_draft: bool) -> Event:
        """A challenge card play; the first play against a drafted set opens a draft challenge."""
        key = 2 << 40 | opens_draft << 36 | seat << 32 | action
        e = self._made.get(key)
        if e is None:
            e = self._made[key] = Event(
                type="draft_challenge" if opens_draft else "play",
                seat=seat,
                cards=[self.keys[c] for c in cards_of(action)],
            )
        return e

    def challenge_end(
        self,
        winner: int,
        challenger: int,
        holder: int,
        depth: int,
        kind: int,
        count: int,
        challenged: bool,
    ) -> Event:
        """The end of a challenge; a draft ends with draft_end whether or not it was challenged."""
        key = (
            3 << 40
            | challenged << 36
            | winner << 32
            | challenger << 28
            | holder << 24
            | depth << 20
            | kind << 16
            | count
        )
        e = self._made.get(key)
        if e is None:
            end = {
                "type": "draft_end" if depth == DRAFTED else "challenge_end",
                "winner": winner,
                "challenger": challenger,
                "holder": holder,
                "depth": DEPTH_NAMES[depth],
                "kind": self.keys[kind],
                "set_count": count,
            }
            if depth == DRAFTED:
                end["challenged"] = challenged
            e = self._made[key] = Event(end)
        return e


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
