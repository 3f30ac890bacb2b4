"""SeatView: what one seat may know, read straight from the engine state.

Built-in strategies decide from a SeatView, never from the State: it exposes the seat's
own hand and everything public (stacks with the cards this seat has seen, the discard
pile, pile tops, counts, the challenge in progress) and nothing else. It reads the state
directly instead of building ``observe``'s JSON, because strategies run on the ladder's
hot path; ``tests/bots`` checks it against ``observe`` so both show the same knowledge.
The search player alone reaches the State behind a view, and only to hand it to
``redeal_hidden_from``, whose worlds depend on nothing the seat cannot see
(``tests/bots/test_never_peek.py`` holds every built-in to that).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from games.engine import State, legal_actions
from games.engine.cards import ASSETS, KINDS, PENNY_JAR, SILVER
from games.engine.state import DECISION_NAMES


@dataclass(frozen=True, slots=True)
class SetView:
    """One set as this seat sees it: kind, size, and the cards it has seen (None: hidden)."""

    kind: int
    cards: tuple[int | None, ...]
    protected: bool

    @property
    def size(self) -> int:
        """How many cards the set holds (public)."""
        return len(self.cards)


class SeatView:
    """The seat's knowledge: its hand and the public table. Read-only."""

    __slots__ = ("_stacks", "_state", "_unseen", "seat")

    def __init__(self, state: State, seat: int) -> None:
        self._state = state
        self.seat = seat
        self._unseen: list[int] | None = None
        # each seat's stack view, built once per view: greedy weighs every challenge
        # against it, and the search player's playouts run greedy thousands of times
        self._stacks: dict[int, tuple[SetView, ...]] = {}

    # --- the decision ------------------------------------------------------------------

    @property
    def kind(self) -> str:
        """The kind of decision pending (turn, defend, counter, ...)."""
        return DECISION_NAMES[self._state.kind]

    @property
    def to_act(self) -> bool:
        """Whether this seat must act now."""
        return self._state.to_act == self.seat and not self._state.over

    def legal(self) -> tuple[int, ...]:
        """The legal actions when this seat must act; empty otherwise."""
        return legal_actions(self._state) if self.to_act else ()

    # --- this seat's own cards ---------------------------------------------------------

    @property
    def hand(self) -> tuple[int, ...]:
        """This seat's cards, ascending."""
        return self._state.hands[self.seat].cards

    def holds(self, card: int) -> int:
        """How many copies of ``card`` this seat holds."""
        return self._state.hands[self.seat].counts[card]

    # --- the public table --------------------------------------------------------------

    @property
    def seats(self) -> int:
        """Seats at the table."""
        return self._state.table.seats

    @property
    def values(self) -> tuple[int, ...]:
        """Dollar value by card id in this edition."""
        return self._state.table.values

    def hand_size(self, seat: int) -> int:
        """How many cards a seat holds (public)."""
        return self._state.hands[seat].size

    @property
    def deck_left(self) -> int:
        """Cards still to draw."""
        return len(self._state.deck) - self._state.drawn

    @property
    def discard_top(self) -> int | None:
        """The top of the discard pile, if any."""
        d = self._state.discard
        return None if d is None else d[0]

    @property
    def discard_pile(self) -> tuple[int, ...]:
        """Every discarded card, bottom first (all were shown)."""
        return self._state.discard_pile

    @property
    def removed(self) -> tuple[int, ...]:
        """Action cards out of play."""
        return self._state.removed

    def stack(self, seat: int) -> tuple[SetView, ...]:
        """A seat's stack, bottom first, as this seat has seen it."""
        found = self._stacks.get(seat)
        if found is None:
            found = self._stacks[seat] = self._stack(seat)
        return found

    def _stack(self, seat: int) -> tuple[SetView, ...]:
        s = self._state
        bit = 1 << self.seat
        first_formed = s.table.first_formed
        out = []
        stack = s.stacks[seat]
        for i, st in enumerate(stack):
            hidden = (
                st.tucked if st.tucked >= 0 and seat != self.seat and not st.knowers & bit else -1
            )
            cards = tuple(None if j == hidden else c for j, c in enumerate(st.cards))
            protected = st.first if first_formed else i == 0
            out.append(SetView(st.kind, cards, protected))
        return tuple(out)

    def stack_size(self, seat: int) -> int:
        """How many sets a seat has."""
        return len(self._state.stacks[seat])

    def top(self, seat: int) -> SetView | None:
        """A seat's top set, if any."""
        stack = self.stack(seat)
        return stack[-1] if stack else None

    def known_value(self, aset: SetView) -> int:
        """The value of the cards of a set this seat has seen."""
        values = self.values
        return sum(values[c] for c in aset.cards if c is not None)

    def pile_tops(self) -> tuple[int | None, ...]:
        """The face-up top of each draft pile (None: empty or not yet flipped)."""
        s = self._state
        return tuple(p[-1] if p and i not in s.flips else None for i, p in enumerate(s.piles))

    @property
    def challenge(self) -> ChallengeView | None:
        """The challenge in progress, if any."""
        ch = self._state.challenge
        if ch is None:
            return None
        drafted = ch.drafted.cards if ch.drafted is not None else ()
        return ChallengeView(
            ch.challenger, ch.holder, ch.depth, ch.kind, ch.played, ch.demand, drafted
        )

    def contested_value(self) -> int:
        """What the set fought over is known to be worth, challenge cards included."""
        ch = self.challenge
        if ch is None:
            return 0
        if ch.drafted:
            base = sum(self.values[c] for c in ch.drafted)
        else:
            stack = self.stack(ch.holder)
            base = self.known_value(stack[len(stack) - 1 - ch.depth])
        return base + sum(self.values[c] for c in ch.played)

    @property
    def tallies(self) -> tuple[int, ...]:
        """Running dollar totals by seat."""
        return self._state.tallies

    # --- card counting -----------------------------------------------------------------

    def unseen(self) -> list[int]:
        """Copies of each card this seat has not seen anywhere (other hands and the deck)."""
        if self._unseen is None:
            left = [0] * KINDS
            for card in self._state.table.deck:
                left[card] += 1
            for card in self._seen():
                left[card] -= 1
            self._unseen = left
        return list(self._unseen)

    def _seen(self) -> Iterator[int]:
        yield from self.hand
        yield from self.discard_pile
        yield from self.removed
        for seat in range(self.seats):
            for aset in self.stack(seat):
                yield from (c for c in aset.cards if c is not None)
        for top in self.pile_tops():
            if top is not None:
                yield top
        ch = self.challenge
        if ch is not None:
            yield from ch.played
            yield from ch.drafted


@dataclass(frozen=True, slots=True)
class ChallengeView:
    """The public facts of a challenge in progress."""

    challenger: int
    holder: int
    depth: int
    kind: int
    played: tuple[int, ...]
    demand: int
    drafted: tuple[int, ...]


def is_asset(card: int) -> bool:
    """Whether the card is an asset."""
    return card < ASSETS


def is_wild(card: int) -> bool:
    """Whether the card is a wild (Silver, Gold, Penny Jar)."""
    return SILVER <= card <= PENNY_JAR
