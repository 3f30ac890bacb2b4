"""SeatView: what one seat may know, as plain values, for the built-in strategies.

``SeatView(state, seat)`` copies out of the state the seat's own hand, the public table
and, when the seat must act, its legal actions, and keeps no reference to the state. A
strategy handed a view cannot read a hidden card, even by mistake. The search player also
gets ``worlds`` (``SeatView(state, seat, worlds=True)``): a sampler of positions the seat
cannot tell from the real one, which holds no hidden card either (``worlds.Worlds``).

A set in a view is the engine's ``AssetSet`` with each tucked card the seat has not seen
read as ``HIDDEN`` (RULES #9, 2.8.11); the rest of a set is public. ``observe`` gives the
same knowledge as JSON, for the API, the pages and webhook bots; both ask ``hidden`` what
a seat may see (tests/engine/test_view.py holds them together).
"""

from __future__ import annotations

from typing import NamedTuple

from .cards import ASSETS, KINDS, PENNY_JAR, SILVER
from .hands import Hand
from .hidden import face_down, sees_tucked
from .legal import legal_actions
from .state import DECISION_NAMES, DRAFTED, HIDDEN, OVER, AssetSet, Pile, State
from .worlds import Worlds

SetView = AssetSet  # a set as a seat sees it: a tucked card it has not seen reads HIDDEN


class ChallengeView(NamedTuple):
    """The public facts of a challenge in progress (RULES #13-19, #27, #28, #35)."""

    challenger: int
    holder: int
    depth: int
    kind: int
    played: tuple[int, ...]
    demand: int
    drafted: tuple[int, ...]


class SeatView:
    """One seat's knowledge at one moment: its hand, the public table, its choices. Read-only."""

    __slots__ = (
        "seat",
        "seats",
        "kind",
        "to_act",
        "worlds",
        "values",
        "hand",
        "_hand",
        "_legal",
        "_sizes",
        "deck_left",
        "_deck",
        "_discard",
        "removed",
        "_stacks",
        "_first_formed",
        "_tops",
        "challenge",
        "tallies",
        "_unseen",
    )

    seat: int
    seats: int
    kind: str  # the decision pending: turn, second_action, defend, counter, ...
    to_act: bool  # whether this seat must act now
    worlds: Worlds | None  # positions this seat cannot tell apart (when asked for)
    values: tuple[int, ...]  # dollar value by card id in this edition
    hand: tuple[int, ...]  # this seat's cards, ascending
    deck_left: int  # cards still to draw
    removed: tuple[int, ...]  # action cards out of play
    challenge: ChallengeView | None  # the challenge in progress
    tallies: tuple[int, ...]  # running dollar totals by seat

    def __init__(self, state: State, seat: int, *, worlds: bool = False) -> None:
        s = state
        t = s.table
        if not 0 <= seat < t.seats:
            raise ValueError("seat must be one of the game's seats")
        self.seat = seat
        self.seats = t.seats
        self.kind = DECISION_NAMES[OVER if s.over else s.kind]
        self.to_act = s.to_act == seat and not s.over
        self.values = t.values
        own: Hand = s.hands[seat]
        self._hand = own
        self.hand = own.cards
        self._legal = legal_actions(s) if self.to_act else ()
        self._sizes = tuple([h.size for h in s.hands])
        self.deck_left = len(s.deck) - s.drawn
        self._deck = t.deck
        self._discard: Pile = s.discard
        self.removed = s.removed
        self._stacks = tuple([_seen_by(stack, owner, seat) for owner, stack in enumerate(s.stacks)])
        self._first_formed = t.first_formed
        down = face_down(s)
        self._tops = tuple([p[-1] if p and i not in down else None for i, p in enumerate(s.piles)])
        self.challenge = _challenge(s)
        self.tallies = s.game.tallies
        self._unseen: list[int] | None = None
        self.worlds = Worlds(s, seat) if worlds else None

    # --- the decision ------------------------------------------------------------------

    def legal(self) -> tuple[int, ...]:
        """The legal actions when this seat must act; empty otherwise."""
        return self._legal

    # --- this seat's own cards ---------------------------------------------------------

    def holds(self, card: int) -> int:
        """How many copies of ``card`` this seat holds."""
        return self._hand.counts[card]

    # --- the public table --------------------------------------------------------------

    def hand_size(self, seat: int) -> int:
        """How many cards a seat holds (public)."""
        return self._sizes[seat]

    @property
    def discard_top(self) -> int | None:
        """The top of the discard pile, if any."""
        d = self._discard
        return None if d is None else d[0]

    @property
    def discard_pile(self) -> tuple[int, ...]:
        """Every discarded card, bottom first (all were shown)."""
        out = []
        node = self._discard
        while node is not None:
            out.append(node[0])
            node = node[1]
        out.reverse()
        return tuple(out)

    def stack(self, seat: int) -> tuple[SetView, ...]:
        """A seat's stack, bottom first, as this seat has seen it."""
        return self._stacks[seat]

    def stack_size(self, seat: int) -> int:
        """How many sets a seat has."""
        return len(self._stacks[seat])

    def top(self, seat: int) -> SetView | None:
        """A seat's top set, if any."""
        stack = self._stacks[seat]
        return stack[-1] if stack else None

    def protected(self, seat: int, index: int) -> bool:
        """Whether the set at ``index`` (0: the bottom) of a seat's stack cannot be
        challenged (RULES #11, #12, 2.8.13)."""
        aset = self._stacks[seat][index]
        return aset[4] if self._first_formed else index == 0

    def known_value(self, aset: SetView) -> int:
        """The value of the cards of a set this seat has seen."""
        values = self.values
        return sum([values[c] for c in aset[1] if c != HIDDEN])

    @staticmethod
    def hidden_cards(aset: SetView) -> int:
        """How many of a set's cards this seat has not seen (0 or 1)."""
        return aset[1].count(HIDDEN)

    def pile_tops(self) -> tuple[int | None, ...]:
        """The face-up top of each draft pile (None: empty, or face down, RULES 2.8.5)."""
        return self._tops

    def contested_value(self) -> int:
        """What the set fought over is known to be worth, challenge cards included."""
        ch = self.challenge
        if ch is None:
            return 0
        if ch.drafted:
            base = sum([self.values[c] for c in ch.drafted])
        else:
            stack = self._stacks[ch.holder]
            base = self.known_value(stack[len(stack) - 1 - ch.depth])
        return base + sum([self.values[c] for c in ch.played])

    # --- card counting -----------------------------------------------------------------

    def unseen(self) -> list[int]:
        """Copies of each card this seat has not seen anywhere: in other hands, the deck,
        under pile tops, or tucked out of its sight."""
        if self._unseen is None:
            left = [0] * KINDS
            for card in self._deck:
                left[card] += 1
            for card in self._seen():
                left[card] -= 1
            self._unseen = left
        return list(self._unseen)

    def _seen(self) -> list[int]:
        seen = [*self.hand, *self.discard_pile, *self.removed]
        for stack in self._stacks:
            for aset in stack:
                seen += [c for c in aset[1] if c != HIDDEN]
        seen += [top for top in self._tops if top is not None]
        ch = self.challenge
        if ch is not None:
            seen += ch.played
            seen += ch.drafted
        return seen


def is_asset(card: int) -> bool:
    """Whether the card is an asset."""
    return 0 <= card < ASSETS


def is_wild(card: int) -> bool:
    """Whether the card is a wild (Silver, Gold, Penny Jar)."""
    return SILVER <= card <= PENNY_JAR


_tnew = tuple.__new__  # builds a NamedTuple without its slow Python-level __new__


def _seen_by(stack: tuple[AssetSet, ...], owner: int, seat: int) -> tuple[AssetSet, ...]:
    """A stack as ``seat`` sees it (RULES #9, 2.8.11: ``hidden.sees_tucked``): the stack
    itself when it sees every card, else a copy with the cards it has not seen HIDDEN."""
    for aset in stack:
        if not sees_tucked(aset, owner, seat):
            break
    else:
        return stack
    return tuple([aset if sees_tucked(aset, owner, seat) else _twin(aset) for aset in stack])


# Twins memoized: a search player's playouts build a view at every decision, each of the
# same few sets again, and building the twins was a sixth of a playout's time. A set is a
# value, so its twin is too; the table is emptied when full, to bound a long process.
_TWINS: dict[AssetSet, AssetSet] = {}
_TWINS_MAX = 1 << 16


def _twin(aset: AssetSet) -> AssetSet:
    """The set with its tucked card read as HIDDEN."""
    twin = _TWINS.get(aset)
    if twin is None:
        cards = list(aset[1])
        cards[aset[2]] = HIDDEN
        twin = _tnew(AssetSet, (aset[0], tuple(cards), aset[2], aset[3], aset[4]))
        if len(_TWINS) >= _TWINS_MAX:
            _TWINS.clear()
        _TWINS[aset] = twin
    return twin


def _challenge(s: State) -> ChallengeView | None:
    ch = s.challenge
    if ch is None:
        return None
    drafted = ch.drafted[1] if ch.depth == DRAFTED and ch.drafted is not None else ()
    return _tnew(
        ChallengeView, (ch.challenger, ch.holder, ch.depth, ch.kind, ch.played, ch.demand, drafted)
    )
